// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// TestSocketClosedWithoutDelete: a socket closed without Delete is
// reported no more, and Delete of its number then returns nil or
// ErrNotRegistered. With a second descriptor of it held, the socket is
// still open: epoll (and AFD, under Wine) keeps the registration under the
// closed number and reports it, until Delete.
func TestSocketClosedWithoutDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		t.Run("plain", func(t *testing.T) {
			client, server := sockettest.Pair(t)
			if err := p.Add(server, 1, Readable, Level); err != nil {
				t.Fatal(err)
			}
			sockettest.Send(t, client, "x")
			expect(t, p, 1, Readable)
			sockettest.Close(t, server)
			expectQuiet(t, p, 1, quiet)
			if err := p.Delete(server); err != nil && !errors.Is(err, ErrNotRegistered) {
				t.Errorf("Delete after the close: %v", err)
			}
		})
		t.Run("second descriptor held", func(t *testing.T) {
			client, server := sockettest.Pair(t)
			second, closeSecond := dupSocket(t, server)
			if err := p.Add(server, 2, Readable, Level); err != nil {
				t.Fatal(err)
			}
			sockettest.Close(t, server)
			sockettest.Send(t, client, "x")
			if p.Backend() == SocketNotifications {
				// Not known yet: what it reports is taken, whatever it is.
				t.Log(p.Wait(make([]Event, 4), quiet))
			} else {
				// The socket is open: the registration stays (on AFD as
				// seen under Wine).
				expect(t, p, 2, Readable)
			}
			if got := sockettest.Drain(t, second); got != "x" {
				t.Fatalf("read %q through the second descriptor", got)
			}
			expectQuiet(t, p, 2, quiet)
			if err := p.Delete(server); err != nil && !errors.Is(err, ErrNotRegistered) {
				t.Errorf("Delete after the close: %v", err)
			}
			closeSecond()
			expectQuiet(t, p, 2, quiet)
		})
	})
}

// TestAddDeleteChurnUnderTwoWaits: sockets that are ready are added and
// deleted again and again, under fresh keys, while two goroutines Wait: no
// Wait that starts after a Delete returns reports its key.
func TestAddDeleteChurnUnderTwoWaits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const sockets, rounds = 4, 500
		servers := make([]Socket, sockets)
		for k := range servers {
			var client Socket
			client, servers[k] = sockettest.Pair(t)
			sockettest.Send(t, client, "x")
		}
		// deleted[key] is the clock's tick when the key's Delete returned.
		var clock atomic.Int64
		deleted := make([]atomic.Int64, 1+sockets*rounds)
		var stop atomic.Bool
		var wg sync.WaitGroup
		var mu sync.Mutex
		var late []string
		for range 2 {
			wg.Go(func() {
				events := make([]Event, 8)
				for !stop.Load() {
					start := clock.Load()
					n, err := p.Wait(events, 10*time.Millisecond)
					if err != nil {
						t.Error(err)
						return
					}
					for _, e := range events[:n] {
						if d := deleted[e.Key].Load(); d != 0 && start >= d {
							mu.Lock()
							late = append(late, e.Events.String())
							mu.Unlock()
						}
					}
				}
			})
		}
		key := uint64(0)
		keys := make([]uint64, sockets)
		for range rounds {
			for k, s := range servers {
				key++
				keys[k] = key
				if err := p.Add(s, key, Readable, Level); err != nil {
					t.Fatal(err)
				}
			}
			for k, s := range servers {
				if err := p.Delete(s); err != nil {
					t.Fatal(err)
				}
				deleted[keys[k]].Store(clock.Add(1))
			}
		}
		stop.Store(true)
		wg.Wait()
		if len(late) > 0 {
			t.Errorf("%d events of keys deleted before their Wait started: %v", len(late), late)
		}
	})
}

// TestGCDuringInfiniteWait: garbage collections while a Wait with no
// timeout is blocked do not make it return; a Wake does.
func TestGCDuringInfiniteWait(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		c := startWait(t, p, 4, -1)
		for deadline := time.Now().Add(quiet); time.Now().Before(deadline); {
			runtime.GC()
			select {
			case r := <-c:
				t.Fatalf("a Wait with no timeout returned during collections: %v, %v", r.events, r.err)
			default:
			}
		}
		if err := p.Wake(); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-c:
			if r.err != nil || len(r.events) != 0 {
				t.Errorf("after the Wake: %v, %v", r.events, r.err)
			}
		case <-time.After(eventually):
			t.Fatal("the Wake did not release the Wait")
		}
	})
}

// TestWakeKReleasesK: k Wakes release k of the Waits blocked, no more; and
// Wakes with no Wait blocked release as many of the next Waits, at once.
func TestWakeKReleasesK(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const waits, wakes = 5, 3
		returned := make(chan waited, waits)
		for range waits {
			c := startWait(t, p, 4, -1)
			go func() { returned <- <-c }()
		}
		woken := func(k int) {
			t.Helper()
			for range k {
				select {
				case r := <-returned:
					if r.err != nil || len(r.events) != 0 {
						t.Fatalf("a Wake gave %v, %v", r.events, r.err)
					}
				case <-time.After(eventually):
					t.Fatal("a Wake released no Wait")
				}
			}
			select {
			case r := <-returned:
				t.Fatalf("a Wait returned with no Wake for it: %v, %v", r.events, r.err)
			case <-time.After(quiet):
			}
		}
		wake := func(k int) {
			t.Helper()
			for range k {
				if err := p.Wake(); err != nil {
					t.Fatal(err)
				}
			}
		}
		wake(wakes)
		woken(wakes)
		wake(waits - wakes)
		woken(waits - wakes)

		wake(2) // no Wait blocked: for the next two
		for range 2 {
			c := startWait(t, p, 4, -1)
			go func() { returned <- <-c }()
		}
		woken(2)
		go func() { returned <- <-startWait(t, p, 4, -1) }()
		woken(0)
		wake(1)
		woken(1)
	})
}

// TestCloseReleasesBlockedWaits: Close makes every Wait blocked return
// ErrClosed, and every method returns ErrClosed after.
func TestCloseReleasesBlockedWaits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		var waits [3]<-chan waited
		for k := range waits {
			waits[k] = startWait(t, p, 4, -1)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		for _, c := range waits {
			select {
			case r := <-c:
				if !errors.Is(r.err, ErrClosed) {
					t.Errorf("a Wait blocked at Close: %v, %v", r.events, r.err)
				}
			case <-time.After(eventually):
				t.Fatal("Close did not release a blocked Wait")
			}
		}
		for name, err := range map[string]error{
			"Add":    p.Add(server, 2, Readable, Level),
			"Modify": p.Modify(server, 2, Readable, Level),
			"Delete": p.Delete(server),
			"Wait":   func() error { _, err := p.Wait(make([]Event, 1), 0); return err }(),
			"Wake":   p.Wake(),
			"Close":  p.Close(),
		} {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", name, err)
			}
		}
	})
}

// TestTimeouts: 0 polls and returns at once; a short one returns 0 and no
// error; a negative one waits until a Wake.
func TestTimeouts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		events := make([]Event, 4)
		for _, timeout := range []time.Duration{0, time.Nanosecond, time.Millisecond + time.Nanosecond} {
			if n, err := p.Wait(events, timeout); n != 0 || err != nil {
				t.Errorf("Wait(%v) on an idle poller: %v, %v", timeout, events[:n], err)
			}
		}
		c := startWait(t, p, 4, -time.Nanosecond)
		select {
		case r := <-c:
			t.Fatalf("a Wait with a negative timeout returned: %v, %v", r.events, r.err)
		case <-time.After(quiet):
		}
		if err := p.Wake(); err != nil {
			t.Fatal(err)
		}
		if r := <-c; r.err != nil || len(r.events) != 0 {
			t.Errorf("after the Wake: %v, %v", r.events, r.err)
		}
	})
}

// TestSteadyStateAllocs: Wait, Add, Modify and Delete allocate nothing
// once the poller has the room it needs; nor does the loop of a one-shot
// registration, a Wait that reports it and the Modify that re-arms it.
func TestSteadyStateAllocs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		events := make([]Event, 8)
		oneShotPeer, oneShot := sockettest.Pair(t)
		if err := p.Add(oneShot, 3, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, oneShotPeer, "x") // level: every re-arm reports it
		var err error
		if a := testing.AllocsPerRun(50, func() {
			if n, e := p.Wait(events, eventually); e != nil || n != 1 {
				err = fmt.Errorf("Wait: %v, %v", events[:n], e)
			}
			if e := p.Modify(oneShot, 3, Readable, OneShotLevel); e != nil {
				err = e
			}
		}); a != 0 {
			t.Errorf("%v allocations a Wait and a Modify that re-arms a one-shot", a)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Delete(oneShot); err != nil {
			t.Fatal(err)
		}
		client, server := sockettest.Pair(t)
		_, other := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 1, Readable)
		for _, c := range []struct {
			name string
			call func() error
		}{
			{"Wait", func() error { _, err := p.Wait(events, eventually); return err }},
			{"Add and Delete", func() error {
				if err := p.Add(other, 2, Readable, Level); err != nil {
					return err
				}
				return p.Delete(other)
			}},
			{"Modify", func() error {
				if err := p.Modify(server, 1, Readable|Writable, Edge); err != nil {
					return err
				}
				return p.Modify(server, 1, Readable, Level)
			}},
			{"Modify of the key", func() error { return p.Modify(server, 1, Readable, Level) }},
		} {
			var err error
			if a := testing.AllocsPerRun(100, func() {
				if e := c.call(); e != nil {
					err = e
				}
			}); a != 0 {
				t.Errorf("%s: %v allocations a call", c.name, a)
			}
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	})
}

// TestOnceInOneWait: many Level sockets that stay ready, more than one
// batch of the OS holds, and four goroutines in Wait at once with room for
// them all: no Wait reports a registration twice. (A Wait that took a
// registration in its first batch and again in a later one reported it
// twice when another Wait reported it in between.)
func TestOnceInOneWait(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const sockets = 150
		for k := range sockets {
			client, server := sockettest.Pair(t)
			sockettest.Send(t, client, "x")
			if err := p.Add(server, uint64(k), Readable, Level); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var twice atomic.Int64
		stop := time.Now().Add(quiet)
		for range 4 {
			wg.Go(func() {
				events := make([]Event, 2*sockets)
				for time.Now().Before(stop) {
					n, err := p.Wait(events, 10*time.Millisecond)
					if err != nil {
						t.Error(err)
						return
					}
					seen := make(map[uint64]bool, n)
					for _, e := range events[:n] {
						if seen[e.Key] {
							twice.Add(1)
						}
						seen[e.Key] = true
					}
				}
			})
		}
		wg.Wait()
		if n := twice.Load(); n > 0 {
			t.Errorf("%d registrations reported twice in one Wait", n)
		}
	})
}

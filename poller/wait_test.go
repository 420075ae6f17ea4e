// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
)

func TestWakeAndClose(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		woke := make(chan error)
		go func() {
			_, err := p.Wait(make([]Event, 4), -1)
			woke <- err
		}()
		time.Sleep(20 * time.Millisecond)
		if err := p.Wake(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-woke:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(eventually):
			t.Fatal("Wake did not interrupt Wait")
		}

		const waiters = 4
		errs := make(chan error, waiters)
		for range waiters {
			go func() {
				_, err := p.Wait(make([]Event, 1), -1)
				errs <- err
			}()
		}
		time.Sleep(20 * time.Millisecond)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		for range waiters {
			select {
			case err := <-errs:
				if !errors.Is(err, ErrClosed) {
					t.Errorf("Wait after Close: %v", err)
				}
			case <-time.After(eventually):
				t.Fatal("Close did not wake every Wait")
			}
		}
		_, server := sockettest.Pair(t)
		for name, err := range map[string]error{
			"Add":    p.Add(server, 1, Readable, Level),
			"Wait":   func() error { _, err := p.Wait(make([]Event, 1), 0); return err }(),
			"Wake":   p.Wake(),
			"Close":  p.Close(),
			"Delete": p.Delete(server),
		} {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", name, err)
			}
		}
	})
}

// TestOneShotGoesToOneWaiter: with several goroutines in Wait, each
// one-shot readiness is delivered exactly once: all 40 come (waiting up to
// eventually), and none comes again in the quiet window after.
func TestOneShotGoesToOneWaiter(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const sockets, waiters = 40, 4
		for i := range sockets {
			client, server := sockettest.Pair(t)
			if err := p.Add(server, uint64(i), Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
			sockettest.Send(t, client, "x")
		}
		var mu sync.Mutex
		seen := make(map[uint64]int)
		var wg sync.WaitGroup
		for range waiters {
			wg.Go(func() {
				events := make([]Event, 4)
				for {
					n, err := p.Wait(events, -1)
					if err != nil {
						return // closed
					}
					mu.Lock()
					for _, e := range events[:n] {
						seen[e.Key]++
					}
					mu.Unlock()
				}
			})
		}
		reported := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(seen)
		}
		for deadline := time.Now().Add(eventually); reported() < sockets && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(quiet) // a second delivery would come now
		p.Close()
		wg.Wait()
		if len(seen) != sockets {
			t.Errorf("%d of %d sockets reported", len(seen), sockets)
		}
		for key, n := range seen {
			if n != 1 {
				t.Errorf("key %d reported %d times", key, n)
			}
		}
	})
}

func TestWaitAllocs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x") // level: every Wait reports it
		expect(t, p, 1, Readable)
		events := make([]Event, 8)
		allocs := testing.AllocsPerRun(50, func() {
			if n, err := p.Wait(events, 5*time.Second); n == 0 || err != nil {
				t.Fatalf("Wait: %d, %v", n, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%.1f allocations a Wait that returns events", allocs)
		}
	})
}

// TestCallAllocs: re-arming a one-shot registration does not allocate, nor
// do adding and deleting a socket while the slot array has room.
func TestCallAllocs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x") // level: every re-arm reports it
		events := make([]Event, 8)
		rearm := testing.AllocsPerRun(50, func() {
			if n, err := p.Wait(events, 5*time.Second); n != 1 || err != nil {
				t.Fatalf("Wait: %d, %v", n, err)
			}
			if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
		})
		if rearm != 0 {
			t.Errorf("%.1f allocations a Wait and a Modify that re-arms", rearm)
		}
		other, _ := sockettest.Pair(t)
		addDelete := testing.AllocsPerRun(50, func() {
			if err := p.Add(other, 2, Readable, Level); err != nil {
				t.Fatal(err)
			}
			if err := p.Delete(other); err != nil {
				t.Fatal(err)
			}
			// Takes server's event, and the packet that frees other's
			// slot if it has come (AFD).
			if _, err := p.Wait(events, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			p.Modify(server, 1, Readable, OneShotLevel)
		})
		if addDelete != 0 {
			t.Errorf("%.1f allocations an Add, a Delete and a Wait", addDelete)
		}
	})
}

// TestWaitNumberComesRound: 2^32 Waits after a Wait reported socket a
// first, a Wait that takes b's packet and then a's reports both, each
// under its own key. (A Wait numbered in 32 bits had the number of that
// first Wait, and added a's event to b's: b's event was lost.)
func TestWaitNumberComesRound(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		clientA, a := sockettest.Pair(t)
		clientB, b := sockettest.Pair(t)
		for key, s := range []windows.Handle{a, b} {
			if err := p.Add(s, uint64(key), Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
		}
		sockettest.Send(t, clientA, "a")
		expect(t, p, 0, Readable) // in events[0]; a stays readable
		p.mu.Lock()
		p.waits += 1<<32 - 1 // as after 2^32 - 1 more Waits
		p.mu.Unlock()
		// b's packet, then a's, queued before the next Wait takes them.
		sockettest.Send(t, clientB, "b")
		time.Sleep(quiet)
		if err := p.Modify(a, 0, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		time.Sleep(quiet)
		events := make([]Event, 8)
		var got [2]Interest
		for deadline := time.Now().Add(eventually); (got[0] == 0 || got[1] == 0) && time.Now().Before(deadline); {
			n, err := p.Wait(events, time.Until(deadline))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range events[:n] {
				t.Logf("key %d: %v", e.Key, e.Events)
				if e.Key > 1 {
					t.Fatalf("an event of key %d, not registered", e.Key)
				}
				got[e.Key] |= e.Events
			}
		}
		for key, events := range got {
			if events&Readable == 0 {
				t.Errorf("key %d: %v, want Readable within %v", key, events, eventually)
			}
		}
	})
}

// TestOwnKeys: no slot's ID matches a key of the packets the poller posts
// itself, whose low bits are above the highest slot's on every build.
func TestOwnKeys(t *testing.T) {
	for _, key := range []uintptr{wakeKey, closeKey, afdKey} {
		if low := key & indexMask; low <= maxSlots {
			t.Errorf("key %#x: slot %d's ID has its low bits", key, low-1)
		}
	}
}

// TestSlotSize: a registration's slot stays 48 bytes on 64-bit builds
// (doc/benchmarks.md's memory figures count it).
func TestSlotSize(t *testing.T) {
	if size, want := unsafe.Sizeof(slot{}), uintptr(48); unsafe.Sizeof(uintptr(0)) == 8 && size != want {
		t.Errorf("a slot is %d bytes, want %d", size, want)
	}
}

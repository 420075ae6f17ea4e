// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// TestWakeReleasesOneWaitEach: 8 goroutines block in Wait with room for 64
// events, and 8 Wakes make all 8 return (0, nil). Then 8 goroutines Wait in
// a loop while 2,000 Wakes are posted: they return (0, nil) exactly 2,000
// times, no fewer (waiting up to eventually) and no more (in the quiet
// window after).
func TestWakeReleasesOneWaitEach(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const waiters = 8
		returned := make(chan error, waiters)
		for range waiters {
			go func() {
				n, err := p.Wait(make([]Event, 64), -1)
				if err == nil && n != 0 {
					err = errors.New("events on an idle poller")
				}
				returned <- err
			}()
		}
		time.Sleep(100 * time.Millisecond) // let them block
		for range waiters {
			if err := p.Wake(); err != nil {
				t.Fatal(err)
			}
		}
		timeout := time.After(eventually)
		for i := range waiters {
			select {
			case err := <-returned:
				if err != nil {
					t.Fatal(err)
				}
			case <-timeout:
				t.Fatalf("%d Wakes released %d of %d blocked Waits", waiters, i, waiters)
			}
		}

		const wakes = 2000
		var count atomic.Int64
		var wg sync.WaitGroup
		for range waiters {
			wg.Go(func() {
				events := make([]Event, 64)
				for {
					n, err := p.Wait(events, -1)
					if err != nil {
						return // closed
					}
					if n == 0 {
						count.Add(1)
					}
				}
			})
		}
		for range wakes {
			if err := p.Wake(); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(eventually)
		for count.Load() < wakes && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(quiet)
		if got := count.Load(); got != wakes {
			t.Errorf("%d Wakes made Wait return %d times", wakes, got)
		}
		p.Close()
		wg.Wait()
	})
}

// TestClosedPollerRefusesAll: after Close, every method returns ErrClosed,
// whatever its arguments: bad handles, interests and modes, a slice with no
// room, a registered socket.
func TestClosedPollerRefusesAll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		for name, err := range map[string]error{
			"Add invalid handle":    p.Add(windows.InvalidHandle, 1, Readable, Level),
			"Add zero handle":       p.Add(0, 1, Readable, Level),
			"Add unknown interest":  p.Add(server, 1, 0x40, Level),
			"Add unknown mode":      p.Add(server, 1, Readable, Mode(9)),
			"Add registered":        p.Add(server, 1, Readable, Level),
			"Modify invalid handle": p.Modify(windows.InvalidHandle, 1, Readable, Level),
			"Modify unknown mode":   p.Modify(server, 1, Readable, Mode(9)),
			"Modify":                p.Modify(server, 2, Writable, Edge),
			"Delete invalid handle": p.Delete(windows.InvalidHandle),
			"Delete":                p.Delete(server),
			"Wait no room":          func() error { _, err := p.Wait(nil, 0); return err }(),
			"Wait":                  func() error { _, err := p.Wait(make([]Event, 1), -1); return err }(),
			"Wake":                  p.Wake(),
			"Close":                 p.Close(),
		} {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", name, err)
			}
		}
	})
}

// TestErrorInterest: Error alone is an interest Add accepts. Data that
// arrives is not reported; a reset by the peer is, as Error and nothing
// else.
func TestErrorInterest(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 70, Error, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expectQuiet(t, p, 70, quiet)
		linger := windows.Linger{Onoff: 1, Linger: 0}
		windows.SetsockoptLinger(client, windows.SOL_SOCKET, windows.SO_LINGER, &linger)
		sockettest.Close(t, client)
		if ev := expect(t, p, 70, Error); ev != Error {
			t.Errorf("a reset with interest Error gave %v, want Error alone", ev)
		}
	})
}

// TestWaitFillsSlice: with 100 one-shot sockets ready and their packets
// queued, a Wait with room for 128 events returns all 100, more than the 64
// packets one dequeue takes. (It cannot be known when the OS has queued
// them all: each round re-arms the 100 and leaves the OS twice as long as
// the last before it Waits, until one Wait returns all or eventually
// passes.) With one socket ready, a Wait with room for 128 and no timeout
// returns it: it does not block again for the rest.
func TestWaitFillsSlice(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const sockets = 100
		servers := make([]windows.Handle, sockets)
		for i := range sockets {
			client, server := sockettest.Pair(t)
			servers[i] = server
			if err := p.Add(server, uint64(i), Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
			sockettest.Send(t, client, "x")
		}
		events := make([]Event, 128)
		most, rounds := 0, 0
		for pause, deadline := 10*time.Millisecond, time.Now().Add(eventually); most < sockets && time.Now().Before(deadline); pause *= 2 {
			rounds++
			time.Sleep(pause)
			n, err := p.Wait(events, eventually)
			if err != nil {
				t.Fatal(err)
			}
			most = max(most, n)
			for i := range sockets {
				if err := p.Modify(servers[i], uint64(i), Readable, OneShotLevel); err != nil {
					t.Fatal(err)
				}
			}
		}
		if most != sockets {
			t.Errorf("with %d sockets ready, %d Waits with room for %d returned at most %d", sockets, rounds, len(events), most)
		}
		t.Logf("a Wait returned all %d in round %d", sockets, rounds)
		for _, s := range servers[1:] {
			if err := p.Delete(s); err != nil {
				t.Fatal(err)
			}
		}
		expect(t, p, 0, Readable) // and the Deletes' packets are gone
		if err := p.Modify(servers[0], 0, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		done := startWait(t, p, len(events), -1)
		select {
		case r := <-done:
			if len(r.events) != 1 || r.err != nil {
				t.Errorf("one socket ready: Wait gave %v, %v", r.events, r.err)
			}
		case <-time.After(eventually):
			t.Errorf("one socket ready: Wait has not returned after %v: it blocked again", eventually)
			p.Close() // releases it
			<-done
		}
	})
}

// TestAddRegisteredRefused: adding a registered socket again returns an
// error matching ErrAlreadyRegistered and changes nothing: events keep
// coming under the first key and interest, in one slot. Modify is the way
// to change a registration.
func TestAddRegisteredRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 60, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if err := p.Add(server, 61, Writable, OneShotLevel); !errors.Is(err, ErrAlreadyRegistered) {
			t.Fatalf("second Add: %v, want ErrAlreadyRegistered", err)
		}
		sockettest.Send(t, client, "x")
		if ev := expect(t, p, 60, Readable); ev != Readable {
			t.Errorf("after a refused Add: %v, want Readable under the first key", ev)
		}
		if n := p.slotsInUse(); n != 1 {
			t.Errorf("%d slots in use for one socket", n)
		}
		if err := p.Modify(server, 61, Writable, Level); err != nil {
			t.Fatal(err)
		}
		if ev := expect(t, p, 61, Writable); ev&Readable != 0 {
			t.Errorf("Readable after Modify to Writable: %v", ev)
		}
	})
}

// TestLevelAndBlockedWait checks the package doc's rule for Level with
// several goroutines: two goroutines block in Wait and data arrives; one of
// them returns the event and does not Wait again. On AFD the other stays
// blocked (for 200 ms here) while the data stays unread; on both backends,
// once a new Wait starts the socket is reported again, to the
// blocked Wait or the new one.
func TestLevelAndBlockedWait(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 80, Readable, Level); err != nil {
			t.Fatal(err)
		}
		// got checks a Wait's result: the event of key 80.
		got := func(what string, r waited) {
			t.Helper()
			if len(r.events) != 1 || r.events[0].Key != 80 || r.err != nil {
				t.Fatalf("%s: %v, %v; want the event of key 80", what, r.events, r.err)
			}
		}
		first, other := startWait(t, p, 4, eventually), startWait(t, p, 4, eventually)
		sockettest.Send(t, client, "x")
		select {
		case r := <-first:
			got("first Wait", r)
		case r := <-other:
			got("first Wait", r)
			other = first
		}
		if p.Backend() == AFD {
			select {
			case r := <-other:
				t.Fatalf("AFD: the blocked Wait returned %v, %v before a new Wait started", r.events, r.err)
			case <-time.After(quiet):
			}
		}
		third := startWait(t, p, 4, eventually)
		select {
		case r := <-other:
			got("after a new Wait started", r)
			other = third
		case r := <-third:
			got("after a new Wait started", r)
		}
		p.Wake() // release the Wait that is left
		<-other
	})
}

// closedHandles wraps a Poller's backend and answers for every handle as
// Windows does for a closed one, which is no socket: WSAENOTSOCK (Wine does
// not check the handle).
type closedHandles struct{ backend }

func (closedHandles) baseHandle(Socket) (windows.Handle, error) { return 0, windows.WSAENOTSOCK }

// TestClosedOneShotWithoutDelete checks what Delete's doc says of a socket
// closed without Delete after its one-shot registration fired: the handle
// stays registered (Add of it is refused with ErrAlreadyRegistered, one
// slot in use) on both backends, and Delete returns nil and frees the slot.
// Add looks the handle up before it asks the OS anything of it, so it says
// ErrAlreadyRegistered whatever the OS says of a closed handle
// (closedHandles).
func TestClosedOneShotWithoutDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 90, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 90, Readable)
		sockettest.Close(t, server)
		expectQuiet(t, p, 90, quiet)
		impl := p.impl
		p.impl = closedHandles{impl}
		err := p.Add(server, 91, Readable, Level)
		p.impl = impl
		if !errors.Is(err, ErrAlreadyRegistered) {
			t.Errorf("Add of the closed one-shot's handle before Delete: %v, want ErrAlreadyRegistered", err)
		}
		if n := p.slotsInUse(); n != 1 {
			t.Errorf("%d slots in use, want the closed one-shot's", n)
		}
		if err := p.Delete(server); err != nil {
			t.Fatalf("Delete after closesocket: %v", err)
		}
		if n := p.slotsInUse(); n != 0 {
			t.Errorf("%d slots in use after Delete", n)
		}
	})
}

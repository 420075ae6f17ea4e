// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"testing"
	"time"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// The tests of this file and its kin (no OS in their names) are the
// poller's promises, shared by every backend: real epoll is their oracle
// on Linux. Where the backends differ, as the package doc lists, a test
// says which backend does what.

// TestEdgePartialDrainAndArrival: an Edge registration read in part is not
// reported again until new data arrives (epoll), which is a new edge even
// with data unread; AFD, which emulates Edge, reports a partial drain
// again; ProcessSocketNotifications reports neither.
func TestEdgePartialDrainAndArrival(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Edge); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "abcdef")
		expect(t, p, 1, Readable)
		if got := recvSome(t, server, 2); got != "ab" {
			t.Fatalf("read %q", got)
		}
		if p.Backend() == AFD {
			expect(t, p, 1, Readable) // polled again: data is there
		} else {
			expectQuiet(t, p, 1, quiet)
		}
		sockettest.Send(t, client, "gh")
		if p.Backend() == SocketNotifications {
			expectQuiet(t, p, 1, quiet)
		} else {
			expect(t, p, 1, Readable)
		}
		if got := sockettest.Drain(t, server); got != "cdefgh" {
			t.Fatalf("read %q", got)
		}
		expectQuiet(t, p, 1, quiet)
	})
}

// TestModifyReady: Modify of a registration that is ready. A new key alone
// (no system call) makes its next event come under the new key, never the
// old; a new interest reports what the socket has of it, and nothing of
// the interest it replaced; a change to Edge reports the socket ready
// already on epoll and AFD, not on ProcessSocketNotifications.
func TestModifyReady(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 1, Readable)
		if err := p.Modify(server, 2, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if ev := next(t, p, "a new key"); ev.Key != 2 || ev.Events != Readable {
			t.Fatalf("after a new key: %+v, want key 2 Readable", ev)
		}
		if err := p.Modify(server, 3, Writable, Level); err != nil {
			t.Fatal(err)
		}
		if ev := next(t, p, "a new interest"); ev.Key != 3 || ev.Events != Writable {
			t.Fatalf("after a new interest: %+v, want key 3 Writable alone", ev)
		}
		if err := p.Modify(server, 4, Readable|Writable, Edge); err != nil {
			t.Fatal(err)
		}
		if p.Backend() == SocketNotifications {
			// An edge registration of a socket that is ready already
			// waits for the next change (as the reference model has it).
			expectQuiet(t, p, 4, quiet)
			return
		}
		if ev := next(t, p, "Edge of both"); ev.Key != 4 || ev.Events != Readable|Writable {
			t.Fatalf("after Edge of both: %+v, want key 4 Readable|Writable", ev)
		}
	})
}

// next returns the next event, which must come within eventually, after
// what; a Wait that returns more than one fails the test.
func next(t *testing.T, p *Poller, what string) Event {
	t.Helper()
	events := make([]Event, 4)
	n, err := p.Wait(events, eventually)
	if err != nil || n != 1 {
		t.Fatalf("after %s, Wait gave %v, %v; want one event", what, events[:n], err)
	}
	return events[0]
}

// TestOneShotResetWhileDisarmed: a one-shot that has fired stays quiet
// through the peer's reset, and armed again reports it, as Error.
func TestOneShotResetWhileDisarmed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 1, Readable)
		resetPeer(t, client)
		expectQuiet(t, p, 1, quiet) // disarmed
		if err := p.Modify(server, 2, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		ev := expect(t, p, 2, 0)
		if ev&Error == 0 {
			t.Errorf("a one-shot armed after a reset gave %v, want Error", ev)
		}
		expectQuiet(t, p, 2, quiet) // fired: disarmed again
	})
}

// TestLevelThreeWaitsOneArrival: one arrival for a Level registration with
// three Waits blocked. On epoll every one of them gets it (the kernel
// hands a level-triggered registration to each Wait that blocks while it
// is ready); on AFD one does, and the others stay blocked.
func TestLevelThreeWaitsOneArrival(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		var waits [3]<-chan waited
		for k := range waits {
			waits[k] = startWait(t, p, 4, -1)
		}
		sockettest.Send(t, client, "x")
		got, blocked := 0, 0
		for _, c := range waits {
			select {
			case r := <-c:
				if r.err != nil || len(r.events) != 1 || r.events[0] != (Event{Key: 1, Events: Readable}) {
					t.Errorf("a Wait gave %v, %v", r.events, r.err)
				}
				got++
			case <-time.After(quiet):
				blocked++
			}
		}
		switch want := map[Backend]int{Epoll: 3, AFD: 1}[p.Backend()]; {
		case got == 0:
			t.Fatal("no Wait got the arrival")
		case want != 0 && got != want:
			t.Errorf("%d Waits got the arrival, want %d on %v", got, want, p.Backend())
		}
		for range blocked {
			if err := p.Wake(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestUDPEdgeSecondDatagramUnread: two datagrams, one read. Edge on epoll
// reports nothing more until a third arrives, which it reports though the
// second is unread; AFD reports the unread one again.
func TestUDPEdgeSecondDatagramUnread(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		sender, receiver := udpPair(t)
		if err := p.Add(receiver, 1, Readable, Edge); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, sender, "one")
		sockettest.Send(t, sender, "two")
		expect(t, p, 1, Readable)
		if got := recvSome(t, receiver, 64); got != "one" {
			t.Fatalf("first datagram %q", got)
		}
		if p.Backend() == AFD {
			expect(t, p, 1, Readable)
		} else {
			expectQuiet(t, p, 1, quiet)
		}
		sockettest.Send(t, sender, "three")
		if p.Backend() == SocketNotifications {
			expectQuiet(t, p, 1, quiet)
		} else {
			expect(t, p, 1, Readable)
		}
		for _, want := range []string{"two", "three", ""} {
			if got := recvSome(t, receiver, 64); got != want {
				t.Fatalf("datagram %q, want %q", got, want)
			}
		}
	})
}

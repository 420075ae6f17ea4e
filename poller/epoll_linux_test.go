// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// What epoll alone does, or what only epoll can show.

// TestMutedRegistrationReportsLater: a socket registered before it is
// connected or listens is EPOLLHUP to epoll, which the interest Readable
// does not take: the registration is muted (no CPU while nothing
// changes), and it still reports the first connection that the socket,
// listening by then, queues; a Level one is level triggered again after.
func TestMutedRegistrationReportsLater(t *testing.T) {
	for _, mode := range []Mode{Level, Edge, OneShotLevel, OneShotEdge} {
		t.Run(mode.String(), func(t *testing.T) {
			p, err := New()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			l := tcpSocket(t)
			if err := p.Add(l, 1, Readable, mode); err != nil {
				t.Fatal(err)
			}
			noSpin(t, p, "a socket not connected")
			if err := unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
				t.Fatal(err)
			}
			if err := unix.Listen(l, 4); err != nil {
				t.Fatal(err)
			}
			noSpin(t, p, "a listening socket")
			dial(t, l)
			if ev := expect(t, p, 1, Readable); ev != Readable {
				t.Errorf("a connection queued: %v, want Readable", ev)
			}
			if mode == Level {
				expect(t, p, 1, Readable) // unaccepted: reported again
			} else {
				expectQuiet(t, p, 1, quiet)
			}
		})
	}
}

// dial connects a new socket to the listening socket l; it is closed when
// the test ends.
func dial(t *testing.T, l Socket) {
	t.Helper()
	addr, err := unix.Getsockname(l)
	if err != nil {
		t.Fatal(err)
	}
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(c) })
	if err := unix.Connect(c, addr); err != nil {
		t.Fatal(err)
	}
}

// TestAddReplacesClosedRegistration: a descriptor closed without Delete
// leaves epoll's set, and a new socket given its number is accepted by
// Add, in the stale registration's place: the old key is never reported.
func TestAddReplacesClosedRegistration(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client, server := sockettest.Pair(t)
	if err := p.Add(server, 1, Readable, Level); err != nil {
		t.Fatal(err)
	}
	sockettest.Send(t, client, "x")
	sockettest.Close(t, server)
	// A new socket under the closed number.
	s := server
	if err := unix.Dup3(tcpSocket(t), s, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(s) })
	if err := p.Add(s, 2, Writable, Level); err != nil {
		t.Fatalf("Add of a number closed without Delete: %v", err)
	}
	if ev := expect(t, p, 2, Writable); ev != Writable {
		t.Errorf("the new registration: %v, want Writable", ev)
	}
	expectQuiet(t, p, 1, quiet)
	if n := p.slotsInUse(); n != 1 {
		t.Errorf("%d slots taken, want 1", n)
	}
	if err := p.Delete(s); err != nil {
		t.Fatal(err)
	}
}

// TestOneEventPerRegistrationPerWait: with 100 Level registrations ready
// and room for 128 events, one Wait returns the 100, each once, though it
// takes them from the kernel in batches of 64 and the kernel gives a Level
// registration again in each.
func TestOneEventPerRegistrationPerWait(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const sockets = 100
	for k := range sockets {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, uint64(k), Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
	}
	events := make([]Event, 128)
	for round := range 3 {
		n, err := p.Wait(events, eventually)
		if err != nil {
			t.Fatal(err)
		}
		seen := make(map[uint64]int)
		for _, e := range events[:n] {
			seen[e.Key]++
			if e.Events != Readable || seen[e.Key] > 1 {
				t.Errorf("round %d: %v of key %d, reported %d times", round, e.Events, e.Key, seen[e.Key])
			}
		}
		if n != sockets {
			t.Errorf("round %d: %d events, want %d", round, n, sockets)
		}
	}
}

// TestMutedOneShotDisarmedWhenFired: a one-shot registration muted before
// it fired (a socket not connected yet is hung up for epoll) is disarmed
// in the kernel once it fires: later connections make no kernel event for
// it. (Muted, it was held edge triggered and not one-shot, and stayed so:
// every later edge woke an epoll_wait for a registration that was not
// armed.) One event of it may still come at once, as it is disarmed.
func TestMutedOneShotDisarmedWhenFired(t *testing.T) {
	for _, mode := range []Mode{OneShotLevel, OneShotEdge} {
		t.Run(mode.String(), func(t *testing.T) {
			p, err := New()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			l := tcpSocket(t)
			if err := p.Add(l, 1, Readable, mode); err != nil {
				t.Fatal(err)
			}
			noSpin(t, p, "not connected")
			if err := unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
				t.Fatal(err)
			}
			if err := unix.Listen(l, 64); err != nil {
				t.Fatal(err)
			}
			dial(t, l)
			expect(t, p, 1, Readable) // fired: disarmed
			raw := make([]unix.EpollEvent, 4)
			unix.EpollWait(p.epfd, raw, 0) // the one the disarm may bring
			kernel := 0
			for range 20 {
				dial(t, l)
				n, _ := unix.EpollWait(p.epfd, raw, 20)
				kernel += n
			}
			if kernel > 0 {
				t.Errorf("a fired one-shot: epoll_wait returned %d events of it for 20 connections", kernel)
			}
		})
	}
}

// TestNotConnectedNoHangUp: a socket not connected yet, which epoll
// reports as hung up (EPOLLHUP), is no HangUp: the peer has not closed
// anything. (It was reported as HangUp, at once, where AFD reports
// nothing.)
func TestNotConnectedNoHangUp(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := tcpSocket(t)
	if err := p.Add(s, 1, Readable|HangUp, Level); err != nil {
		t.Fatal(err)
	}
	expectQuiet(t, p, 1, quiet)
	noSpin(t, p, "a socket not connected yet")
}

// TestTimeoutWhileEventsGoNowhere: a registration whose descriptor was
// closed without Delete, while a second descriptor keeps the socket open,
// cannot be muted (epoll_ctl refuses the closed number); with nothing its
// interest takes (interest 0, a reset whose error was read), every
// epoll_wait brings it back, and the Wait has no event to return. A Wait
// with a timeout still returns once its time is over.
func TestTimeoutWhileEventsGoNowhere(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client, server := sockettest.Pair(t)
	second, closeSecond := dupSocket(t, server)
	defer closeSecond()
	if err := p.Add(server, 1, 0, Level); err != nil {
		t.Fatal(err)
	}
	sockettest.Close(t, server)
	resetPeer(t, client)
	for deadline := time.Now().Add(eventually); socketError(t, second) == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no reset within %v", eventually)
		}
	}
	done := make(chan waited, 1)
	go func() {
		events := make([]Event, 4)
		n, err := p.Wait(events, 50*time.Millisecond)
		done <- waited{events[:n], err}
	}()
	select {
	case r := <-done:
		if len(r.events) != 0 || r.err != nil {
			t.Errorf("Wait: %v, %v; want nothing", r.events, r.err)
		}
	case <-time.After(eventually):
		t.Fatalf("a Wait of 50 ms has not returned after %v", eventually)
	}
}

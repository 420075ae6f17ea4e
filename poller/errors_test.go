// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"runtime"
	"testing"
	"time"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// What Error and HangUp mean, on every backend: HangUp is the peer's end
// of sending (its FIN or reset), Error a reset or a failed connect.

// TestPeerSendsThenCloses: the peer sends, then closes its side, and the
// data is unread. Readable tells of the data at once; HangUp, asked with
// it, of the close at once on epoll (under Wine, on AFD, only once the
// data is read: see Interest); the socket stays writable.
func TestPeerSendsThenCloses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable|Writable|HangUp, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		shutdownWrite(t, client)
		ev := expect(t, p, 1, Readable|Writable)
		if p.Backend() == Epoll && ev != Readable|Writable|HangUp {
			t.Errorf("data then FIN, unread: %v, want Readable|Writable|HangUp", ev)
		}
		if got := sockettest.Drain(t, server); got != "x" {
			t.Fatalf("read %q", got)
		}
		if ev := expect(t, p, 1, Readable|Writable|HangUp); ev&Error != 0 {
			t.Errorf("a peer's close is no error: %v", ev)
		}
		sockettest.Send(t, server, "still writable") // half closed
	})
}

// TestResetAndFailedConnectNoSpin: a reset connection and a failed connect,
// registered with interest 0 (errors only), in every mode: the error comes
// as Error alone; once it is read (SO_ERROR), the socket is closed for
// good, which epoll reports as EPOLLHUP whatever the interest: a Wait
// then costs no CPU while nothing changes, and a one-shot armed again
// does not spin either.
func TestResetAndFailedConnectNoSpin(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		for _, mode := range []Mode{Level, Edge, OneShotLevel, OneShotEdge} {
			t.Run(mode.String(), func(t *testing.T) {
				client, server := sockettest.Pair(t)
				failed := tcpSocket(t)
				for k, s := range []Socket{server, failed} {
					if err := p.Add(s, uint64(k), 0, mode); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { p.Delete(s) })
				}
				noSpin(t, p, "a connection and a socket not connected yet")
				resetPeer(t, client)
				errorOnce(t, p, server, 0, mode, "a reset")
				connectRefused(t, failed)
				errorOnce(t, p, failed, 1, mode, "a failed connect")
				if p.Backend() == Epoll {
					noSpin(t, p, "with both errors read")
				}
			})
		}
	})
}

// errorOnce expects Error alone for key, the registration of s with
// interest 0, and reads the socket's error. On epoll that clears it: a
// Wait then costs no CPU, and if the registration is a one-shot, none once
// it is armed again either. (On AFD the error stays reported: Winsock
// keeps an aborted connection so, and leaves SO_ERROR 0 after a reset.)
func errorOnce(t *testing.T, p *Poller, s Socket, key uint64, mode Mode, what string) {
	t.Helper()
	if ev := expect(t, p, key, Error); ev != Error {
		t.Errorf("%s with interest 0: %v, want Error alone", what, ev)
	}
	if err := socketError(t, s); err == nil && p.Backend() == Epoll {
		t.Errorf("%s: no socket error", what)
	}
	if p.Backend() != Epoll {
		return
	}
	noSpin(t, p, what+", its error read")
	if mode.oneShot() {
		if err := p.Modify(s, key, 0, mode); err != nil {
			t.Fatal(err)
		}
		noSpin(t, p, what+", its error read, armed again")
	}
}

// noSpin fails the test if a Wait of quiet, on a thread of its own, takes
// more than a tenth of that in CPU, or returns an event. A Wait that loops
// on events it does not return takes all of it, or what a loaded machine
// leaves it (a third, seen here); one that blocks, well under a
// millisecond.
func noSpin(t *testing.T, p *Poller, what string) {
	t.Helper()
	type result struct {
		n   int
		err error
		cpu time.Duration
	}
	c := make(chan result)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		before := threadCPU(t)
		n, err := p.Wait(make([]Event, 4), quiet)
		c <- result{n, err, threadCPU(t) - before}
	}()
	r := <-c
	if r.err != nil || r.n != 0 {
		t.Errorf("%s: Wait gave %d events, %v", what, r.n, r.err)
	}
	if r.cpu > quiet/10 {
		t.Errorf("%s: a Wait of %v took %v of CPU", what, quiet, r.cpu)
	}
}

// TestResetReportsError: a reset is reported as Error whatever the
// interest, with nothing the interest lacks, and with HangUp if it has it;
// data is not reported to an interest without Readable.
func TestResetReportsError(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		for _, interest := range []Interest{0, Error, Readable, HangUp} {
			t.Run(interest.String(), func(t *testing.T) {
				client, server := sockettest.Pair(t)
				if err := p.Add(server, 1, interest, Level); err != nil {
					t.Fatal(err)
				}
				defer p.Delete(server)
				if interest&Readable == 0 {
					sockettest.Send(t, client, "x")
					expectQuiet(t, p, 1, quiet)
				}
				resetPeer(t, client)
				ev := expect(t, p, 1, Error)
				if ev&^(interest|Error) != 0 {
					t.Errorf("a reset with interest %v gave %v", interest, ev)
				}
				if interest&HangUp != 0 && ev&HangUp == 0 {
					t.Errorf("a reset with interest %v gave %v, want HangUp too", interest, ev)
				}
			})
		}
	})
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/sockettest"
	"golang.org/x/sys/windows"
)

// errInjected is the error of a call that a seam refused.
var errInjected = errors.New("poller test: injected failure")

// refuseArm wraps a Poller's backend and refuses its next arms before
// they reach the OS, as the OS refuses one: nothing applied. It is the
// seam for the error paths of Add and Modify, and lives only in tests.
type refuseArm struct {
	backend
	refuse int // arms still to refuse
	calls  int // arms asked for, refused or not
}

func (r *refuseArm) arm(i int32) error {
	r.calls++
	if r.refuse > 0 {
		r.refuse--
		return errInjected
	}
	return r.backend.arm(i)
}

// TestModifyRefused: a Modify that the OS refuses changes nothing, and a
// retry with the same arguments makes the call again. (It once kept the
// new interest and the armed flag: the retry returned nil with no system
// call while the OS held the old registration.)
func TestModifyRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		seam := &refuseArm{backend: p.impl, refuse: 1}
		p.impl = seam
		if err := p.Modify(server, 2, Writable, Level); !errors.Is(err, errInjected) {
			t.Fatalf("Modify with its arm refused returned %v", err)
		}
		sockettest.Send(t, client, "x")
		if ev := expect(t, p, 1, Readable); ev&Writable != 0 {
			t.Errorf("the refused Modify's Writable reported: %v", ev)
		}
		if err := p.Modify(server, 2, Writable, Level); err != nil {
			t.Fatal(err)
		}
		if seam.calls != 2 {
			t.Fatalf("the retry of the refused Modify made %d calls to the OS, want 1", seam.calls-1)
		}
		if ev := expect(t, p, 2, Writable); ev&Readable != 0 {
			t.Errorf("Readable reported after Modify to Writable: %v", ev)
		}
	})
}

// TestModifyRefusedOneShot: a fired one-shot registration whose re-arming
// Modify is refused stays disarmed, and the retry arms it.
func TestModifyRefusedOneShot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 1, Readable)
		p.impl = &refuseArm{backend: p.impl, refuse: 1}
		if err := p.Modify(server, 1, Readable, OneShotLevel); !errors.Is(err, errInjected) {
			t.Fatalf("Modify with its arm refused returned %v", err)
		}
		expectQuiet(t, p, 1, quiet)
		if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 1, Readable)
	})
}

// notAPort swaps p's completion port for an event handle until the test
// ends: every call on the port then fails as on a handle that is not one.
func notAPort(t *testing.T, p *Poller) (restore func()) {
	t.Helper()
	event, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	port := p.port
	p.port = event
	return func() {
		p.port = port
		windows.CloseHandle(event)
	}
}

// TestWaitDequeueFails: a Wait whose dequeue fails returns the OS's error,
// and no event is lost by it: once the port answers again, the ready
// socket is reported.
func TestWaitDequeueFails(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		restore := notAPort(t, p)
		n, err := p.Wait(make([]Event, 4), eventually)
		restore()
		if n != 0 || !errors.Is(err, windows.ERROR_INVALID_HANDLE) {
			t.Fatalf("Wait on a failing port: (%d, %v), want (0, ERROR_INVALID_HANDLE)", n, err)
		}
		expect(t, p, 1, Readable)
	})
}

// TestModifyWhileArmed: changing the interest of a registration that the
// OS holds armed (on AFD, a poll out: cancelled, and submitted again with
// the new interest when the cancel completes) reports the new interest
// and never the old one.
func TestModifyWhileArmed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if err := p.Modify(server, 2, Writable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		for range 3 {
			if ev := expect(t, p, 2, Writable); ev&Readable != 0 {
				t.Fatalf("Readable reported after Modify to Writable: %v", ev)
			}
		}
	})
}

// TestAFDResubmitRefused: when the poll that a Modify submits again is
// refused (here: the base handle is not a socket), the registration is
// freed as that of a closed socket is, silently; the others keep working.
func TestAFDResubmitRefused(t *testing.T) {
	p, err := New(WithBackend(AFD))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	event, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(event)
	client, server := sockettest.Pair(t)
	other, otherServer := sockettest.Pair(t)
	for key, s := range map[uint64]windows.Handle{1: server, 2: otherServer} {
		if err := p.Add(s, key, Readable, Level); err != nil {
			t.Fatal(err)
		}
	}
	p.at(p.mustSlot(t, server)).base = event // the next submit is refused
	if err := p.Modify(server, 1, Writable, Level); err != nil {
		t.Fatal(err) // the cancel is accepted; the submit comes in a Wait
	}
	sockettest.Send(t, client, "x")
	sockettest.Send(t, other, "x")
	expect(t, p, 2, Readable)
	for deadline := time.Now().Add(eventually); p.slotsInUse() != 1 && time.Now().Before(deadline); {
		expectQuiet(t, p, 1, quiet)
	}
	if n := p.slotsInUse(); n != 1 {
		t.Fatalf("%d slots in use after the refused submit, want 1", n)
	}
	if err := p.Delete(server); !errors.Is(err, ErrNotRegistered) {
		t.Errorf("Delete of the freed registration: %v, want ErrNotRegistered", err)
	}
	expect(t, p, 2, Readable)
}

// TestAFDCloseDequeueFails: Close of an AFD poller whose port fails
// returns at once (no 10 s of retries) with the port's error, and keeps the
// memory of the polls it could not take back for the life of the process.
func TestAFDCloseDequeueFails(t *testing.T) {
	p, err := New(WithBackend(AFD))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, uint64(i), Readable, Level); err != nil {
			t.Fatal(err)
		}
	}
	stranded.Lock()
	before := len(stranded.polls)
	stranded.Unlock()
	port := p.port
	defer windows.CloseHandle(port)
	event, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.port = event // Close closes it
	if err := p.Close(); !errors.Is(err, windows.ERROR_INVALID_HANDLE) {
		t.Errorf("Close with a failing port: %v, want ERROR_INVALID_HANDLE", err)
	}
	stranded.Lock()
	defer stranded.Unlock()
	if len(stranded.polls) != before+1 || stranded.polls[before] != &p.impl.(*afdBackend).polls {
		t.Errorf("the polls of a poller closed with 3 polls out are not kept: %d kept, %d before", len(stranded.polls), before)
	}
}

// TestCloseCallsOnce: Close cancels each AFD poll once, those that a
// Delete or a Modify cancelled already not again, and removes every
// registration on ProcessSocketNotifications in one call. (It once
// cancelled each poll twice, and made a REMOVE call a socket.)
func TestCloseCallsOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		var servers [3]windows.Handle
		for i := range servers {
			_, servers[i] = sockettest.Pair(t)
			if err := p.Add(servers[i], uint64(i), Readable, Level); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Delete(servers[0]); err != nil {
			t.Fatal(err)
		}
		if err := p.Modify(servers[1], 1, Writable, Level); err != nil {
			t.Fatal(err)
		}
		removes := 0
		if b, ok := p.impl.(*psn); ok {
			b.refuse = func(op sockstate.Op) error {
				if op == sockstate.SOCK_NOTIFY_OP_REMOVE {
					removes++
				}
				return nil
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		switch b := p.impl.(type) {
		case *afdBackend:
			if b.cancels != len(servers) {
				t.Errorf("%d cancels for %d polls", b.cancels, len(servers))
			}
		case *psn:
			if removes != 1 {
				t.Errorf("Close made %d REMOVE calls, want 1", removes)
			}
		}
	})
}

// TestPSNCloseAfterSocketClosed: when the batched REMOVE of Close is
// refused as a whole because one of its sockets is closed (WSAENOTSOCK for
// the call, the switch remove_closed=call), nothing was applied: Close
// removes them again one at a time, and returns nil. (It returned the
// call's error, and left the other registrations standing.)
func TestPSNCloseAfterSocketClosed(t *testing.T) {
	p, b := psnPoller(t)
	for i := range 3 {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, uint64(i), Readable, Level); err != nil {
			t.Fatal(err)
		}
	}
	var removes []int
	b.refuse = func(op sockstate.Op) error {
		if op != sockstate.SOCK_NOTIFY_OP_REMOVE {
			return nil
		}
		removes = append(removes, len(b.regs))
		if len(removes) == 1 {
			return windows.WSAENOTSOCK // the batch, refused as a whole
		}
		return nil
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close with its batched REMOVE refused for a closed socket: %v", err)
	}
	if len(removes) != 4 {
		t.Errorf("Close made %d REMOVE calls, want the batch and then one a socket (4)", len(removes))
	}
}

// psnPoller returns a new poller on ProcessSocketNotifications, or skips
// where there is none.
func psnPoller(t *testing.T) (*Poller, *psn) {
	t.Helper()
	if err := sockstate.LoadProcessSocketNotifications(); err != nil {
		t.Skip(err)
	}
	p, err := New(WithBackend(SocketNotifications))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, p.impl.(*psn)
}

// TestPSNOneShotRearmsItself: a one-shot notification with nothing the
// caller asked for (a packet posted here with OUT for a Readable
// registration, which Windows is not known to send) is not reported, and
// the poller enables the registration again itself; if that is refused,
// the registration stays disarmed until Modify.
func TestPSNOneShotRearmsItself(t *testing.T) {
	p, b := psnPoller(t)
	client, server := sockettest.Pair(t)
	if err := p.Add(server, 1, Readable, OneShotLevel); err != nil {
		t.Fatal(err)
	}
	i := p.mustSlot(t, server)
	unasked := func() {
		t.Helper()
		if err := windows.PostQueuedCompletionStatus(p.port, sockstate.SOCK_NOTIFY_EVENT_OUT, p.id(i), nil); err != nil {
			t.Fatal(err)
		}
		expectQuiet(t, p, 1, quiet)
	}
	unasked()
	if !p.at(i).armed {
		t.Fatal("not armed after a notification it re-armed itself for")
	}
	sockettest.Send(t, client, "x")
	expect(t, p, 1, Readable)
	sockettest.Drain(t, server)

	if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
		t.Fatal(err)
	}
	b.refuse = func(sockstate.Op) error { return errInjected }
	unasked()
	b.refuse = nil
	if p.at(i).armed {
		t.Fatal("armed after its re-arming was refused")
	}
	if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
		t.Fatal(err)
	}
	sockettest.Send(t, client, "y")
	expect(t, p, 1, Readable)
}

// inEntry gives the error of a call whose one registration, of socket s,
// the OS refused in its entry with code; ofCall, of a call that the OS
// refused as a whole with code.
func inEntry(code windows.Errno) func(s windows.Handle) error {
	return func(s windows.Handle) error {
		return &sockstate.RegistrationError{Failures: []sockstate.RegistrationFailure{{Socket: s, Err: code}}}
	}
}

func ofCall(code windows.Errno) func(windows.Handle) error {
	return func(windows.Handle) error { return code }
}

// refuseOp makes b's calls whose operation is op fail with the error that
// err returns for the socket.
func refuseOp(b *psn, s windows.Handle, op sockstate.Op, err func(windows.Handle) error) {
	b.refuse = func(o sockstate.Op) error {
		if o == op {
			return err(s)
		}
		return nil
	}
}

// TestPSNRemoveRefused: a REMOVE that the OS refuses because the socket
// has no registration any more (closed: WSAENOTSOCK, in the entry or, under
// remove_closed=call, for the call; its handle a new socket's: WSAEINVAL in
// the entry) frees the slot; any other refusal, in the entry or of the
// whole call, leaves the socket registered, its events coming under its
// key, and Delete returns the error and succeeds when asked again. (A
// refusal in the entry once freed the slot whatever its code: the OS went
// on reporting under the old ID, which the poller dropped as stale.)
func TestPSNRemoveRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		err  func(windows.Handle) error
		code windows.Errno
		gone bool
	}{
		{"entry WSAENOTSOCK", inEntry(windows.WSAENOTSOCK), windows.WSAENOTSOCK, true},
		{"entry WSAEINVAL", inEntry(windows.WSAEINVAL), windows.WSAEINVAL, true},
		{"call WSAENOTSOCK", ofCall(windows.WSAENOTSOCK), windows.WSAENOTSOCK, true},
		{"entry WSAENOBUFS", inEntry(windows.WSAENOBUFS), windows.WSAENOBUFS, false},
		{"call WSAENOBUFS", ofCall(windows.WSAENOBUFS), windows.WSAENOBUFS, false},
		{"call ERROR_INVALID_HANDLE", ofCall(windows.ERROR_INVALID_HANDLE), windows.ERROR_INVALID_HANDLE, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, b := psnPoller(t)
			client, server := sockettest.Pair(t)
			if err := p.Add(server, 1, Readable, Level); err != nil {
				t.Fatal(err)
			}
			refuseOp(b, server, sockstate.SOCK_NOTIFY_OP_REMOVE, c.err)
			err := p.Delete(server)
			b.refuse = nil
			if c.gone {
				if err != nil || p.slotsInUse() != 0 || p.registered(server) {
					t.Fatalf("Delete with its REMOVE refused as gone: %v, %d slots in use, want nil and 0", err, p.slotsInUse())
				}
				return
			}
			if !errors.Is(err, c.code) {
				t.Fatalf("Delete with its REMOVE refused: %v, want %v", err, c.code)
			}
			sockettest.Send(t, client, "x")
			expect(t, p, 1, Readable)
			if err := p.Delete(server); err != nil {
				t.Fatal(err)
			}
			expectQuiet(t, p, 1, quiet)
			if n := p.slotsInUse(); n != 0 {
				t.Errorf("%d slots in use after Delete", n)
			}
		})
	}
}

// TestPSNEnableRefused: Add's error names the tie to another completion
// port as the likely cause only for WSAEINVAL in the registration's entry
// (the refusal the tied_socket=refuse switch models); for any other
// refusal it names the OS's code alone. Either way it matches the code.
func TestPSNEnableRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		err  func(windows.Handle) error
		code windows.Errno
		tied bool
	}{
		{"entry WSAEINVAL", inEntry(windows.WSAEINVAL), windows.WSAEINVAL, true},
		{"call WSAEINVAL", ofCall(windows.WSAEINVAL), windows.WSAEINVAL, false},
		{"entry WSAENOBUFS", inEntry(windows.WSAENOBUFS), windows.WSAENOBUFS, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, b := psnPoller(t)
			_, server := sockettest.Pair(t)
			refuseOp(b, server, sockstate.SOCK_NOTIFY_OP_ENABLE, c.err)
			err := p.Add(server, 1, Readable, Level)
			if !errors.Is(err, c.code) {
				t.Fatalf("Add with its ENABLE refused: %v, want %v", err, c.code)
			}
			if tied := strings.Contains(err.Error(), "completion port"); tied != c.tied {
				t.Errorf("Add's error %q: names a tie to another port %v, want %v", err, tied, c.tied)
			}
			if p.registered(server) || p.slotsInUse() != 0 {
				t.Errorf("the refused socket holds a slot")
			}
		})
	}
}

// TestPSNRearmRefused: when the ENABLE that re-arms a reported Level
// socket before the next Wait blocks is refused (the call as a whole, or
// its entry for a reason other than a closed socket), the socket stays to
// be re-armed by the Wait after, which reports it again while it is ready;
// a socket closed (WSAENOTSOCK in its entry) is left to Delete or Close.
func TestPSNRearmRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		err  func(windows.Handle) error
		kept bool
	}{
		{"call WSAENOBUFS", ofCall(windows.WSAENOBUFS), true},
		{"entry WSAENOBUFS", inEntry(windows.WSAENOBUFS), true},
		{"entry WSAENOTSOCK", inEntry(windows.WSAENOTSOCK), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, b := psnPoller(t)
			client, server := sockettest.Pair(t)
			if err := p.Add(server, 1, Readable, Level); err != nil {
				t.Fatal(err)
			}
			sockettest.Send(t, client, "x")
			expect(t, p, 1, Readable)
			refuseOp(b, server, sockstate.SOCK_NOTIFY_OP_ENABLE, c.err)
			p.mu.Lock()
			b.flush() // as the next Wait does before it blocks
			kept := slices.Contains(b.rearm, p.id(p.mustSlot(t, server)))
			p.mu.Unlock()
			b.refuse = nil
			if kept != c.kept {
				t.Fatalf("after its re-arm was refused, the socket is left to re-arm: %v, want %v", kept, c.kept)
			}
			if c.kept {
				expect(t, p, 1, Readable)
			}
		})
	}
}

// TestPSNRearmBatchRefused: when the batched ENABLE that re-arms reported
// Level sockets is refused as a whole because one of them is closed
// (WSAENOTSOCK for the call, as remove_closed=call has it for REMOVE), the
// others are enabled one at a time, and none stays to re-arm: one closed
// socket does not keep the rest from being re-armed at every Wait.
func TestPSNRearmBatchRefused(t *testing.T) {
	p, b := psnPoller(t)
	var servers [2]windows.Handle
	for k := range servers {
		var client windows.Handle
		client, servers[k] = sockettest.Pair(t)
		if err := p.Add(servers[k], uint64(k), Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, uint64(k), Readable)
	}
	calls := 0
	b.refuse = func(op sockstate.Op) error {
		if op != sockstate.SOCK_NOTIFY_OP_ENABLE {
			return nil
		}
		calls++
		if calls == 1 {
			return windows.WSAENOTSOCK // the batch, refused as a whole
		}
		return nil
	}
	p.mu.Lock()
	b.rearm = append(b.rearm[:0], p.id(p.mustSlot(t, servers[0])), p.id(p.mustSlot(t, servers[1])))
	b.flush()
	left := len(b.rearm)
	p.mu.Unlock()
	b.refuse = nil
	if calls != 3 || left != 0 {
		t.Errorf("the refused batch: %d ENABLE calls (want the batch and one a socket, 3), %d left to re-arm (want 0)", calls, left)
	}
}

// TestAFDRearmRefused: a Level socket whose poll AFD refuses when a Wait
// polls it again (here: its base handle is not a socket) is freed, as a
// closed socket's registration is, silently; the others keep working.
func TestAFDRearmRefused(t *testing.T) {
	p, err := New(WithBackend(AFD))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	event, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(event)
	client, server := sockettest.Pair(t)
	other, otherServer := sockettest.Pair(t)
	for key, s := range map[uint64]windows.Handle{1: server, 2: otherServer} {
		if err := p.Add(s, key, Readable, Level); err != nil {
			t.Fatal(err)
		}
	}
	sockettest.Send(t, client, "x")
	expect(t, p, 1, Readable)
	p.mu.Lock()
	p.at(p.mustSlot(t, server)).base = event // the next poll is refused
	p.mu.Unlock()
	sockettest.Send(t, other, "x")
	expect(t, p, 2, Readable)
	if p.registered(server) || p.slotsInUse() != 1 {
		t.Fatalf("the socket whose re-arm was refused is still registered (%d slots in use)", p.slotsInUse())
	}
	if err := p.Delete(server); !errors.Is(err, ErrNotRegistered) {
		t.Errorf("Delete of the freed registration: %v, want ErrNotRegistered", err)
	}
}

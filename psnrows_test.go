// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

// The tests of this file each replay a behaviour of ProcessSocketNotifications
// that public code observed on Windows, in the order the observing code ran
// it; each test names its source. Most come from smol-rs/polling's
// ProcessSocketNotifications backend and its tests/other_modes.rs, which ran
// on Windows CI (source S1, https://github.com/smol-rs/polling/pull/210).
// testdata/psnmodel/SPEC.md lists every source (S1 to S8, D1 to D5) with its
// URL and maps each behaviour to its test. Reads are exact, as S1's
// read_exact: no read ends in WSAEWOULDBLOCK unless the row says so.

// readExact reads exactly n bytes from the non-blocking socket s, waiting
// up to 10 s for them.
func readExact(t *testing.T, s windows.Handle, n int) string {
	t.Helper()
	buf := make([]byte, n)
	got := 0
	for deadline := time.Now().Add(10 * time.Second); got < n; {
		k, err := winsock.Recv(s, buf[got:], 0)
		switch {
		case errors.Is(err, windows.WSAEWOULDBLOCK) && time.Now().Before(deadline):
			time.Sleep(time.Millisecond)
		case err != nil:
			t.Fatalf("recv after %d of %d bytes: %v", got, n, err)
		case k == 0:
			t.Fatalf("end of stream after %d of %d bytes", got, n)
		}
		got += k
	}
	return string(buf)
}

// expectNow requires a notification for key with every bit of want from a
// dequeue with a zero timeout: one the OS has queued already.
func (p livePort) expectNow(key uintptr, want uint32) {
	p.t.Helper()
	e, ok := p.next(0)
	if !ok {
		p.t.Fatalf("a zero-timeout dequeue found nothing; want events %#x for key %d", want, key)
	}
	if events := SocketNotificationRetrieveEvents(&e); e.CompletionKey != key || events&want != want {
		p.t.Fatalf("dequeued key %d events %#x; want key %d with %#x", e.CompletionKey, events, key, want)
	}
}

// expectNone requires that a zero-timeout dequeue finds nothing.
func (p livePort) expectNone() {
	p.t.Helper()
	if e, ok := p.next(0); ok {
		p.t.Fatalf("a zero-timeout dequeue found key %d events %#x; want nothing", e.CompletionKey, SocketNotificationRetrieveEvents(&e))
	}
}

// TestRowLevelNoStalePacket: Q5, "Persistent LEVEL re-reports while the
// condition holds" (observed with I/O between) and "no stale IN after the
// data is drained" (observed): S1 level_triggered,
// https://github.com/smol-rs/polling/pull/210.
func TestRowLevelNoStalePacket(t *testing.T) {
	const key = 51
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_PERSISTENT|SOCK_NOTIFY_TRIGGER_LEVEL)
	sockettest.Send(t, client, "12345")
	port.expect(key, SOCK_NOTIFY_EVENT_IN)
	readExact(t, server, 3)
	port.expect(key, SOCK_NOTIFY_EVENT_IN) // 2 bytes remain: reported again
	readExact(t, server, 2)
	port.expectNone()
	port.expectQuiet(key, quiet) // and none later: nothing holds
}

// TestRowEdgeNeedsDrain: Q5, "EDGE: a new arrival while unread data
// remains is not a new edge" and "EDGE does not fire at ENABLE time"
// (observed): S1 edge_triggered (https://github.com/smol-rs/polling/pull/210),
// with an arrival while 2 bytes are unread added where S1 only waits.
func TestRowEdgeNeedsDrain(t *testing.T) {
	const key = 52
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	sockettest.Send(t, client, "ab")
	readExact(t, server, 2) // the buffer rose and emptied before the ENABLE
	sockettest.Send(t, client, "held")
	time.Sleep(50 * time.Millisecond) // let it arrive: it holds at ENABLE
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_PERSISTENT|SOCK_NOTIFY_TRIGGER_EDGE)
	port.expectQuiet(key, quiet) // no edge at ENABLE
	readExact(t, server, 4)

	sockettest.Send(t, client, "12345")
	port.expect(key, SOCK_NOTIFY_EVENT_IN)
	readExact(t, server, 3)
	port.expectNone()
	sockettest.Send(t, client, "67890") // while 2 bytes are unread
	port.expectQuiet(key, quiet)
	if got := readExact(t, server, 7); got != "4567890" {
		t.Fatalf("read %q, want 4567890", got)
	}
	sockettest.Send(t, client, "new") // after a drain: a new edge
	port.expect(key, SOCK_NOTIFY_EVENT_IN)
	if got := readExact(t, server, 3); got != "new" {
		t.Fatalf("read %q, want new", got)
	}
}

// TestRowOneShotEdgeRearmed: Q5 and Q4 "ENABLE re-arms a fired one-shot"
// (observed): S1 edge_oneshot_triggered
// (https://github.com/smol-rs/polling/pull/210). The edge after the re-arm, the
// drain and the write is in the port for the zero-timeout dequeue right
// after the write, as S1 saw on Windows.
func TestRowOneShotEdgeRearmed(t *testing.T) {
	const key = 53
	const trigger = SOCK_NOTIFY_TRIGGER_ONESHOT | SOCK_NOTIFY_TRIGGER_EDGE
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, trigger)
	sockettest.Send(t, client, "12345")
	port.expect(key, SOCK_NOTIFY_EVENT_IN)
	readExact(t, server, 3)
	port.expectNone()
	readExact(t, server, 2)
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, trigger)
	sockettest.Send(t, client, "67890")
	port.expectNow(key, SOCK_NOTIFY_EVENT_IN)
	sockettest.Send(t, client, "more") // fired: disabled until the next ENABLE
	port.expectQuiet(key, quiet)
}

// TestRowEdgeInPortWhenSendReturns: Q5, "EDGE ... the condition must
// change while enabled" (observed: S1 edge_oneshot_triggered,
// https://github.com/smol-rs/polling/pull/210, whose zero-timeout wait
// right after the write returns the edge on Windows),
// for both edge triggers: after a drain, the edge of the peer's next write
// is in the port when that send returns, whatever sockets of the process
// came and went before. Each round ends as a test's cleanup does: the
// registered end closed first, then the peer. Windows and Wine hand a
// closed handle's value out again at once, so a later round's client
// soon has the value of a socket that sent and was closed; the rounds go
// on until that has happened reuses times, and the test fails if it did
// not within the rounds: its case was not reached.
func TestRowEdgeInPortWhenSendReturns(t *testing.T) {
	const key, rounds, reuses = 61, 40, 3
	for _, tt := range []struct {
		name    string
		trigger uint8
	}{
		{"oneshot edge, re-armed", SOCK_NOTIFY_TRIGGER_ONESHOT | SOCK_NOTIFY_TRIGGER_EDGE},
		{"persistent edge", SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_EDGE},
	} {
		t.Run(tt.name, func(t *testing.T) {
			port := newLivePort(t)
			sent := make(map[windows.Handle]bool) // closed sockets that had sent
			reused := 0
			for round := 0; round < rounds && reused < reuses; round++ {
				client, server := sockettest.Pair(t)
				if sent[client] {
					reused++
				}
				port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, tt.trigger)
				sockettest.Send(t, client, "12345")
				port.expect(key, SOCK_NOTIFY_EVENT_IN)
				readExact(t, server, 3)
				port.expectNone()
				readExact(t, server, 2) // drained
				if tt.trigger&SOCK_NOTIFY_TRIGGER_ONESHOT != 0 {
					port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, tt.trigger)
				}
				sockettest.Send(t, client, "67890")
				port.expectNow(key, SOCK_NOTIFY_EVENT_IN)
				readExact(t, server, 5)
				sockettest.Send(t, server, "x") // both ends have sent
				readExact(t, client, 1)
				sockettest.Close(t, server)
				sockettest.Close(t, client)
				sent[client], sent[server] = true, true
			}
			if reused < reuses {
				t.Fatalf("in %d rounds, %d clients had the handle value of a closed socket that had sent, want %d: the case was not reached", rounds, reused, reuses)
			}
		})
	}
}

// TestRowEdgeHeldThroughReads: Q5, "EDGE does not fire at ENABLE time"
// and "a new arrival while unread data remains is not a new edge"
// (observed: S1 edge_oneshot_triggered and edge_triggered,
// https://github.com/smol-rs/polling/pull/210): data that stays unread
// through partial reads, while another goroutine ENABLEs the registration
// again and again, raises no edge. (The model reads the socket's state at
// each ENABLE, and under Wine a read made while a receive is under way
// does not see the data: the model must not take that for a drain.)
func TestRowEdgeHeldThroughReads(t *testing.T) {
	const key, reads = 62, 2000
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	sockettest.Send(t, client, strings.Repeat("x", 2*reads))
	time.Sleep(50 * time.Millisecond) // let it arrive: it holds at ENABLE
	r := SockNotifyRegistration{Socket: server, CompletionKey: key, EventFilter: SOCK_NOTIFY_REGISTER_EVENT_IN,
		Operation: SOCK_NOTIFY_OP_ENABLE, TriggerFlags: SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_EDGE}
	port.apply(r)
	stop := make(chan struct{})
	failed := make(chan error, 1)
	go func() {
		defer close(failed)
		for enables := 0; ; enables++ {
			select {
			case <-stop:
				if enables == 0 {
					failed <- errors.New("no ENABLE was made during the reads")
				}
				return
			default:
			}
			again := r
			if err := ProcessSocketNotifications(port.h, 1, &again, 0, 0, nil, nil); err != nil || again.RegistrationResult != 0 {
				failed <- fmt.Errorf("ENABLE again: call %v, result %d", err, again.RegistrationResult)
				return
			}
		}
	}()
	for range reads {
		readExact(t, server, 1)
	}
	close(stop)
	if err := <-failed; err != nil {
		t.Fatal(err)
	}
	port.expectNone()
	port.expectQuiet(key, quiet)
}

// TestEdgeLateness: a drain followed within microseconds by a refill is a
// new edge, and its notification comes. Every round must see it (within
// 10 s, a bound for a loaded machine, not a measure); the time from the
// refill to the dequeue is printed, not asserted. SPEC.md states the
// model's bound (50 ms): over it, the test logs the rounds. For a stream
// whose peer is in this process the model learns of the arrival from the
// peer's send; for datagrams from an unconnected socket, only from its AFD
// poll.
func TestEdgeLateness(t *testing.T) {
	const rounds = 40
	const key = 54
	trigger := uint8(SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_EDGE)
	measure := func(t *testing.T, port livePort, drain func(), refill func()) {
		late := make([]time.Duration, 0, rounds)
		for range rounds {
			drain()
			refill()
			start := time.Now()
			port.expect(key, SOCK_NOTIFY_EVENT_IN)
			late = append(late, time.Since(start))
		}
		slices.Sort(late)
		t.Logf("refill to dequeue, %d rounds: min %v, median %v, 90th %v, max %v",
			rounds, late[0], late[rounds/2], late[rounds*9/10], late[rounds-1])
		if late[rounds-1] > 50*time.Millisecond {
			t.Logf("over 50 ms: %v (a loaded machine, or the bound broken: see testdata/psnmodel/SPEC.md)", late[rounds*9/10:])
		}
	}
	t.Run("stream", func(t *testing.T) {
		port := newLivePort(t)
		client, server := sockettest.Pair(t)
		port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, trigger)
		measure(t, port, func() { sockettest.Drain(t, server) }, func() { sockettest.Send(t, client, "x") })
	})
	t.Run("datagram", func(t *testing.T) {
		port := newLivePort(t)
		s, addr, err := iwinsock.UDP()
		if err != nil {
			t.Fatal(err)
		}
		defer windows.Closesocket(s)
		if err := winsock.SetNonblock(s, true); err != nil {
			t.Fatal(err)
		}
		c, err := winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
		if err != nil {
			t.Fatal(err)
		}
		defer windows.Closesocket(c)
		port.enable(s, key, SOCK_NOTIFY_REGISTER_EVENT_IN, trigger)
		buf := make([]byte, 16)
		drain := func() {
			for {
				if _, err := winsock.Recv(s, buf, 0); errors.Is(err, windows.WSAEWOULDBLOCK) {
					return
				} else if err != nil {
					t.Fatal(err)
				}
			}
		}
		measure(t, port, drain, func() {
			if err := windows.Sendto(c, []byte("x"), 0, addr); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// TestRowReEnableChangesTrigger: Q2, "Changing the trigger flags (and
// filter) with a later ENABLE on the same socket and key is accepted"
// (observed: S1 edge to one-shot, https://github.com/smol-rs/polling/pull/210;
// S3 filter narrowing, ponyc's pony_asio_event_resubscribe,
// https://github.com/ponylang/ponyc/pull/5556), and the new flags rule from
// then on.
func TestRowReEnableChangesTrigger(t *testing.T) {
	const key = 55
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	sockettest.Send(t, client, "held")
	time.Sleep(50 * time.Millisecond) // let it arrive: it holds at ENABLE
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_PERSISTENT|SOCK_NOTIFY_TRIGGER_EDGE)
	port.expectQuiet(key, quiet) // edge: nothing rose
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_ONESHOT|SOCK_NOTIFY_TRIGGER_LEVEL)
	port.expect(key, SOCK_NOTIFY_EVENT_IN) // level: what holds, at once
	port.expectQuiet(key, quiet)           // one-shot: fired
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_OUT, SOCK_NOTIFY_TRIGGER_ONESHOT|SOCK_NOTIFY_TRIGGER_LEVEL)
	if events := port.expect(key, SOCK_NOTIFY_EVENT_OUT); events&SOCK_NOTIFY_EVENT_IN != 0 {
		t.Fatalf("events %#x after the filter was narrowed to OUT", events)
	}
}

// TestRowRemoveAfterFiredOneShot: Q4, "After OP_REMOVE a
// SOCK_NOTIFY_EVENT_REMOVE packet is delivered, also when the registration
// is disabled (one-shot already fired)" and nothing after it (observed:
// S3, ponyc's sock_notify.c, https://github.com/ponylang/ponyc/pull/5556).
func TestRowRemoveAfterFiredOneShot(t *testing.T) {
	const key = 56
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_ONESHOT|SOCK_NOTIFY_TRIGGER_LEVEL)
	sockettest.Send(t, client, "x")
	port.expect(key, SOCK_NOTIFY_EVENT_IN)
	port.op(server, key, SOCK_NOTIFY_OP_REMOVE)
	port.expect(key, SOCK_NOTIFY_EVENT_REMOVE)
	sockettest.Send(t, client, "y")
	port.expectQuiet(key, quiet)
}

// TestRowDisableUnregistered: Q4, "DISABLE on a socket never registered
// returns success, and a later ENABLE works and delivers level IN"
// (observed: S1 concurrent_modify, https://github.com/smol-rs/polling/pull/210).
func TestRowDisableUnregistered(t *testing.T) {
	const key = 57
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	port.op(server, key, SOCK_NOTIFY_OP_DISABLE)
	sockettest.Send(t, client, "x")
	port.expectQuiet(key, quiet) // nothing was registered
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_PERSISTENT|SOCK_NOTIFY_TRIGGER_LEVEL)
	port.expect(key, SOCK_NOTIFY_EVENT_IN)
}

// TestRowKeyFixedAtCreation: Q4, "ENABLE cannot change the completion key"
// (documented: D2, "used upon registration creation",
// https://learn.microsoft.com/en-us/windows/win32/api/winsock2/ns-winsock2-sock_notify_registration;
// observed design: S1 and S2 remove and add again to change it,
// https://github.com/smol-rs/polling/pull/210,
// https://github.com/Berrysoft/wepoll2). A later ENABLE with another
// key is accepted, and the packets keep the first.
func TestRowKeyFixedAtCreation(t *testing.T) {
	const first, second = 58, 59
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	port.enable(server, first, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_ONESHOT|SOCK_NOTIFY_TRIGGER_LEVEL)
	port.enable(server, second, SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_TRIGGER_ONESHOT|SOCK_NOTIFY_TRIGGER_LEVEL)
	sockettest.Send(t, client, "x")
	e, ok := port.next(10 * time.Second)
	if !ok || e.CompletionKey != first {
		t.Fatalf("got a packet: %v, key %d; want key %d, the creating ENABLE's", ok, e.CompletionKey, first)
	}
}

// TestRowOneShotDisarmsBoth: Q6, "read and write share one one-shot
// registration: any delivered event disarms both directions" (observed:
// S3, https://github.com/ponylang/ponyc/pull/5683).
func TestRowOneShotDisarmsBoth(t *testing.T) {
	const key = 60
	port := newLivePort(t)
	client, server := sockettest.Pair(t)
	port.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN|SOCK_NOTIFY_REGISTER_EVENT_OUT,
		SOCK_NOTIFY_TRIGGER_ONESHOT|SOCK_NOTIFY_TRIGGER_LEVEL)
	if events := port.expect(key, SOCK_NOTIFY_EVENT_OUT); events&SOCK_NOTIFY_EVENT_IN != 0 {
		t.Fatalf("events %#x with nothing to read", events)
	}
	sockettest.Send(t, client, "x")
	port.expectQuiet(key, quiet) // the OUT disarmed IN too
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package afd

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/sockettest"
	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

const deviceKey = 0xAFD

type fixture struct {
	t    *testing.T
	port windows.Handle
	dev  *Device
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := Open(port, deviceKey)
	if err != nil {
		windows.CloseHandle(port)
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close(); windows.CloseHandle(port) })
	return &fixture{t, port, dev}
}

// submit polls socket s (its base handle) for events, with context as the
// packet's OVERLAPPED value.
func (f *fixture) submit(p *Poll, s windows.Handle, events uint32, context uintptr) {
	f.t.Helper()
	base, err := BaseHandle(s)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.dev.Submit(p, base, events, context); err != nil {
		f.t.Fatal(err)
	}
}

// next dequeues one packet within d and returns its OVERLAPPED value; ok is
// false on a timeout. The value is an ID, not a pointer: it is read into
// sockstate.OverlappedEntry, whose field is a plain number.
func (f *fixture) next(d time.Duration) (context uintptr, ok bool) {
	f.t.Helper()
	var e sockstate.OverlappedEntry
	var n uint32
	err := sockstate.GetQueuedCompletionStatusEx(f.port, &e, 1, &n, uint32(d.Milliseconds()), false)
	if errors.Is(err, windows.WAIT_TIMEOUT) {
		return 0, false
	}
	if err != nil || n != 1 {
		f.t.Fatalf("GetQueuedCompletionStatusEx: %d packets, %v", n, err)
	}
	if e.CompletionKey != deviceKey {
		f.t.Fatalf("packet with key %#x, want the device's %#x", e.CompletionKey, deviceKey)
	}
	return e.Overlapped, true
}

// expect waits for the completion of the poll submitted with context and
// returns its events.
func (f *fixture) expect(p *Poll, context uintptr) uint32 {
	f.t.Helper()
	got, ok := f.next(5 * time.Second)
	if !ok {
		f.t.Fatal("no completion within 5 s")
	}
	if got != context {
		f.t.Fatalf("completion for context %#x, want %#x", got, context)
	}
	return p.Events()
}

func (f *fixture) expectNothing(d time.Duration) {
	f.t.Helper()
	if c, ok := f.next(d); ok {
		f.t.Fatalf("unexpected completion for context %#x", c)
	}
}

func TestPollEvents(t *testing.T) {
	tests := []struct {
		name string
		// run submits a poll on p with context 7 and makes its event happen;
		// want must all be in the result.
		run  func(t *testing.T, f *fixture, p *Poll)
		want uint32
	}{
		{"send: a connected socket is writable", func(t *testing.T, f *fixture, p *Poll) {
			_, server := sockettest.Pair(t)
			f.submit(p, server, POLL_SEND, 7)
		}, POLL_SEND},
		{"receive", func(t *testing.T, f *fixture, p *Poll) {
			client, server := sockettest.Pair(t)
			f.submit(p, server, POLL_RECEIVE, 7)
			f.expectNothing(100 * time.Millisecond)
			if _, err := winsock.Send(client, []byte("x"), 0); err != nil {
				t.Fatal(err)
			}
		}, POLL_RECEIVE},
		{"accept", func(t *testing.T, f *fixture, p *Poll) {
			l, addr, err := iwinsock.Listen()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { windows.Closesocket(l) })
			f.submit(p, l, POLL_ACCEPT, 7)
			f.expectNothing(100 * time.Millisecond)
			c, err := iwinsock.Dial(addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { windows.Closesocket(c) })
		}, POLL_ACCEPT},
		{"disconnect", func(t *testing.T, f *fixture, p *Poll) {
			client, server := sockettest.Pair(t)
			f.submit(p, server, POLL_DISCONNECT, 7)
			if err := windows.Shutdown(client, windows.SHUT_WR); err != nil {
				t.Fatal(err)
			}
		}, POLL_DISCONNECT},
		{"abort", func(t *testing.T, f *fixture, p *Poll) {
			client, server := sockettest.Pair(t)
			f.submit(p, server, POLL_RECEIVE|POLL_DISCONNECT|POLL_ABORT, 7)
			linger := windows.Linger{Onoff: 1, Linger: 0} // close with a reset
			if err := windows.SetsockoptLinger(client, windows.SOL_SOCKET, windows.SO_LINGER, &linger); err != nil {
				t.Fatal(err)
			}
			windows.Closesocket(client)
		}, POLL_ABORT},
		{"connect fail", func(t *testing.T, f *fixture, p *Poll) {
			l, addr, err := iwinsock.Listen()
			if err != nil {
				t.Fatal(err)
			}
			windows.Closesocket(l) // nobody listens there now
			s, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { windows.Closesocket(s) })
			if err := winsock.SetNonblock(s, true); err != nil {
				t.Fatal(err)
			}
			if err := windows.Connect(s, addr); !errors.Is(err, windows.WSAEWOULDBLOCK) {
				t.Fatalf("non-blocking connect: %v", err)
			}
			f.submit(p, s, POLL_SEND|POLL_CONNECT_FAIL, 7)
		}, POLL_CONNECT_FAIL},
		{"local close", func(t *testing.T, f *fixture, p *Poll) {
			s, _, err := iwinsock.UDP()
			if err != nil {
				t.Fatal(err)
			}
			f.submit(p, s, POLL_RECEIVE, 7)
			windows.Closesocket(s)
		}, POLL_LOCAL_CLOSE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			p := new(Poll)
			tt.run(t, f, p)
			got := f.expect(p, 7)
			if got&tt.want != tt.want {
				t.Fatalf("events %#x, want %#x in them (status %v)", got, tt.want, p.Err())
			}
			t.Logf("events %#x", got)
		})
	}
}

func TestCancel(t *testing.T) {
	f := newFixture(t)
	_, server := sockettest.Pair(t)
	p := new(Poll)
	f.submit(p, server, POLL_RECEIVE, 9)
	if err := f.dev.Cancel(p); err != nil {
		t.Fatal(err)
	}
	if got := f.expect(p, 9); got != 0 || !p.Cancelled() || p.Err() != nil {
		t.Fatalf("cancelled poll: events %#x, cancelled %v, err %v", got, p.Cancelled(), p.Err())
	}

	// Cancelling a poll that has completed finds nothing, and is no error.
	q := new(Poll)
	f.submit(q, server, POLL_SEND, 10)
	if got := f.expect(q, 10); got&POLL_SEND == 0 {
		t.Fatalf("events %#x", got)
	}
	if err := f.dev.Cancel(q); err != nil {
		t.Fatalf("cancel after completion: %v", err)
	}
	f.expectNothing(100 * time.Millisecond)
}

// Many polls on one device complete independently, each with its context.
func TestManyPolls(t *testing.T) {
	f := newFixture(t)
	const n = 50
	polls := make([]Poll, n)
	clients := make([]windows.Handle, n)
	for i := range polls {
		c, s := sockettest.Pair(t)
		clients[i] = c
		f.submit(&polls[i], s, POLL_RECEIVE, uintptr(100+i))
	}
	f.expectNothing(50 * time.Millisecond)
	for i := n - 1; i >= 0; i -= 2 { // every other one, last first
		if _, err := winsock.Send(clients[i], []byte("x"), 0); err != nil {
			t.Fatal(err)
		}
	}
	seen := make(map[uintptr]bool)
	for range n / 2 {
		c, ok := f.next(5 * time.Second)
		if !ok {
			t.Fatalf("%d of %d completions", len(seen), n/2)
		}
		i := int(c - 100)
		if i < 0 || i >= n || i%2 == 0 || seen[c] {
			t.Fatalf("completion for context %d", c)
		}
		if polls[i].Events()&POLL_RECEIVE == 0 {
			t.Fatalf("poll %d: events %#x", i, polls[i].Events())
		}
		seen[c] = true
	}
	f.expectNothing(50 * time.Millisecond)
	for i := range polls { // cancel the rest; their packets arrive
		if err := f.dev.Cancel(&polls[i]); err != nil {
			t.Fatal(err)
		}
	}
	for range n / 2 {
		if _, ok := f.next(5 * time.Second); !ok {
			t.Fatal("a cancelled poll sent no packet")
		}
	}
}

// A handle that is not a socket cannot be polled: BaseHandle, Submit or the
// completion refuses it (Windows refuses at BaseHandle; Wine 8 answers
// SIO_BASE_HANDLE with the handle itself and refuses later). Whichever
// refuses, it refuses again the same way, and the device then still polls
// a socket.
func TestPollNotASocket(t *testing.T) {
	f := newFixture(t)
	event, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(event)
	refusal := func() string {
		base, err := BaseHandle(event)
		if err != nil {
			return fmt.Sprintf("BaseHandle: %v", err)
		}
		p := new(Poll)
		if err := f.dev.Submit(p, base, POLL_RECEIVE, 11); err != nil {
			return fmt.Sprintf("Submit: %v", err)
		}
		if events := f.expect(p, 11); p.Err() == nil {
			t.Fatalf("a poll of an event handle completed with events %#x and no error", events)
		}
		return fmt.Sprintf("the completion: %v", p.Err())
	}
	first := refusal()
	t.Log(first)
	if again := refusal(); again != first {
		t.Errorf("asked again: %s", again)
	}
	client, server := sockettest.Pair(t)
	p := new(Poll)
	f.submit(p, server, POLL_RECEIVE, 12)
	sockettest.Send(t, client, "x")
	if got := f.expect(p, 12); got&POLL_RECEIVE == 0 {
		t.Errorf("after the refusals, a readable socket's poll: events %#x", got)
	}
}

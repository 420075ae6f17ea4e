// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
	"github.com/sockstate/sockstate/internal/winsock"
)

func TestModify(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 10, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if err := p.Modify(server, 11, Readable, Level); err != nil { // the key only
			t.Fatal(err)
		}
		if p.Backend() == AFD && p.at(p.mustSlot(t, server)).afd.resubmit {
			t.Error("changing only the key cancelled the poll")
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 11, Readable)
		if err := p.Modify(server, 12, Writable, Level); err != nil { // the interest
			t.Fatal(err)
		}
		if ev := expect(t, p, 12, Writable); ev&Readable != 0 {
			t.Errorf("Readable reported after Modify to Writable: %v", ev)
		}
	})
}

func TestDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 20, Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x") // readiness queued, maybe, before the Delete
		if err := p.Delete(server); err != nil {
			t.Fatal(err)
		}
		expectQuiet(t, p, 20, quiet)
		if err := p.Delete(server); !errors.Is(err, ErrNotRegistered) {
			t.Errorf("second Delete: %v, want ErrNotRegistered", err)
		}
		if err := p.Modify(server, 20, Readable, Level); !errors.Is(err, ErrNotRegistered) {
			t.Errorf("Modify after Delete: %v, want ErrNotRegistered", err)
		}
		// Added again, it works again.
		if err := p.Add(server, 21, Readable, Level); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 21, Readable)
	})
}

// TestDeleteWhileWaiting: Delete returns while another goroutine sits in
// Wait, and the slot comes back for reuse once the OS confirms.
func TestDeleteWhileWaiting(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, 30, Readable, Level); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		got := make(chan []Event, 1)
		wg.Go(func() {
			var all []Event
			events := make([]Event, 8)
			for {
				n, err := p.Wait(events, -1)
				all = append(all, events[:n]...)
				if err != nil || n == 0 { // woken
					got <- all
					return
				}
			}
		})
		time.Sleep(50 * time.Millisecond) // let it block
		done := make(chan error)
		go func() { done <- p.Delete(server) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(eventually):
			t.Fatal("Delete blocked while another goroutine waited")
		}
		deadline := time.Now().Add(eventually)
		for p.slotsInUse() > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := p.slotsInUse(); n != 0 {
			t.Errorf("%d slots in use after the OS confirmed the removal", n)
		}
		p.Wake()
		wg.Wait()
		if evs := <-got; len(evs) != 0 {
			t.Errorf("events of a deleted socket: %v", evs)
		}
	})
}

func TestClosedWithoutDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		s, _, err := winsock.UDP()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Add(s, 40, Readable, Level); err != nil {
			t.Fatal(err)
		}
		windows.Closesocket(s)
		expectQuiet(t, p, 40, quiet)
		if p.Backend() == AFD {
			// The poll's completion frees the slot, in a Wait; no event.
			for deadline := time.Now().Add(eventually); p.slotsInUse() != 0 && time.Now().Before(deadline); {
				expectQuiet(t, p, 40, quiet)
			}
			if n := p.slotsInUse(); n != 0 {
				t.Errorf("AFD: %d slots in use %v after the socket was closed", n, eventually)
			}
			return
		}
		// ProcessSocketNotifications says nothing: Delete cleans up.
		if err := p.Delete(s); err != nil {
			t.Fatal(err)
		}
		if n := p.slotsInUse(); n != 0 {
			t.Errorf("%d slots in use after Delete of a closed socket", n)
		}
	})
}

// TestBadInput: each bad argument is refused with an error (logged), no
// slot is left taken, and a registered socket given bad arguments keeps
// its registration.
func TestBadInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		_, other := sockettest.Pair(t)
		if err := p.Add(other, 99, Readable, Level); err != nil {
			t.Fatal(err)
		}
		event, err := windows.CreateEvent(nil, 0, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer windows.CloseHandle(event)
		for _, c := range []struct {
			name string
			err  error
		}{
			{"Add invalid handle", p.Add(windows.InvalidHandle, 1, Readable, Level)},
			{"Add zero handle", p.Add(0, 1, Readable, Level)},
			{"Add unknown interest", p.Add(server, 1, 0x40, Level)},
			{"Add unknown mode", p.Add(server, 1, Readable, Mode(7))},
			{"Add not a socket", p.Add(event, 1, Readable, Level)},
			{"Add registered", p.Add(other, 1, Readable, Level)},
			{"Modify unknown", p.Modify(server, 1, Readable, Level)},
			{"Modify unknown interest", p.Modify(other, 1, 0x80, Level)},
			{"Modify unknown mode", p.Modify(other, 1, Readable, Mode(4))},
			{"Delete unknown", p.Delete(server)},
			{"Delete invalid handle", p.Delete(windows.InvalidHandle)},
			{"Wait nil slice", func() error { _, err := p.Wait(nil, 0); return err }()},
			{"Wait empty slice", func() error { _, err := p.Wait(make([]Event, 0, 8), 0); return err }()},
		} {
			if c.err == nil {
				t.Errorf("%s: accepted", c.name)
			}
			t.Logf("%s: %v", c.name, c.err)
		}
		if n := p.slotsInUse(); n != 1 {
			t.Errorf("%d slots in use after refused input, want 1", n)
		}
		sockettest.Send(t, client, "x") // server is not registered: nothing
		expectQuiet(t, p, 1, quiet)
		if err := p.Delete(other); err != nil {
			t.Errorf("the registered socket after refused calls: %v", err)
		}
	})
}

// TestNetPackageSocket: a socket of Go's net package, which the runtime
// has tied to its own completion port. AFD polls it like any other.
// ProcessSocketNotifications accepts it, and its events come, or refuses
// it at Add with an error that matches WSAEINVAL and names the cause, and
// holds no slot; against the model, the answer of its switch tied_socket.
func TestNetPackageSocket(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		accepted := make(chan net.Conn, 1)
		go func() {
			c, _ := l.Accept()
			accepted <- c
		}()
		client, err := net.Dial("tcp4", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		server := <-accepted
		if server == nil {
			t.Fatal("accept failed")
		}
		defer server.Close()
		raw, err := server.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var h windows.Handle
		raw.Control(func(fd uintptr) { h = windows.Handle(fd) })

		err = p.Add(h, 50, Readable, Level)
		answer := modelSwitch("tied_socket")
		switch {
		case p.Backend() == AFD:
			if err != nil {
				t.Fatalf("AFD refused a net package socket: %v", err)
			}
		case err == nil && answer == "refuse":
			t.Fatal("the model refuses a net package socket (tied_socket=refuse), and Add accepted it")
		case err != nil && answer == "accept":
			t.Fatalf("the model accepts a net package socket (tied_socket=accept), and Add refused it: %v", err)
		case err != nil:
			if !errors.Is(err, windows.WSAEINVAL) || !strings.Contains(err.Error(), "completion port") {
				t.Errorf("the refusal does not match WSAEINVAL or name the cause: %v", err)
			}
			if n := p.slotsInUse(); n != 0 {
				t.Errorf("%d slots in use after the refusal", n)
			}
			t.Logf("%v refuses a net package socket at Add: %v", p.Backend(), err)
			if again := p.Add(h, 50, Readable, Level); again == nil || again.Error() != err.Error() {
				t.Errorf("Add asked again: %v", again)
			}
			if _, err := client.Write([]byte("x")); err != nil {
				t.Fatal(err)
			}
			expectQuiet(t, p, 50, quiet) // refused: no event
			return
		}
		defer p.Delete(h)
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 50, Readable)
	})
}

// mustSlot returns the index of socket s's slot, for a test that looks
// inside it.
func (p *Poller) mustSlot(t *testing.T, s Socket) int32 {
	t.Helper()
	i, ok := p.slotOf(s)
	if !ok {
		t.Fatalf("socket %#x has no slot", uintptr(s))
	}
	return i
}

// registered reports whether socket s has an active slot.
func (p *Poller) registered(s Socket) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.slotOf(s)
	return ok
}

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

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/psnmodel"
	"github.com/sockstate/sockstate/internal/sockettest"
	"github.com/sockstate/sockstate/internal/winsock"
)

const quiet = 200 * time.Millisecond

// backends returns the backends this Windows has; every conformance test
// runs on each.
func backends() []Backend {
	if sockstate.Supported() {
		return []Backend{AFD, SocketNotifications}
	}
	return []Backend{AFD}
}

// forEachBackend runs test on a new Poller of every available backend.
func forEachBackend(t *testing.T, test func(t *testing.T, p *Poller)) {
	t.Helper()
	if !sockstate.Supported() {
		t.Logf("only AFD here: %v", sockstate.LoadProcessSocketNotifications())
	}
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			p, err := New(WithBackend(b))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			test(t, p)
		})
	}
}

// modelSwitch returns a switch of the reference model of
// ProcessSocketNotifications when the tests run against it, else "".
func modelSwitch(name string) string {
	if psnmodel.Active == nil {
		return ""
	}
	return psnmodel.Active.Switch(name)
}

// expect waits up to 5 s for an event for key with all of want.
func expect(t *testing.T, p *Poller, key uint64, want Interest) Interest {
	t.Helper()
	events := make([]Event, 8)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		n, err := p.Wait(events, time.Until(deadline))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events[:n] {
			if e.Key == key && e.Events&want == want {
				return e.Events
			}
			t.Logf("while waiting for %v of key %d: %v of key %d", want, key, e.Events, e.Key)
		}
	}
	t.Fatalf("no %v for key %d within 5 s", want, key)
	return 0
}

// expectQuiet requires no event for key within d.
func expectQuiet(t *testing.T, p *Poller, key uint64, d time.Duration) {
	t.Helper()
	events := make([]Event, 8)
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		n, err := p.Wait(events, time.Until(deadline))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events[:n] {
			if e.Key == key {
				t.Fatalf("unexpected %v for key %d", e.Events, key)
			}
		}
	}
}

func TestBackendChoice(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := AFD
	if sockstate.Supported() {
		want = SocketNotifications
	}
	if p.Backend() != want {
		t.Errorf("New picked %v, want %v", p.Backend(), want)
	}
	_, err = New(WithBackend(SocketNotifications))
	if sockstate.Supported() != (err == nil) {
		t.Errorf("forcing ProcessSocketNotifications: %v (supported: %v)", err, sockstate.Supported())
	}
	if err != nil && !errors.Is(err, sockstate.ErrNotSupported) {
		t.Errorf("error %v does not match sockstate.ErrNotSupported", err)
	}
	if _, err := New(WithBackend(Backend(9))); err == nil {
		t.Error("an unknown backend was accepted")
	}
}

func TestLevel(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		expectQuiet(t, p, 1, quiet)
		sockettest.Send(t, client, "ping")
		expect(t, p, 1, Readable)
		expect(t, p, 1, Readable) // unread: reported again
		if got := sockettest.Drain(t, server); got != "ping" {
			t.Fatalf("read %q", got)
		}
	})
}

func TestEvents(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		t.Run("writable", func(t *testing.T) {
			_, server := sockettest.Pair(t)
			if err := p.Add(server, 2, Writable, Level); err != nil {
				t.Fatal(err)
			}
			expect(t, p, 2, Writable)
			p.Delete(server)
		})
		t.Run("accept", func(t *testing.T) {
			l, addr, err := winsock.Listen()
			if err != nil {
				t.Fatal(err)
			}
			defer windows.Closesocket(l)
			if err := p.Add(l, 3, Readable, Level); err != nil {
				t.Fatal(err)
			}
			c, err := winsock.Dial(addr)
			if err != nil {
				t.Fatal(err)
			}
			defer windows.Closesocket(c)
			expect(t, p, 3, Readable)
			p.Delete(l)
		})
		t.Run("hang-up", func(t *testing.T) {
			client, server := sockettest.Pair(t)
			if err := p.Add(server, 4, Readable|HangUp, Level); err != nil {
				t.Fatal(err)
			}
			windows.Shutdown(client, windows.SHUT_WR)
			expect(t, p, 4, HangUp)
			p.Delete(server)
		})
		t.Run("reset", func(t *testing.T) {
			client, server := sockettest.Pair(t)
			if err := p.Add(server, 5, Readable|HangUp, Level); err != nil {
				t.Fatal(err)
			}
			linger := windows.Linger{Onoff: 1, Linger: 0}
			windows.SetsockoptLinger(client, windows.SOL_SOCKET, windows.SO_LINGER, &linger)
			windows.Closesocket(client)
			ev := expect(t, p, 5, 0)
			if ev&(HangUp|Error) == 0 {
				t.Errorf("a reset gave %v, want HangUp or Error", ev)
			}
			p.Delete(server)
		})
	})
}

func TestOneShot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 6, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 6, Readable)
		expectQuiet(t, p, 6, quiet) // disarmed, though unread
		if err := p.Modify(server, 6, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 6, Readable)
	})
}

func TestEdge(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 7, Readable, Edge); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "one")
		expect(t, p, 7, Readable)
		if got := sockettest.Drain(t, server); got != "one" {
			t.Fatalf("read %q", got)
		}
		expectQuiet(t, p, 7, quiet) // drained: no edge
		sockettest.Send(t, client, "two")
		expect(t, p, 7, Readable)
		if got := sockettest.Drain(t, server); got != "two" {
			t.Fatalf("read %q", got)
		}
	})
}

// TestEdgeUndrained records the documented difference: an edge registration
// that is not drained is reported again on AFD, and not on
// ProcessSocketNotifications.
func TestEdgeUndrained(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 8, Readable, Edge); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 8, Readable)
		if p.Backend() == AFD {
			expect(t, p, 8, Readable)
			return
		}
		expectQuiet(t, p, 8, quiet)
		// Nor is more data while some is unread a new edge (Windows, as
		// observed: psn-behaviour.md Q5).
		sockettest.Send(t, client, "more")
		expectQuiet(t, p, 8, quiet)
	})
}

func TestModify(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 10, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if err := p.Modify(server, 11, Readable, Level); err != nil { // the key only
			t.Fatal(err)
		}
		if p.Backend() == AFD && p.at(p.bySocket[server]).afd.resubmit {
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
		case <-time.After(5 * time.Second):
			t.Fatal("Delete blocked while another goroutine waited")
		}
		deadline := time.Now().Add(5 * time.Second)
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

// slotsInUse counts the slots not free, for the lifecycle tests.
func (p *Poller) slotsInUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int(p.used) - len(p.free)
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
			if n := p.slotsInUse(); n != 0 {
				t.Errorf("AFD: %d slots in use after the socket was closed", n)
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
		case <-time.After(5 * time.Second):
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
			case <-time.After(5 * time.Second):
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
// one-shot readiness is delivered exactly once.
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
					n, err := p.Wait(events, 500*time.Millisecond)
					if err != nil || n == 0 {
						return
					}
					mu.Lock()
					for _, e := range events[:n] {
						seen[e.Key]++
					}
					mu.Unlock()
				}
			})
		}
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
			return
		}
		defer p.Delete(h)
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 50, Readable)
	})
}

// TestInterestString: names joined by "|", unknown bits in hex, with no
// leading "|" when only unknown bits are set.
func TestInterestString(t *testing.T) {
	for i, want := range map[Interest]string{
		0:                 "0",
		Readable | HangUp: "Readable|HangUp",
		Error:             "Error",
		0x40:              "0x40",
		Writable | 0xc0:   "Writable|0xc0",
	} {
		if got := i.String(); got != want {
			t.Errorf("Interest(%#x).String() = %q, want %q", uint8(i), got, want)
		}
	}
}

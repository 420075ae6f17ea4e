// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/psnmodel"
)

// quiet is how long a check that nothing arrives watches; eventually is
// how long one that something arrives waits at most: generous, as a loaded
// machine is slow, and spent only when the test fails.
const (
	quiet      = 200 * time.Millisecond
	eventually = 30 * time.Second
)

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

// mustSlot returns the index of socket s's slot, for a test that looks
// inside it.
func (p *Poller) mustSlot(t *testing.T, s windows.Handle) int32 {
	t.Helper()
	i, ok := p.slotOf(s)
	if !ok {
		t.Fatalf("socket %#x has no slot", uintptr(s))
	}
	return i
}

// waited is what a Wait of startWait returned.
type waited struct {
	events []Event
	err    error
}

// startWait starts a Wait, with room for room events and up to timeout,
// in a goroutine of its own, and returns the channel its result comes on
// once the Wait has counted itself and re-armed what it found to re-arm,
// which it does in one hold of the poller's lock unless the re-arm has a
// call to make; or once it has returned, if it returned at once (a spare
// Wake, a closed poller). A Wait that does neither within eventually is
// reported with t.Error, not t.Fatal: startWait may run in a start hook.
func startWait(t *testing.T, p *Poller, room int, timeout time.Duration) <-chan waited {
	p.mu.Lock()
	before := p.waits
	p.mu.Unlock()
	c := make(chan waited, 1)
	go func() {
		events := make([]Event, room)
		n, err := p.Wait(events, timeout)
		c <- waited{events[:n], err}
	}()
	for deadline := time.Now().Add(eventually); ; time.Sleep(time.Millisecond) {
		p.mu.Lock()
		started := p.waits != before
		p.mu.Unlock()
		if started || len(c) > 0 { // counted itself, or returned already
			return c
		}
		if time.Now().After(deadline) {
			t.Errorf("a Wait has not started within %v", eventually)
			return c
		}
	}
}

// expect waits up to eventually for an event for key with all of want.
func expect(t *testing.T, p *Poller, key uint64, want Interest) Interest {
	t.Helper()
	ev, err := await(t, p, key, want)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// await is expect without t.Fatal, for code that must return to fail: a
// start hook (start_test.go), which runs while Add or Modify has released
// the poller's lock that it will unlock again.
func await(t *testing.T, p *Poller, key uint64, want Interest) (Interest, error) {
	t.Helper()
	events := make([]Event, 8)
	deadline := time.Now().Add(eventually)
	for time.Now().Before(deadline) {
		n, err := p.Wait(events, time.Until(deadline))
		if err != nil {
			return 0, err
		}
		for _, e := range events[:n] {
			if e.Key == key && e.Events&want == want {
				return e.Events, nil
			}
			t.Logf("while waiting for %v of key %d: %v of key %d", want, key, e.Events, e.Key)
		}
	}
	return 0, fmt.Errorf("no %v for key %d within %v", want, key, eventually)
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
	if _, err := New(WithBackend(Epoll)); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("New with Epoll: %v, want an error matching errors.ErrUnsupported", err)
	}
	if _, err := New(WithBackend(Backend(9))); err == nil || errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("New with an unknown backend: %v, want an error that is not ErrUnsupported", err)
	}
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

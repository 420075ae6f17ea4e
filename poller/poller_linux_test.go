// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sockstate/sockstate/internal/sockettest"
)

func TestEpollBackendChoice(t *testing.T) {
	for _, b := range []Backend{Auto, Epoll} {
		p, err := New(WithBackend(b))
		if err != nil {
			t.Fatal(err)
		}
		if p.Backend() != Epoll {
			t.Errorf("New with %v picked %v, want Epoll", b, p.Backend())
		}
		p.Close()
	}
	for _, b := range []Backend{SocketNotifications, AFD} {
		if _, err := New(WithBackend(b)); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("New with %v: %v, want an error matching errors.ErrUnsupported", b, err)
		}
	}
	if _, err := New(WithBackend(Backend(9))); err == nil || errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("New with an unknown backend: %v", err)
	}
}

// TestEpollBadInput: each bad argument is refused with an error, never a
// panic, and leaves no slot taken nor a registration changed.
func TestEpollBadInput(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client, server := sockettest.Pair(t)
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if err := p.Add(server, 1, Readable, Level); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Add of a negative descriptor":   p.Add(-1, 2, Readable, Level),
		"Add of a descriptor not open":   p.Add(math.MaxInt32, 2, Readable, Level),
		"Add of a regular file":          p.Add(int(file.Fd()), 2, Readable, Level),
		"Add of an unknown interest":     p.Add(client, 2, 0x40, Level),
		"Add of an unknown mode":         p.Add(client, 2, Readable, Mode(9)),
		"Modify of a negative":           p.Modify(-1, 2, Readable, Level),
		"Modify of an unknown mode":      p.Modify(server, 2, Writable, Mode(4)),
		"Modify of an unknown interest":  p.Modify(server, 2, 0x80|Writable, Level),
		"Delete of a negative":           p.Delete(-5),
		"Wait with no room":              func() error { _, err := p.Wait(nil, 0); return err }(),
		"Add registered":                 p.Add(server, 2, Writable, Edge),
		"Modify not registered":          p.Modify(client, 2, Readable, Level),
		"Delete not registered":          p.Delete(client),
		"Modify of a descriptor not one": p.Modify(math.MaxInt32, 2, Readable, Level),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if err := p.Add(server, 2, Readable, Level); !errors.Is(err, ErrAlreadyRegistered) {
		t.Errorf("a second Add: %v, want ErrAlreadyRegistered", err)
	}
	for _, err := range []error{p.Modify(client, 2, Readable, Level), p.Delete(client)} {
		if !errors.Is(err, ErrNotRegistered) {
			t.Errorf("a call for a socket not added: %v, want ErrNotRegistered", err)
		}
	}
	if n := p.slotsInUse(); n != 1 {
		t.Errorf("%d slots taken, want 1", n)
	}
	sockettest.Send(t, client, "x")
	if ev := expect(t, p, 1, Readable); ev != Readable {
		t.Errorf("the registration after the refusals: %v, want key 1 Readable", ev)
	}
}

// TestTimeoutRoundsUp: a Wait of 1 ns on an idle poller waits epoll's
// millisecond, not 0 (a busy poll).
func TestTimeoutRoundsUp(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for range 5 {
		start := time.Now()
		if n, err := p.Wait(make([]Event, 1), time.Nanosecond); n != 0 || err != nil {
			t.Fatalf("Wait: %d, %v", n, err)
		}
		if d := time.Since(start); d < time.Millisecond {
			t.Errorf("a Wait of 1ns returned after %v, less than a millisecond", d)
		}
	}
}

// TestSignalsAreNoTimeout: signals sent to the thread blocked in
// epoll_wait (each makes it fail with EINTR) neither end a Wait before its
// timeout nor a Wait with none.
func TestSignalsAreNoTimeout(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, timeout := range []time.Duration{300 * time.Millisecond, -1} {
		tids := make(chan int, 1)
		type result struct {
			n       int
			err     error
			elapsed time.Duration
		}
		done := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tids <- unix.Gettid()
			start := time.Now()
			n, err := p.Wait(make([]Event, 4), timeout)
			done <- result{n, err, time.Since(start)}
		}()
		tid := <-tids
		var r result
		signals := 0
	loop:
		for end := time.Now().Add(2 * quiet); ; signals++ {
			if timeout < 0 && time.Now().After(end) {
				p.Wake()
			}
			// SIGURG: the runtime's own, harmless to it.
			if err := unix.Tgkill(unix.Getpid(), tid, unix.SIGURG); err != nil {
				t.Fatal(err)
			}
			select {
			case r = <-done:
				break loop
			case <-time.After(time.Millisecond):
			}
		}
		t.Logf("timeout %v: %d signals, returned after %v", timeout, signals, r.elapsed)
		switch {
		case r.err != nil || r.n != 0:
			t.Errorf("timeout %v: Wait gave %d, %v", timeout, r.n, r.err)
		case timeout > 0 && r.elapsed < timeout:
			t.Errorf("a Wait of %v returned after %v", timeout, r.elapsed)
		case timeout < 0 && r.elapsed < 2*quiet:
			t.Errorf("a Wait with no timeout returned after %v, before the Wake", r.elapsed)
		}
	}
}

// TestStaleEventDropped: a kernel event of a registration that is no
// longer current (taken by a Wait before a Delete, a Modify, or the slot's
// reuse) is never delivered, even under the slot's new registration: the
// generation in the epoll data tells them apart (golang/go#59545).
func TestStaleEventDropped(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, a := sockettest.Pair(t)
	_, b := sockettest.Pair(t)
	if err := p.Add(a, 1, Readable|Writable, Level); err != nil {
		t.Fatal(err)
	}
	i, _ := p.slotOf(a)
	stale := unix.EpollEvent{Events: unix.EPOLLOUT, Fd: i, Pad: int32(p.at(i).gen)}
	deliver := func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.waits++ // a hold of its own, as gather's
		n, _, _ := p.deliver([]unix.EpollEvent{stale}, make([]Event, 4), 0)
		return n
	}
	if deliver() != 1 {
		t.Fatal("a current event was not delivered")
	}
	if err := p.Modify(a, 1, Writable, Level); err != nil {
		t.Fatal(err)
	}
	if deliver() != 0 {
		t.Error("an event from before a Modify was delivered")
	}
	stale.Pad = int32(p.at(i).gen) // current, until the Delete
	if err := p.Delete(a); err != nil {
		t.Fatal(err)
	}
	if err := p.Add(b, 2, Writable, Level); err != nil {
		t.Fatal(err)
	}
	if j, _ := p.slotOf(b); j != i {
		t.Fatalf("b took slot %d, not a's %d", j, i)
	}
	if deliver() != 0 {
		t.Error("an event of a deleted registration was delivered under its slot's new one")
	}
}

// TestWaitAfterFailedClose: a Close that cannot signal the eventfd (here
// closed under it) returns the error and leaves the descriptors open for
// the Waits it could not release; a Wait that starts after it returns
// ErrClosed at once, and does not block.
func TestWaitAfterFailedClose(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p.epfd)
	unix.Close(p.wakefd)
	if err := p.Close(); err == nil || errors.Is(err, ErrClosed) {
		t.Fatalf("Close with the eventfd closed: %v, want the write's error", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Wait(make([]Event, 4), -1)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Wait after the failed Close: %v, want ErrClosed", err)
		}
	case <-time.After(eventually):
		t.Fatal("a Wait after the failed Close blocked")
	}
}

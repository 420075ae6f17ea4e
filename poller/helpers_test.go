// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// The helpers of the tests that every backend runs (the other systems
// have no Poller to wait on).

//go:build linux || windows

package poller

import (
	"fmt"
	"testing"
	"time"
)

// quiet is how long a check that nothing arrives watches; eventually is
// how long one that something arrives waits at most: generous, as a loaded
// machine is slow, and spent only when the test fails.
const (
	quiet      = 200 * time.Millisecond
	eventually = 30 * time.Second
)

// waited is what a Wait of startWait returned.
type waited struct {
	events []Event
	err    error
}

// startWait starts a Wait, with room for room events and up to timeout,
// in a goroutine of its own, and returns the channel its result comes on
// once the Wait has counted itself (and, on Windows, re-armed what it
// found to re-arm, in the same hold of the poller's lock), or once it has
// returned, if it returned at once (a spare Wake, a closed poller). A Wait
// that does neither within eventually is reported with t.Error, not
// t.Fatal, so that a goroutine of a test can call it too.
func startWait(t *testing.T, p *Poller, room int, timeout time.Duration) <-chan waited {
	before := p.waiting.Load() &^ underWay // the Waits begun
	c := make(chan waited, 1)
	go func() {
		events := make([]Event, room)
		n, err := p.Wait(events, timeout)
		c <- waited{events[:n], err}
	}()
	for deadline := time.Now().Add(eventually); ; time.Sleep(time.Millisecond) {
		started := p.waiting.Load()&^underWay != before
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

// await is expect without t.Fatal, for code that must return to fail (a
// goroutine other than the test's).
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

// slotsInUse returns how many slots are handed out: registrations, and
// (on Windows) those deleted whose removal the OS has not confirmed.
func (p *Poller) slotsInUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int(p.used) - len(p.free)
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"testing"

	"github.com/sockstate/sockstate/internal/sockettest"
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

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"testing"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/psnmodel"
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

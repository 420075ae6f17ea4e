// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build !windows && !linux

package poller

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

// errUnsupported is New's error on a system that has no backend.
var errUnsupported = fmt.Errorf("poller: no backend for %s: %w", runtime.GOOS, errors.ErrUnsupported)

// state is a Poller's: there is none on this system, where New returns an
// error matching errors.ErrUnsupported.
type state struct{}

// New returns an error matching errors.ErrUnsupported: this system has no
// backend.
func New(...Option) (*Poller, error) { return nil, errUnsupported }

// Backend reports the backend in use.
func (p *Poller) Backend() Backend { return Auto }

// Add registers socket s; here it returns an error matching
// errors.ErrUnsupported.
func (p *Poller) Add(Socket, uint64, Interest, Mode) error { return errUnsupported }

// Modify changes a registration; here it returns an error matching
// errors.ErrUnsupported.
func (p *Poller) Modify(Socket, uint64, Interest, Mode) error { return errUnsupported }

// Delete removes a registration; here it returns an error matching
// errors.ErrUnsupported.
func (p *Poller) Delete(Socket) error { return errUnsupported }

// Wait waits for events; here it returns an error matching
// errors.ErrUnsupported.
func (p *Poller) Wait([]Event, time.Duration) (int, error) { return 0, errUnsupported }

// Wake makes one Wait return; here it returns an error matching
// errors.ErrUnsupported.
func (p *Poller) Wake() error { return errUnsupported }

// Close releases the poller; here it returns an error matching
// errors.ErrUnsupported.
func (p *Poller) Close() error { return errUnsupported }

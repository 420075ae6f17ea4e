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

func newPoller(config) (*Poller, error) { return nil, errUnsupported }

func (p *Poller) backendOf() Backend                          { return Auto }
func (p *Poller) add(Socket, uint64, Interest, Mode) error    { return errUnsupported }
func (p *Poller) modify(Socket, uint64, Interest, Mode) error { return errUnsupported }
func (p *Poller) delete(Socket) error                         { return errUnsupported }
func (p *Poller) wait([]Event, time.Duration) (int, error)    { return 0, errUnsupported }
func (p *Poller) wake() error                                 { return errUnsupported }
func (p *Poller) close() error                                { return errUnsupported }

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
)

// Completion keys of the packets the poller posts itself. (A slot's ID
// could match one on a 32-bit build but for its low bits: maxSlots keeps
// them below these keys'.)
const (
	wakeKey  = ^uintptr(0)
	closeKey = ^uintptr(0) - 1
	afdKey   = ^uintptr(0) - 2
)

// state is a Poller's, on this system.
type state struct {
	backend Backend
	port    windows.Handle
	impl    backend

	table
	// spareWakes are Wakes dequeued in one batch beyond the one that
	// batch's Wait consumed and beyond the Waits there were to release:
	// each makes a Wait that starts return at once.
	spareWakes int
}

// backend is what differs between the OS mechanisms. Its methods run with
// p.mu held.
type backend interface {
	// baseHandle returns what arm will need of socket s: the AFD
	// backend's base handle, 0 for the other.
	baseHandle(s Socket) (windows.Handle, error)
	// arm registers (or re-registers) slot i with its interest and mode.
	arm(i int32) error
	// remove starts the removal of slot i; done means that it is freed
	// already, with no packet to wait for.
	remove(i int32) (done bool, err error)
	// translate turns a dequeued packet into an event of slot i; ok is false for
	// packets that are the poller's own business. (By value: a pointer
	// through an interface call would move Wait's buffer to the heap.)
	translate(e sockstate.OverlappedEntry) (ev Event, i int32, ok bool)
	// flush re-arms what the events that Waits returned left to re-arm,
	// before a Wait blocks: after the callers have handled them.
	flush()
	// close removes every registration and releases the backend's
	// handles, once no Wait runs.
	close() error
}

// newPoller makes a Poller on a new I/O completion port.
func newPoller(c config) (*Poller, error) {
	p := &Poller{state{backend: c.backend}}
	switch p.backend {
	case Auto:
		p.backend = AFD
		if sockstate.Supported() {
			p.backend = SocketNotifications
		}
	case SocketNotifications:
		if err := sockstate.LoadProcessSocketNotifications(); err != nil {
			return nil, err
		}
	case AFD:
	case Epoll:
		return nil, fmt.Errorf("poller: backend %v is Linux's: %w", p.backend, errors.ErrUnsupported)
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("poller: CreateIoCompletionPort: %w", err)
	}
	p.port = port
	if p.backend == AFD {
		p.impl, err = newAFD(p)
	} else {
		p.impl = &psn{p: p}
	}
	if err != nil {
		windows.CloseHandle(port)
		return nil, err
	}
	return p, nil
}

func (p *Poller) backendOf() Backend { return p.backend }

// wake is Wake: a packet for one Wait.
func (p *Poller) wake() error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	return p.post(wakeKey)
}

func (p *Poller) post(key uintptr) error {
	return windows.PostQueuedCompletionStatus(p.port, 0, key, nil)
}

// close is Close.
func (p *Poller) close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.closed = true
	err := p.post(closeKey)
	p.mu.Unlock()
	<-p.refuse()

	p.mu.Lock()
	defer p.mu.Unlock()
	p.bySocket.Reset()
	if cerr := p.impl.close(); err == nil {
		err = cerr
	}
	if cerr := windows.CloseHandle(p.port); err == nil {
		err = cerr
	}
	return err
}

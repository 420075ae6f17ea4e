// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/blocks"
	"github.com/sockstate/sockstate/internal/slotindex"
)

// Completion keys of the packets the poller posts itself. (A slot's ID
// could match one on a 32-bit build but for its low bits: maxSlots keeps
// them below these keys'.)
const (
	wakeKey  = ^uintptr(0)
	closeKey = ^uintptr(0) - 1
	afdKey   = ^uintptr(0) - 2
	rearmKey = ^uintptr(0) - 3 // something to re-arm for a blocked Wait (wakeToRearm)
)

// Poller is a readiness poller. Its methods may be called from several
// goroutines at once.
type Poller struct {
	backend Backend
	port    windows.Handle
	impl    backend

	mu       sync.Mutex
	slots    blocks.Array[slot] // slots[:used] have been handed out
	used     int32
	free     []int32
	bySocket slotindex.Table // the active slots, by socket
	closed   bool
	waiters  sync.WaitGroup
	waiting  atomic.Int32 // Waits under way
	// spareWakes are Wakes dequeued in one batch beyond the one that
	// batch's Wait consumed and beyond the Waits there were to release:
	// each makes a Wait that starts return at once.
	spareWakes int
	waits      uint64 // Waits started: each Wait's number
}

// backend is what differs between the OS mechanisms. Its methods run with
// p.mu held, but baseHandle.
type backend interface {
	// baseHandle returns what arm will need of socket s, found without
	// p.mu before Add takes it: the AFD backend's base handle, 0 for the
	// other.
	baseHandle(s windows.Handle) (windows.Handle, error)
	// arm registers (or re-registers) slot i with its interest and mode.
	// It may leave its system call to the caller, to be made without
	// p.mu (see armCall).
	arm(i int32) (armCall, error)
	// remove starts the removal of slot i; done means that it is freed
	// already, with no packet to wait for.
	remove(i int32) (done bool, err error)
	// translate turns a dequeued packet into an event of slot i; ok is false for
	// packets that are the poller's own business. (By value: a pointer
	// through an interface call would move Wait's buffer to the heap.)
	translate(e sockstate.OverlappedEntry) (ev Event, i int32, ok bool)
	// flush re-arms what the last events left to re-arm, before a Wait
	// blocks: after the caller has handled them. Each call takes one
	// (ok), oldest first, and may leave its system call to the caller in
	// c (see armCall; the zero value is none), which rearm makes; or all
	// at once, under the lock, reporting none taken. (By value: a slice
	// through an interface call would move rearm's batch to the heap.)
	flush() (c armCall, ok bool)
	// toRearm counts what is left to re-arm: a Wait takes no more than
	// was there when it began, or it could re-arm for ever what other
	// Waits report meanwhile.
	toRearm() int
	// close releases the backend's handles once no Wait runs.
	close()
}

// New returns a Poller on a new I/O completion port.
func New(opts ...Option) (*Poller, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	p := &Poller{backend: c.backend}
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
	default:
		return nil, fmt.Errorf("poller: unknown backend %v", p.backend)
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

// Backend reports the backend in use.
func (p *Poller) Backend() Backend { return p.backend }

// Wake makes one Wait return at once (with the events it has, maybe none):
// k Wakes release k Waits, those that are blocked and, for the rest, the
// next ones to start. One Wake per goroutine is a way to stop them.
func (p *Poller) Wake() error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	return p.post(wakeKey)
}

func (p *Poller) post(key uintptr) error {
	return windows.PostQueuedCompletionStatus(p.port, 0, key, nil)
}

// wakeToRearm makes a blocked Wait re-arm what was left to re-arm after
// it began, which would otherwise wait for a Wait to return: its packet
// is no event, and a Wait with none re-arms before it blocks again
// (deliver). A Wait that starts later re-arms it anyway. Called with p.mu
// held.
func (p *Poller) wakeToRearm() {
	if p.waiting.Load() > 0 {
		// Posting fails only for want of memory; then it waits for a
		// Wait to return, as without the packet.
		p.post(rearmKey)
	}
}

// Close wakes every Wait, which returns ErrClosed, waits for them to
// return, removes every registration and releases the poller's handles.
// The sockets stay open: they are the caller's.
func (p *Poller) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.closed = true
	err := p.post(closeKey)
	p.mu.Unlock()
	p.waiters.Wait()

	p.mu.Lock()
	defer p.mu.Unlock()
	p.bySocket.Reset()
	for i := range p.used {
		if sl := p.at(i); sl.state == slotActive {
			sl.state = slotDeleting
			if done, _ := p.impl.remove(i); done {
				p.release(i)
			}
		}
	}
	p.impl.close()
	if cerr := windows.CloseHandle(p.port); err == nil {
		err = cerr
	}
	return err
}

// lock locks p, unless it is closed.
func (p *Poller) lock() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	return nil
}

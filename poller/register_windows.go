// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// Add registers socket s (a Winsock socket) under key with an interest and
// a mode. A socket that is registered already is refused with an error
// matching ErrAlreadyRegistered, as epoll refuses it with EEXIST: a second
// Add is usually a slip in the caller's bookkeeping. Modify is the way to
// change a registration. (A socket closed without Delete may keep its
// handle registered: see Delete.)
func (p *Poller) Add(s Socket, key uint64, interest Interest, mode Mode) error {
	if err := p.lock(); err != nil {
		return err // a closed poller refuses all with ErrClosed
	}
	defer p.mu.Unlock()
	if err := check(s, interest, mode); err != nil {
		return err
	}
	if _, ok := p.slotOf(s); ok {
		return fmt.Errorf("poller: Add of socket %#x: %w", uintptr(s), ErrAlreadyRegistered)
	}
	base, err := p.impl.baseHandle(s)
	if err != nil {
		return err
	}
	i, err := p.alloc()
	if err != nil {
		return err
	}
	sl := p.at(i)
	sl.socket, sl.key, sl.interest, sl.mode, sl.base, sl.state = s, key, interest, mode, base, slotActive
	if err := p.impl.arm(i); err != nil {
		p.release(i)
		return err
	}
	sl.armed = true
	p.bySocket.Put(uintptr(s), i, (*slotSockets)(p))
	return nil
}

// Modify changes the key, interest or mode of socket s, and re-arms a
// one-shot registration that has fired. Changing only the key of an armed
// registration makes no system call. If it returns an error, the
// registration is as it was: its key, interest and mode, armed or not.
func (p *Poller) Modify(s Socket, key uint64, interest Interest, mode Mode) error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if err := check(s, interest, mode); err != nil {
		return err
	}
	i, ok := p.slotOf(s)
	if !ok {
		return ErrNotRegistered
	}
	sl := p.at(i)
	if sl.armed && sl.interest == interest && sl.mode == mode {
		sl.key = key
		return nil
	}
	// A refused Modify changes nothing: the OS holds the old registration
	// (or, for a one-shot that has fired, none), and so does the slot, so
	// that a retry makes the call again.
	prev := *sl
	sl.key, sl.interest, sl.mode = key, interest, mode
	if err := p.impl.arm(i); err != nil {
		sl.key, sl.interest, sl.mode = prev.key, prev.interest, prev.mode
		return err
	}
	sl.armed = true
	return nil
}

// Delete removes socket s. It returns at once, also while other goroutines
// Wait; the poller frees the registration when the OS confirms. No event of
// s is dequeued after Delete returns (a Wait that dequeued one just before
// may still return it). If the OS refuses the removal, Delete returns its
// error and s stays registered: the call may be made again.
//
// Call it before closesocket. A socket closed without Delete is noticed
// only on AFD and only while the poller has a poll out for it (Level and
// Edge registrations, and one-shot ones that are armed): then the poller
// frees the registration by itself. A one-shot registration that has
// fired, and every registration on ProcessSocketNotifications, keep the
// handle registered until Delete or Close, and Add refuses the handle
// meanwhile. So after closing a socket without Delete, call Delete with
// its handle before adding a socket that may have been given the same
// handle: it returns nil, or ErrNotRegistered if the poller has noticed
// the close already.
func (p *Poller) Delete(s Socket) error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	i, ok := p.slotOf(s)
	if !ok {
		return ErrNotRegistered
	}
	return p.drop(i)
}

// drop starts the removal of slot i and unmaps it; if the OS refuses the
// removal, the slot stays as it was.
func (p *Poller) drop(i int32) error {
	sl := p.at(i)
	done, err := p.impl.remove(i)
	if err != nil {
		return err
	}
	p.bySocket.Delete(uintptr(sl.socket), (*slotSockets)(p))
	sl.state = slotDeleting
	if done {
		p.release(i)
	}
	return nil
}

func check(s Socket, interest Interest, mode Mode) error {
	switch {
	case s == windows.InvalidHandle || s == 0:
		return errors.New("poller: invalid socket handle")
	case interest&^(Readable|Writable|HangUp|Error) != 0:
		return fmt.Errorf("poller: interest %v: only Readable, Writable, HangUp and Error can be asked for", interest)
	case mode > OneShotEdge:
		return fmt.Errorf("poller: unknown mode %v", mode)
	}
	return nil
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// insert is Add's registration of socket s, with p.mu held (table.go's
// add). It looks the socket up before it asks the OS anything of it, so
// that a handle registered already is refused whatever the OS says of it
// (a closed one is no socket for Windows).
func (p *Poller) insert(s Socket, key uint64, interest Interest, mode Mode) error {
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

// reregister is Modify's system call for slot i, with p.mu held
// (table.go's modify).
func (p *Poller) reregister(i int32, _ Socket, key uint64, interest Interest, mode Mode) error {
	sl := p.at(i)
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

// delete is Delete. AFD reports the close of a socket that has a poll
// out (Level, Edge, an armed one-shot): then the poller frees the slot
// itself; a fired one-shot, and every registration on
// ProcessSocketNotifications, stay until Delete or Close.
func (p *Poller) delete(s Socket) error {
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

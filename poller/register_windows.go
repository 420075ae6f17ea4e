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
// handle registered: see Delete.) Like Wait, it may first yield the
// processor.
func (p *Poller) Add(s Socket, key uint64, interest Interest, mode Mode) error {
	yield() // see yieldEvery
	if err := p.lock(); err != nil {
		return err // a closed poller refuses all with ErrClosed
	}
	err := check(s, interest, mode)
	p.mu.Unlock()
	if err != nil {
		return err
	}
	base, err := p.impl.baseHandle(s) // a system call: without the lock
	if err != nil {
		return err
	}
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if _, ok := p.slotOf(s); ok {
		return fmt.Errorf("poller: Add of socket %#x: %w", uintptr(s), ErrAlreadyRegistered)
	}
	i, err := p.alloc()
	if err != nil {
		return err
	}
	sl := p.at(i)
	sl.socket, sl.key, sl.interest, sl.mode, sl.base, sl.state = s, key, interest, mode, base, slotActive
	c, err := p.impl.arm(i)
	if err != nil {
		p.release(i)
		return err
	}
	sl.armed = true
	p.bySocket.Put(uintptr(s), i, (*slotSockets)(p))
	c.forget = true
	return p.startCall(c)
}

// Modify changes the key, interest or mode of socket s, and re-arms a
// one-shot registration that has fired. Changing only the key of an armed
// registration makes no system call. If it returns an error, the
// registration is as it was: its key, interest and mode, armed or not
// (or as a Delete or Modify of s that another goroutine made meanwhile
// left it). Like Wait, it may first yield the processor.
func (p *Poller) Modify(s Socket, key uint64, interest Interest, mode Mode) error {
	yield() // see yieldEvery
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
	if sl.armed && sl.interest == interest && sl.mode == mode && sl.afd.starting == 0 {
		// (Not while another call's poll starts: if that start failed,
		// the registration would be put back, this key with it.)
		sl.key = key
		return nil
	}
	// A refused Modify changes nothing: the OS holds the old registration
	// (or, for a one-shot that has fired, none), and so does the slot, so
	// that a retry makes the call again.
	prev := settings{sl.key, sl.interest, sl.mode, sl.armed}
	sl.key, sl.interest, sl.mode = key, interest, mode
	c, err := p.impl.arm(i)
	if err != nil {
		sl.key, sl.interest, sl.mode = prev.key, prev.interest, prev.mode
		return err
	}
	sl.armed = true
	c.prev = prev
	return p.startCall(c)
}

// startCall makes the call that arm left, if any, with p.mu released, and
// settles it (a failed start puts the slot back as c says): p.mu is held
// when it is called and when it returns. Close waits for it as for a
// Wait.
func (p *Poller) startCall(c armCall) error {
	if c.b == nil {
		return nil
	}
	p.waiters.Add(1)
	defer p.waiters.Done()
	p.mu.Unlock()
	err := c.call()
	p.mu.Lock()
	return c.b.settle(c, err)
}

// rearm re-arms the Level and Edge sockets that Waits reported before it
// began (flush), before a Wait blocks: on AFD it makes their system calls
// with p.mu released, in batches, as startCall makes one, and settles them
// (a refused one frees its slot, as if its socket had closed; one whose
// starts are at their bound is set aside for a later Wait). p.mu is
// held when it is called and when it returns; the caller is counted in
// p.waiters.
func (p *Poller) rearm() {
	var calls [16]armCall
	var errs [len(calls)]error
	for left := p.impl.toRearm(); left > 0; {
		n := 0
		for n < len(calls) && left > 0 {
			left--
			c, ok := p.impl.flush()
			if !ok {
				left = 0 // none left, or all done at once
			} else if c.b != nil {
				calls[n] = c
				n++
			}
		}
		if n == 0 {
			continue
		}
		p.mu.Unlock()
		for k := range n {
			errs[k] = calls[k].call()
		}
		p.mu.Lock()
		for k := range n {
			calls[k].b.settle(calls[k], errs[k])
		}
	}
}

// Delete removes socket s. It returns at once, also while other goroutines
// Wait; the poller frees the registration when the OS confirms. No event of
// s is dequeued after Delete returns (a Wait that dequeued one just before
// may still return it). If the OS refuses the removal, Delete returns its
// error and s stays registered: the call may be made again. (On AFD, a
// Delete that comes while another goroutine's Add, Modify or Wait starts a
// poll of s leaves the cancel of the poll to that call and returns nil:
// a refusal then, which cancels of AFD polls are not known to meet, is
// not reported.)
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
// the close already. Like Wait, it may first yield the processor.
func (p *Poller) Delete(s Socket) error {
	yield() // see yieldEvery
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

func check(s windows.Handle, interest Interest, mode Mode) error {
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

// call makes the call, without the poller's lock: through startHook if a
// test has set it.
func (c armCall) call() error {
	if startHook != nil {
		return startHook(c.start)
	}
	return c.start()
}

// startHook, set only by tests, makes the call of startCall or rearm
// (start) once the lock is released: the seam for what other goroutines
// do before the call and after it, before it is settled.
var startHook func(start func() error) error

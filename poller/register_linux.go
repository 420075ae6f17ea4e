// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
	"math"

	"golang.org/x/sys/unix"
)

// Add registers descriptor s (a socket, or anything else epoll takes: a
// pipe, an eventfd) under key with an interest and a mode. The poller
// keeps the descriptor's number, never a duplicate of it. A descriptor
// that is registered already is refused with an error matching
// ErrAlreadyRegistered (epoll's EEXIST): Modify is the way to change a
// registration. A descriptor that was closed without Delete is no longer
// in the kernel's epoll set (unless another descriptor of its socket is
// open: see Delete), so a new socket given its number is accepted, and
// takes the place of the stale registration.
func (p *Poller) Add(s Socket, key uint64, interest Interest, mode Mode) error {
	if err := p.lock(); err != nil {
		return err // a closed poller refuses all with ErrClosed
	}
	defer p.mu.Unlock()
	if err := check(s, interest, mode); err != nil {
		return err
	}
	i, err := p.alloc()
	if err != nil {
		return err
	}
	sl := p.at(i)
	sl.fd, sl.key, sl.interest, sl.mode, sl.armed, sl.active = int32(s), key, interest, mode, true, true
	if err := p.register(i, unix.EPOLL_CTL_ADD, epollEvents(interest, mode)); err != nil {
		p.release(i)
		if errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("poller: Add of descriptor %d: %w", s, ErrAlreadyRegistered)
		}
		return err
	}
	if old, ok := p.slotOf(s); ok {
		p.drop(old) // its descriptor was closed without Delete
	}
	p.bySocket.Put(uintptr(s), i, (*slotFds)(p))
	return nil
}

// Modify changes the key, interest or mode of descriptor s, and re-arms a
// one-shot registration that has fired. Changing only the key of an armed
// registration makes no system call. If it returns an error, the
// registration is as it was, but for one whose descriptor was closed
// without Delete: Modify then drops it and returns an error matching
// ErrNotRegistered.
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
	if err := p.register(i, unix.EPOLL_CTL_MOD, epollEvents(interest, mode)); err != nil {
		if closedUnregistered(err) {
			p.drop(i)
			return fmt.Errorf("poller: Modify of descriptor %d, closed without Delete: %w", s, ErrNotRegistered)
		}
		return err
	}
	sl.key, sl.interest, sl.mode, sl.armed, sl.muted = key, interest, mode, true, false
	return nil
}

// Delete removes descriptor s. No Wait that starts after Delete returns
// reports s, and no event of s that a Wait under way takes from the kernel
// after Delete has begun reaches the caller (one that Wait handled just
// before may still be returned). If the kernel refuses the removal for a
// reason other than a closed descriptor, Delete returns its error and s
// stays registered.
//
// Call it before closing s. A descriptor closed without Delete leaves the
// kernel's epoll set when its socket closes, which is at once unless
// another descriptor of the socket is open (a dup, a copy in a child
// process, one passed over a Unix socket). Until then the kernel keeps the
// registration under the closed number, which no call can reach: while it
// is registered here its events are reported under its key; Delete with
// its number, which returns nil, drops its events, which a Level
// registration that stays ready keeps bringing to every epoll_wait (Wait
// takes them at full CPU until the socket's last descriptor closes). So
// Delete first, close after.
func (p *Poller) Delete(s Socket) error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if err := checkDescriptor(s); err != nil {
		return err
	}
	i, ok := p.slotOf(s)
	if !ok {
		return ErrNotRegistered
	}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, s, nil); err != nil && !closedUnregistered(err) {
		return fmt.Errorf("poller: epoll_ctl DEL of descriptor %d: %w", s, err)
	}
	p.drop(i)
	return nil
}

// register makes slot i's registration in the kernel (op is
// EPOLL_CTL_ADD or EPOLL_CTL_MOD) with the epoll events, under the slot's
// next generation; if the kernel refuses, the slot is as it was.
func (p *Poller) register(i int32, op int, events uint32) error {
	sl := p.at(i)
	ev := unix.EpollEvent{Events: events, Fd: i, Pad: int32(sl.gen + 1)}
	if err := unix.EpollCtl(p.epfd, op, int(sl.fd), &ev); err != nil {
		if op == unix.EPOLL_CTL_ADD {
			return fmt.Errorf("poller: epoll_ctl ADD of descriptor %d: %w", sl.fd, err)
		}
		return fmt.Errorf("poller: epoll_ctl MOD of descriptor %d: %w", sl.fd, err)
	}
	sl.gen++
	return nil
}

// closedUnregistered reports whether epoll_ctl failed because the
// registration's descriptor was closed: its number is not open (EBADF) or
// names another file, which is not in the set (ENOENT).
func closedUnregistered(err error) bool {
	return errors.Is(err, unix.EBADF) || errors.Is(err, unix.ENOENT)
}

func check(s Socket, interest Interest, mode Mode) error {
	switch {
	case interest&^(Readable|Writable|HangUp|Error) != 0:
		return fmt.Errorf("poller: interest %v: only Readable, Writable, HangUp and Error can be asked for", interest)
	case mode > OneShotEdge:
		return fmt.Errorf("poller: unknown mode %v", mode)
	}
	return checkDescriptor(s)
}

func checkDescriptor(s Socket) error {
	if s < 0 || s > math.MaxInt32 {
		return fmt.Errorf("poller: invalid descriptor %d", s)
	}
	return nil
}

// epollEvents returns the epoll events of a registration. EPOLLERR and
// EPOLLHUP are always on: epoll adds them whatever it is asked.
func epollEvents(interest Interest, mode Mode) uint32 {
	var e uint32
	if interest&Readable != 0 {
		e |= unix.EPOLLIN
	}
	if interest&Writable != 0 {
		e |= unix.EPOLLOUT
	}
	if interest&HangUp != 0 {
		e |= unix.EPOLLRDHUP
	}
	if mode == Edge || mode == OneShotEdge {
		e |= unix.EPOLLET
	}
	if mode.oneShot() {
		e |= unix.EPOLLONESHOT
	}
	return e
}

// fromEpoll returns what epoll events tell: EPOLLRDHUP (the peer's FIN or
// reset) and EPOLLHUP (no more in either direction, a reset, or a socket
// never connected) are HangUp; EPOLLERR (a pending socket error: a reset,
// a failed connect) is Error.
func fromEpoll(e uint32) Interest {
	var i Interest
	if e&unix.EPOLLIN != 0 {
		i |= Readable
	}
	if e&unix.EPOLLOUT != 0 {
		i |= Writable
	}
	if e&(unix.EPOLLRDHUP|unix.EPOLLHUP) != 0 {
		i |= HangUp
	}
	if e&unix.EPOLLERR != 0 {
		i |= Error
	}
	return i
}

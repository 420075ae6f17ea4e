// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
	"math"

	"golang.org/x/sys/unix"
)

// insert is Add's registration of descriptor s, with p.mu held
// (table.go's add). The kernel refuses a descriptor registered already
// (EEXIST); a slot whose descriptor was closed without Delete, and whose
// number a new socket now has, gives way to the new registration.
func (p *Poller) insert(s Socket, key uint64, interest Interest, mode Mode) error {
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

// reregister is Modify's system call for slot i of socket s, with p.mu
// held (table.go's modify).
func (p *Poller) reregister(i int32, s Socket, key uint64, interest Interest, mode Mode) error {
	sl := p.at(i)
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

// delete is Delete. A descriptor closed without Delete leaves the
// kernel's epoll set when its socket closes, which is at once unless
// another descriptor of the socket is open (a dup, a copy in a child
// process, one passed over a Unix socket). Until then the kernel keeps the
// registration under the closed number, which no call can reach; Delete
// with its number returns nil and drops its events.
func (p *Poller) delete(s Socket) error {
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
	if err := ctl(p.epfd, unix.EPOLL_CTL_DEL, s, nil); err != nil && !closedUnregistered(err) {
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
	if err := ctl(p.epfd, op, int(sl.fd), &ev); err != nil {
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

// fromEpoll returns what epoll events tell. HangUp is EPOLLRDHUP: the
// peer's FIN or reset (the kernel sets it with EPOLLIN once nothing more
// can come in). EPOLLHUP alone (a socket not connected yet, or shut down
// both ways here) is not the peer's doing and is not handed out: a
// registration reported with it alone is muted (see mute). EPOLLERR (a
// pending socket error: a reset, a failed connect) is Error.
func fromEpoll(e uint32) Interest {
	var i Interest
	if e&unix.EPOLLIN != 0 {
		i |= Readable
	}
	if e&unix.EPOLLOUT != 0 {
		i |= Writable
	}
	if e&unix.EPOLLRDHUP != 0 {
		i |= HangUp
	}
	if e&unix.EPOLLERR != 0 {
		i |= Error
	}
	return i
}

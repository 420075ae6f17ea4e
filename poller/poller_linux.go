// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/sockstate/sockstate/internal/blocks"
)

// state is a Poller's, on this system.
type state struct {
	epfd int // the epoll instance
	// wakefd is an eventfd in the epoll set, readable while wakes > 0 or
	// once the poller is closed: it is written and read under mu only.
	wakefd int

	table
	// wakes are the Wakes that no Wait has consumed yet: each releases one
	// Wait, blocked or the next to start.
	wakes   int
	counter [8]byte // the eventfd's counter, read and written under mu
}

// wakeIndex is the slot index in the eventfd's epoll data: no slot has
// it (slot indexes are at least 0).
const wakeIndex = -1

// newPoller makes a Poller on a new epoll instance.
func newPoller(c config) (*Poller, error) {
	switch c.backend {
	case Auto, Epoll:
	case SocketNotifications, AFD:
		return nil, fmt.Errorf("poller: backend %v is Windows's: %w", c.backend, errors.ErrUnsupported)
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("poller: epoll_create1: %w", err)
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("poller: eventfd: %w", err)
	}
	// Level triggered: while it is readable, every Wait that blocks is
	// woken, each in turn, so k Wakes reach k Waits and Close all of them.
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeIndex}
	if err := ctl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev); err != nil {
		unix.Close(wakefd)
		unix.Close(epfd)
		return nil, fmt.Errorf("poller: epoll_ctl of the eventfd: %w", err)
	}
	return &Poller{state{epfd: epfd, wakefd: wakefd}}, nil
}

func (p *Poller) backendOf() Backend { return Epoll }

// wake is Wake: a count of Wakes to consume, and the eventfd readable
// while it is above 0.
func (p *Poller) wake() error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if p.wakes == 0 {
		if err := p.signal(); err != nil {
			return err
		}
	}
	p.wakes++
	return nil
}

// signal makes the eventfd readable (it may be already). Called with p.mu
// held.
func (p *Poller) signal() error {
	binary.NativeEndian.PutUint64(p.counter[:], 1)
	if _, err := unix.Write(p.wakefd, p.counter[:]); err != nil {
		return fmt.Errorf("poller: write to the eventfd: %w", err)
	}
	return nil
}

// consumeWake takes one of the pending Wakes; the last one empties the
// eventfd, so that Waits block again. Called with p.mu held.
func (p *Poller) consumeWake() {
	p.wakes--
	if p.wakes == 0 {
		// It fails only if the counter is 0 already, which it is not
		// while wakes > 0: then the eventfd stays readable and Waits see
		// no Wake to take, at worst a spare wakeup each.
		unix.Read(p.wakefd, p.counter[:])
	}
}

// close is Close. The eventfd is left readable, so that every Wait
// blocked in epoll_wait returns (closing the epoll instance would not wake
// them); closing the epoll instance removes every registration.
func (p *Poller) close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.closed = true
	// The eventfd is never read again: it stays readable, and every Wait
	// blocked in epoll_wait, and any that gets there, returns. (Closing
	// the epoll instance would not wake them.)
	var err error
	if p.wakes == 0 {
		err = p.signal()
	}
	p.mu.Unlock()
	drained := p.refuse()
	if err != nil {
		// Waits may stay blocked: the descriptors stay open for them.
		return err
	}
	<-drained

	p.mu.Lock()
	defer p.mu.Unlock()
	p.bySocket.Reset()
	p.slots, p.used, p.free = blocks.Array[slot]{}, 0, nil
	err = unix.Close(p.epfd)
	if cerr := unix.Close(p.wakefd); err == nil {
		err = cerr
	}
	return err
}

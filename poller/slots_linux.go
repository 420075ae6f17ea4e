// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"math"

	"golang.org/x/sys/unix"
)

// slot is one registration. The kernel knows it by the 64 bits of its
// epoll data: the slot's index and its generation, which changes with
// every registration the poller makes (Add, a Modify that calls epoll_ctl,
// a mute) and when the slot is freed, so that an event that a Wait took
// from the kernel before the change is told apart from the registration's
// current ones, and an event of a deleted registration is never
// delivered, even to a slot used again (golang/go#59545 is what comes of
// an epoll data with no generation).
type slot struct {
	gen uint32
	// Where in the events of Wait number wait the slot was reported: a
	// second epoll_wait in one Wait adds to that event (one event a
	// registration a Wait).
	waitAt   int32
	fd       int32
	active   bool
	interest Interest
	mode     Mode
	armed    bool // a one-shot that has not fired (always true for others)
	// muted: the kernel holds the registration edge triggered, as its
	// last event was one the interest does not take (see mute).
	muted bool
	key   uint64
	wait  uint64 // the Wait that last reported the slot
}

// maxSlots bounds the slot indexes to what the int32 of the epoll data
// (and of the index table) holds.
const maxSlots = math.MaxInt32

// lookup returns the slot of a kernel event, or nil for an event of a
// registration that is no longer current.
func (p *Poller) lookup(e *unix.EpollEvent) (int32, *slot) {
	i := e.Fd
	if i < 0 || i >= p.used {
		return -1, nil
	}
	sl := p.at(i)
	if !sl.active || sl.gen != uint32(e.Pad) {
		return -1, nil
	}
	return i, sl
}

// slotOf returns the active slot that holds descriptor fd.
func (p *Poller) slotOf(fd int) (int32, bool) {
	return p.bySocket.Get(uintptr(fd), (*slotFds)(p))
}

// slotFds gives p.bySocket the descriptor of a slot.
type slotFds Poller

func (k *slotFds) Key(i int32) uintptr { return uintptr((*Poller)(k).at(i).fd) }

// drop unmaps slot i, which is active, and frees it.
func (p *Poller) drop(i int32) {
	p.bySocket.Delete(uintptr(p.at(i).fd), (*slotFds)(p))
	p.release(i)
}

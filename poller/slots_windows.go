// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"golang.org/x/sys/windows"
)

// slot is one registration. The kernel knows it by id(): its index and
// generation. Its fields are ordered so that it takes 48 bytes on a 64-bit
// build (TestSlotSize).
type slot struct {
	gen uint32
	// Where in the events of Wait number wait the slot was reported.
	waitAt   int32
	state    slotState
	interest Interest
	mode     Mode
	armed    bool // the OS will report it (not a one-shot that fired)
	afd      afdSlot
	socket   windows.Handle
	key      uint64
	base     windows.Handle // the AFD backend's: SIO_BASE_HANDLE of the socket
	// The Wait that last reported the slot: a packet queued again while
	// one Wait gathers events adds to that event (one event a socket a
	// Wait, as epoll). 64 bits: a number that came round again would match
	// a slot last reported that many Waits before, and add its event to
	// another socket's.
	wait uint64
}

type slotState uint8

const (
	slotFree     slotState = iota
	slotActive             // registered
	slotDeleting           // deleted; waiting for the OS to confirm
)

// IDs: the slot index plus one in the low 24 bits, the generation above.
// The top 16 values of the low bits are left to the poller's own keys
// (wakeKey and the rest), which a 32-bit ID could otherwise match.
const (
	indexBits = 24
	indexMask = 1<<indexBits - 1
	maxSlots  = indexMask - 16
)

func (p *Poller) id(index int32) uintptr {
	return uintptr(index+1) | uintptr(p.at(index).gen)<<indexBits
}

// lookup returns the slot an ID names, or nil for a stale or foreign ID.
func (p *Poller) lookup(id uintptr) (int32, *slot) {
	index := int32(id&indexMask) - 1
	if index < 0 || index >= p.used {
		return -1, nil
	}
	s := p.at(index)
	if s.state == slotFree || uintptr(s.gen)<<indexBits != id&^indexMask {
		return -1, nil
	}
	return index, s
}

// slotOf returns the active slot that holds socket s.
func (p *Poller) slotOf(s windows.Handle) (int32, bool) {
	return p.bySocket.Get(uintptr(s), (*slotSockets)(p))
}

// slotSockets gives p.bySocket the socket of a slot.
type slotSockets Poller

func (k *slotSockets) Key(i int32) uintptr { return uintptr((*Poller)(k).at(i).socket) }

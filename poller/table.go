// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sockstate/sockstate/internal/blocks"
	"github.com/sockstate/sockstate/internal/slotindex"
)

// table is the part of a Poller's state that every system's has: the
// slots, their index by socket, and the Waits under way.
type table struct {
	mu       sync.Mutex
	slots    blocks.Array[slot] // slots[:used] have been handed out
	used     int32
	free     []int32
	bySocket slotindex.Table // the active slots, by socket
	closed   bool
	waits    uint64 // numbers what deliver reports: each Wait on Windows, each gather on Linux

	// waiting is the Waits under way (underWay), which hold the OS's port
	// or epoll instance open, the Waits begun ever (a test's way to know
	// that one has begun, at no cost of its own), and closing, once Close
	// has begun: a Wait counts itself in (enter) without taking mu, and
	// Close waits for the last one out (drained, see refuse).
	waiting atomic.Uint64
	drained chan struct{}
}

// The parts of table.waiting.
const (
	underWay = 1<<32 - 1 // the Waits under way
	begun    = 1 << 32   // a Wait begun, counted in bits 32 to 62, which wrap
	closing  = 1 << 63   // Close has begun
)

// enter counts a Wait in, unless Close has begun.
func (p *Poller) enter() bool {
	for {
		v := p.waiting.Load()
		if v&closing != 0 {
			return false
		}
		// The count of Waits begun wraps within its bits, never into closing.
		if p.waiting.CompareAndSwap(v, (v+1+begun)&^closing) {
			return true
		}
	}
}

// leave counts a Wait out; the last one out after Close has begun lets
// Close go on.
func (p *Poller) leave() {
	if v := p.waiting.Add(^uint64(0)); v&closing != 0 && v&underWay == 0 {
		close(p.drained)
	}
}

// refuse is Close's, once, with p.closed set: enter refuses every Wait
// from now on, and the channel it returns is closed once the Waits under
// way have left (at once if none is).
func (p *Poller) refuse() <-chan struct{} {
	p.drained = make(chan struct{})
	if p.waiting.Or(closing)&underWay == 0 {
		close(p.drained)
	}
	return p.drained
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

// add is Add: the lock and the checks are the table's; what needs the OS
// is each system's insert.
func (p *Poller) add(s Socket, key uint64, interest Interest, mode Mode) error {
	if err := p.lock(); err != nil {
		return err // a closed poller refuses all with ErrClosed
	}
	defer p.mu.Unlock()
	if err := check(s, interest, mode); err != nil {
		return err
	}
	return p.insert(s, key, interest, mode)
}

// modify is Modify: a change of the key alone of an armed registration is
// the table's; what needs the OS is each system's reregister.
func (p *Poller) modify(s Socket, key uint64, interest Interest, mode Mode) error {
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
	if sl := p.at(i); sl.armed && sl.interest == interest && sl.mode == mode {
		sl.key = key
		return nil
	}
	return p.reregister(i, s, key, interest, mode)
}

// alloc takes a free slot, or a new one.
func (p *Poller) alloc() (int32, error) {
	if n := len(p.free); n > 0 {
		i := p.free[n-1]
		p.free = p.free[:n-1]
		return i, nil
	}
	if p.used >= maxSlots {
		return -1, fmt.Errorf("poller: more than %d registrations", maxSlots)
	}
	if int(p.used) == p.slots.Len() {
		p.slots.Grow()
	}
	p.used++
	return p.used - 1, nil
}

// at returns slot i.
func (p *Poller) at(i int32) *slot { return p.slots.At(int(i)) }

// release frees slot i, which is not mapped, for reuse under a new
// generation.
func (p *Poller) release(i int32) {
	sl := p.at(i)
	*sl = slot{gen: sl.gen + 1}
	p.free = append(p.free, i)
}

// millis rounds d up to whole milliseconds, the OS's unit, so that a short
// timeout is not a busy poll, and bounds it to most, what the OS's wait
// takes: a Wait whose time is not over when the OS's wait returns waits
// again.
func millis(d time.Duration, most int64) int64 {
	if d <= 0 {
		return 0
	}
	ms := d / time.Millisecond
	if d%time.Millisecond != 0 {
		ms++
	}
	return min(int64(ms), most)
}

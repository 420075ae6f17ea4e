// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/sys/unix"
)

// wait is Wait. It takes what is ready first (poll), and blocks in
// epoll_wait only if nothing is; EINTR is retried with the time left. The
// time counts from the first epoll_wait that blocks, or the first poll
// that brings the caller nothing, whichever comes first (before it, a
// poll and what Wait made of it: microseconds). The kernel reports
// EPOLLHUP (and EPOLLERR) whatever the interest: a Level or one-shot
// registration reported with nothing its interest takes (a hang-up without
// HangUp in the interest, as on a socket reset or never connected once
// its error is read) is muted: held edge triggered in the kernel, so that
// it costs no CPU while nothing changes, until it reports something the
// interest takes (a Level one is then level triggered again) or Modify
// changes it.
func (p *Poller) wait(events []Event, timeout time.Duration) (int, error) {
	if !p.enter() {
		return 0, ErrClosed
	}
	defer p.leave()
	if len(events) == 0 {
		return 0, errors.New("poller: Wait needs room for at least one event")
	}
	var raw [64]unix.EpollEvent
	var deadline time.Time // set by msLeft, once the Wait counts its time
	for {
		batch := min(len(events), len(raw))
		got, err := poll(p.epfd, raw[:batch])
		ms := 0 // a poll: what is ready now
		if got == 0 && err == nil {
			if ms = msLeft(timeout, &deadline); ms != 0 {
				got, err = unix.EpollWait(p.epfd, raw[:batch], ms)
			}
		}
		switch {
		case err == unix.EINTR:
			continue // with the time left, if any
		case err != nil:
			return 0, fmt.Errorf("poller: epoll_wait: %w", err)
		case got == 0 && ms >= 0 && ms < math.MaxInt32:
			// The eventfd is not readable (no Wake, no Close to see), and
			// the time is over: the kernel waits no less than it is asked.
			return 0, nil
		}
		n, woken, closed := p.gather(&raw, got, batch, events)
		switch {
		case closed:
			return 0, ErrClosed
		case woken || n > 0:
			return n, nil
		case msLeft(timeout, &deadline) == 0:
			return 0, nil
		}
	}
}

// msLeft is the time left to a Wait of timeout, in epoll's milliseconds,
// rounded up, at most math.MaxInt32: -1 for ever, 0 once it is over. The
// first call sets the deadline, and returns all of timeout.
func msLeft(timeout time.Duration, deadline *time.Time) int {
	switch {
	case timeout < 0:
		return -1
	case timeout == 0:
		return 0
	case deadline.IsZero():
		*deadline = time.Now().Add(timeout)
		return int(millis(timeout, math.MaxInt32))
	}
	return int(millis(time.Until(*deadline), math.MaxInt32))
}

// gather turns the got events in raw, of an epoll_wait of batch, into
// events, and takes whatever else is ready already, without waiting,
// while a full batch brings a new registration and events has room
// (Level ones come again in each batch). It holds p.mu from the first
// batch to the last, under one number, so that no other Wait reports a
// registration between two batches of this one: the slot's record of the
// hold that reported it last (deliver) stays this one's, and the
// registration's event in a later batch adds to the one it has instead of
// making a second one.
func (p *Poller) gather(raw *[64]unix.EpollEvent, got, batch int, events []Event) (n int, woken, closed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waits++
	for {
		k, w, c := p.deliver(raw[:got], events, n)
		n += k
		if w || c || got < batch || k == 0 || n == len(events) {
			return n, w, c
		}
		batch = min(len(events)-n, len(raw))
		var err error
		if got, err = poll(p.epfd, raw[:batch]); err != nil || got == 0 {
			return n, false, false // the events first; an error comes again to the next Wait
		}
	}
}

// deliver turns the kernel's events into the caller's, with p.mu held,
// in the hold numbered p.waits, which has events[:n0] already. It
// consumes a Wake if the eventfd is among them and one is pending (k
// Wakes release k Waits: the eventfd stays readable, and wakes the Waits
// that block, and the poll of each that starts, until the last is
// consumed).
func (p *Poller) deliver(raw []unix.EpollEvent, events []Event, n0 int) (n int, woken, closed bool) {
	if p.closed {
		return 0, false, true
	}
	wait := p.waits
	wake := false
	for k := range raw {
		e := &raw[k]
		if e.Fd == wakeIndex {
			wake = true
			continue
		}
		i, sl := p.lookup(e)
		if sl == nil || !sl.armed {
			continue // not current, or a one-shot that fired while muted
		}
		ev := fromEpoll(e.Events) & (sl.interest | Error)
		switch {
		case ev == 0:
			p.mute(i)
			continue
		case sl.mode.oneShot():
			sl.armed = false
			if sl.muted {
				p.disarm(i)
			}
		case sl.muted:
			p.unmute(i)
		}
		if sl.wait == wait { // gather holds p.mu from its first batch
			events[sl.waitAt].Key = sl.key
			events[sl.waitAt].Events |= ev
			continue
		}
		sl.wait, sl.waitAt = wait, int32(n0+n)
		events[n0+n] = Event{Key: sl.key, Events: ev}
		n++
	}
	if wake && p.wakes > 0 {
		p.consumeWake()
		woken = true
	}
	return n, woken, closed
}

// mute holds slot i edge triggered in the kernel: it was reported with
// nothing its interest takes (EPOLLHUP alone, which nothing clears on a
// closed socket), which a level-triggered registration, or a one-shot one
// armed again, would report again at once, at every epoll_wait (a
// registration made while its condition holds is reported at once, also
// edge triggered). Edge triggered and not one-shot, the kernel reports it
// again only when something happens to the socket. An Edge registration
// is that already. If the kernel refuses (the descriptor was closed
// without Delete, and another descriptor of the socket is open), nothing
// can reach the registration: it is left as it is, and not marked muted.
func (p *Poller) mute(i int32) {
	sl := p.at(i)
	if sl.muted || sl.mode == Edge {
		return
	}
	if p.register(i, unix.EPOLL_CTL_MOD, epollEvents(sl.interest, Edge)) == nil {
		sl.muted = true
	}
}

// disarm disarms muted one-shot slot i in the kernel once it has fired:
// muted, it is edge triggered there and not one-shot. Armed one-shot
// with no interest, it is reported at most once more, at once if it is
// hung up, and that report goes (the slot is not armed).
func (p *Poller) disarm(i int32) {
	if p.register(i, unix.EPOLL_CTL_MOD, epollEvents(0, OneShotEdge)) == nil {
		p.at(i).muted = false
	}
}

// unmute makes the muted Level slot i level triggered again: it has
// reported something its interest takes.
func (p *Poller) unmute(i int32) {
	sl := p.at(i)
	if sl.mode == Level && p.register(i, unix.EPOLL_CTL_MOD, epollEvents(sl.interest, Level)) == nil {
		sl.muted = false
	}
}

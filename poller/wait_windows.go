// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
)

// wait is Wait.
func (p *Poller) wait(events []Event, timeout time.Duration) (int, error) {
	if err := p.lock(); err != nil {
		return 0, err
	}
	if len(events) == 0 {
		p.mu.Unlock()
		// A packet dequeued with nowhere to go would be an event lost.
		return 0, errors.New("poller: Wait needs room for at least one event")
	}
	if p.spareWakes > 0 {
		p.spareWakes--
		p.mu.Unlock()
		return 0, nil
	}
	p.waits++
	wait := p.waits
	p.impl.flush() // what the callers have handled since their Waits
	p.enter()      // it cannot fail: Close marks p closed, under p.mu, before refuse
	defer p.leave()
	p.mu.Unlock()

	var raw [64]sockstate.OverlappedEntry
	var deadline time.Time // read only with a timeout to wait for
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for first := true; ; first = false {
		ms := uint32(windows.INFINITE)
		switch {
		case timeout >= 0 && first:
			ms = uint32(millis(timeout, windows.INFINITE-1))
		case timeout >= 0:
			ms = uint32(millis(time.Until(deadline), windows.INFINITE-1))
		}
		batch := min(len(events), len(raw)) // one event at most a packet
		got, err := sockstate.Dequeue(p.port, raw[:batch], ms)
		switch {
		case err != nil:
			return 0, fmt.Errorf("poller: GetQueuedCompletionStatusEx: %w", err)
		}
		n, woken, closed := p.gather(&raw, got, batch, events, wait)
		switch {
		case closed:
			return 0, ErrClosed
		case woken || n > 0:
			return n, nil
		case timeout == 0 || timeout > 0 && !time.Now().Before(deadline):
			return 0, nil
		}
	}
}

// gather turns the got packets in raw, of a dequeue of batch, into events
// of the Wait numbered wait, and takes whatever else is queued already, without waiting, while
// a full batch brings a new event and events has room. It holds p.mu from
// the first packet to the last, so that no other Wait reports a socket
// between two batches of this one: the slot's record of the Wait that
// reported it last (deliver) stays this Wait's, and a packet of the socket
// in a later batch adds to its event instead of making a second one. With
// no event for the caller, it re-arms what other Waits' events left to
// re-arm before the Wait blocks again, as a Wait that starts does.
func (p *Poller) gather(raw *[64]sockstate.OverlappedEntry, got, batch int, events []Event, wait uint64) (n int, woken, closed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		k, w, c := p.deliver(raw[:got], events, n, wait)
		n += k
		if w || c {
			return n, w, c
		}
		// A full batch: more may be queued. Only while a batch brings a
		// new event: an OS that queues a level condition again as soon as
		// its packet leaves would otherwise feed this loop for ever with
		// events merged into those it has.
		if got < batch || k == 0 || n == len(events) {
			break
		}
		batch = min(len(events)-n, len(raw))
		var err error
		if got, err = sockstate.Dequeue(p.port, raw[:batch], 0); err != nil || got == 0 {
			break // the events first; an error comes again to the next Wait
		}
	}
	if n == 0 {
		p.impl.flush()
	}
	return n, false, false
}

// deliver turns dequeued packets into events, with p.mu held. A Wait
// consumes at most one Wake: of the other wake packets of the batch, one
// is posted again for each other Wait under way, and the rest kept as
// spareWakes for the Waits that start next (posting them all again would
// make each Wait post up to 63 packets). The Wait numbered wait has
// events[:n0] already.
func (p *Poller) deliver(raw []sockstate.OverlappedEntry, events []Event, n0 int, wait uint64) (n int, woken, closed bool) {
	wakes := 0
	for i := range raw {
		switch raw[i].CompletionKey {
		case wakeKey:
			wakes++
			continue
		case closeKey:
			closed = true
			continue
		}
		ev, slot, ok := p.impl.translate(raw[i])
		if !ok {
			continue
		}
		sl := p.at(slot)
		if sl.wait == wait { // gather holds p.mu from this Wait's first batch
			// Reported already in this Wait: one event, under the key that
			// is current now (a Modify may have changed it meanwhile).
			events[sl.waitAt].Key = ev.Key
			events[sl.waitAt].Events |= ev.Events
			continue
		}
		sl.wait, sl.waitAt = wait, int32(n0+n)
		events[n0+n] = ev
		n++
	}
	// Posting cannot fail while a Wait holds the port open, but for want
	// of memory.
	if closed {
		p.post(closeKey) // for the next Wait
	} else if extra := wakes - 1; extra > 0 {
		again := min(extra, int(p.waiting.Load()&underWay)-1) // the other Waits under way
		for range again {
			p.post(wakeKey) // for another Wait
		}
		p.spareWakes += extra - again
	}
	return n, wakes > 0, closed
}

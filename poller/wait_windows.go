// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
)

// yieldEvery is how often, at most, a Wait yields the processor
// (runtime.Gosched) before it calls the OS, when Waits are that frequent.
// It is a variable only so that BenchmarkWaitYield can turn the yield off
// (DisableYield, in a _test.go file); nothing else sets it.
//
// Go's runtime preempts a goroutine that has run 10 ms without passing
// through its scheduler, and a goroutine that loops on Wait and handles the
// events with system calls never passes through it. When the preemption
// finds that goroutine in a system call, the runtime takes its processor
// and hands it to another thread, and its monitor thread goes back to
// waking every 20 µs, in timers that under Wine are Wine server requests,
// kernel round trips. A Gosched every 5 ms or more often keeps the
// preemption away from a goroutine that comes back to Wait that often;
// with nothing else to run it costs no system call, and with idle
// processors it wakes one thread at most. The pace is the poller's: with k
// Waits under way, one of them yields every 5/k ms, so that each of k
// goroutines looping on the poller still yields about every 5 ms.
//
// The yield does not reach a goroutine that holds its processor 10 ms or
// more between two Waits, handling their events with system calls: the
// runtime takes the processor in those calls, even with one to spare.
// Under Wine at 10,000 connections, where every call waits for a CPU that
// the wineserver keeps busy, that is how it took the echo server's in
// three quarters of its system calls at GOMAXPROCS 3, its handling of a
// Wait's events lasting that long (the scheduling pass of
// "scripts/bench.sh conns"; README, "Connection scale"; about half while
// Modify held the poller's lock across its call, likely as a goroutine that
// waited for the lock passed through the scheduler). With no processor to
// spare (GOMAXPROCS 1 there) it takes it whatever the yields. A yield in
// Modify too, tried ad hoc at GOMAXPROCS 3 (with that lock and without),
// made that echo slower.
//
// "scripts/bench.sh yield" runs BenchmarkWaitYield with the yield and
// without it. In one run (10 rounds, under Wine pinned to one CPU) a Wait
// among 10 and among 1,000 idle sockets made 4.0 and 3.9 requests with the
// yield, the C loop's 4 ("scripts/bench.sh requests"), and 5.9 and 7.8
// without it; it took 97 µs against 114 µs among 10 (p=0.007), and among
// 1,000 the same time either way (127 µs, p=0.80).
var yieldEvery = 5 * time.Millisecond

// Wait waits up to timeout (forever if negative) for events, fills events
// with them and returns how many. It blocks at most once: after the first
// packets arrive it takes whatever else is queued already, without
// waiting, until events is full, so a Wait is not limited to one batch of
// the OS. It returns 0 and a nil error on a timeout, n (maybe 0) and a nil
// error when a Wake releases it, and ErrClosed once the poller is closed.
// It does not allocate when it returns events. Before it calls the OS it
// may yield the processor (runtime.Gosched), about once every 5 ms in a
// goroutine that loops on Wait, which keeps Go's runtime from taking the
// processor away from it in a system call while it comes back to Wait
// within 10 ms and a processor is spare (see yieldEvery).
func (p *Poller) Wait(events []Event, timeout time.Duration) (int, error) {
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
	p.waiters.Add(1)
	p.waiting.Add(1)
	p.waits++
	wait := p.waits
	p.impl.flush() // re-arm what the caller has handled since its last Wait
	p.mu.Unlock()
	defer p.waiters.Done()
	defer p.waiting.Add(-1)

	now := p.yield(time.Now())
	var raw [64]sockstate.OverlappedEntry
	deadline := now.Add(timeout)
	n := 0
	for first := true; ; first = false {
		ms := uint32(windows.INFINITE)
		switch {
		case n > 0:
			ms = 0 // only what is queued already: never block twice
		case timeout >= 0 && first:
			ms = millis(timeout)
		case timeout >= 0:
			ms = millis(time.Until(deadline))
		}
		batch := min(len(events)-n, len(raw)) // one event at most a packet
		got, err := sockstate.Dequeue(p.port, raw[:batch], ms)
		switch {
		case err != nil && n > 0:
			return n, nil // the events first; the error comes again
		case err != nil:
			return 0, fmt.Errorf("poller: GetQueuedCompletionStatusEx: %w", err)
		case got == 0: // the time ran out
			return n, nil
		}
		k, woken, closed := p.deliver(raw[:got], events, n, wait)
		n += k
		switch {
		case closed:
			return 0, ErrClosed
		case woken:
			return n, nil
		case got == batch && k > 0 && n < len(events):
			// A full batch: more may be queued. Only while a batch brings
			// a new event: an OS that queues a level condition again as
			// soon as its packet leaves would otherwise feed this loop
			// for ever with events merged into those it has.
			continue
		case n > 0:
			return n, nil
		case timeout >= 0 && !time.Now().Before(deadline):
			return 0, nil
		}
	}
}

// yield calls runtime.Gosched if no Wait has for yieldEvery divided by the
// Waits under way. It returns the time: now, or the time after Gosched.
func (p *Poller) yield(now time.Time) time.Time {
	t := int64(now.Sub(p.start))
	last := p.lastYield.Load()
	every := int64(yieldEvery) / int64(max(1, p.waiting.Load()))
	if t-last < every || !p.lastYield.CompareAndSwap(last, t) {
		return now
	}
	runtime.Gosched()
	return time.Now()
}

// deliver turns dequeued packets into events. A Wait consumes at most one
// Wake: of the other wake packets of the batch, one is posted again for
// each other Wait under way, and the rest kept as spareWakes for the Waits
// that start next (posting them all again would make each Wait post up to
// 63 packets). The Wait numbered wait has events[:n0] already, and no
// events yet (n0 == 0) makes it re-arm what waits to be re-armed before it
// blocks again.
func (p *Poller) deliver(raw []sockstate.OverlappedEntry, events []Event, n0 int, wait uint64) (n int, woken, closed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
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
		if sl.wait == wait && int(sl.waitAt) < n0+n {
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
		again := min(extra, int(p.waiting.Load())-1)
		for range again {
			p.post(wakeKey) // for another Wait
		}
		p.spareWakes += extra - again
	}
	if n0+n == 0 {
		p.impl.flush() // nothing for the caller: re-arm before waiting again
	}
	return n, wakes > 0, closed
}

// millis rounds d up to whole milliseconds, so that a short timeout is not
// a busy poll.
func millis(d time.Duration) uint32 {
	if d <= 0 {
		return 0
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return uint32(min(ms, math.MaxUint32-1))
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/blocks"
)

// Option configures New.
type Option func(*Poller)

// WithBackend forces a backend; New fails if this Windows lacks it.
func WithBackend(b Backend) Option { return func(p *Poller) { p.backend = b } }

var (
	// ErrClosed is returned by every method of a closed Poller, whatever
	// its arguments, and by the Waits that Close interrupts.
	ErrClosed = errors.New("poller: closed")
	// ErrNotRegistered is returned by Modify and Delete for a socket that
	// was not added.
	ErrNotRegistered = errors.New("poller: socket not registered")
	// ErrAlreadyRegistered is matched (errors.Is) by the error of Add for
	// a socket that is registered already.
	ErrAlreadyRegistered = errors.New("poller: socket already registered")
)

// Completion keys of the packets the poller posts itself.
const (
	wakeKey  = ^uintptr(0)
	closeKey = ^uintptr(0) - 1
	afdKey   = ^uintptr(0) - 2
)

// Poller is a readiness poller. Its methods may be called from several
// goroutines at once.
type Poller struct {
	backend Backend
	port    windows.Handle
	impl    backend

	mu       sync.Mutex
	slots    blocks.Array[slot] // slots[:used] have been handed out
	used     int32
	free     []int32
	bySocket map[windows.Handle]int32
	closed   bool
	waiters  sync.WaitGroup
	waiting  atomic.Int32 // Waits under way
	// spareWakes are Wakes dequeued in one batch beyond the one that
	// batch's Wait consumed and beyond the Waits there were to release:
	// each makes a Wait that starts return at once.
	spareWakes int
	waits      uint32 // Waits started: each Wait's number
	// When the poller was made, and when, in nanoseconds since then, a
	// Wait last yielded the processor: see yieldEvery.
	start     time.Time
	lastYield atomic.Int64
}

// yieldEvery is how often, at most, a Wait yields the processor
// (runtime.Gosched) before it calls the OS, when Waits are that frequent.
//
// Go's runtime preempts a goroutine that has run 10 ms without passing
// through its scheduler, and a goroutine that loops on Wait and handles the
// events with system calls never passes through it. When the preemption
// finds that goroutine in a system call, the runtime takes its processor
// and hands it to another thread, and its monitor thread goes back to
// waking every 20 µs: under Wine pinned to one CPU, that was 3 more kernel
// round trips a Wait than the 4 that a C loop makes, and twice its time
// (scripts/bench.sh). A Gosched every 5 ms or more often keeps the
// preemption from ever coming; with nothing else to run it costs no system
// call, and with idle processors it wakes one thread at most. The pace is
// the poller's: with k Waits under way, one of them yields every 5/k ms,
// so that each of k goroutines looping on the poller still yields about
// every 5 ms.
const yieldEvery = 5 * time.Millisecond

// slot is one registration. The kernel knows it by id(): its index and
// generation.
type slot struct {
	gen      uint32
	state    slotState
	interest Interest
	mode     Mode
	armed    bool // the OS will report it (not a one-shot that fired)
	socket   windows.Handle
	key      uint64
	afd      afdSlot
	// The Wait that last reported the slot, and where in its events: a
	// packet queued again while one Wait gathers events adds to that event
	// (one event a socket a Wait, as epoll).
	wait   uint32
	waitAt int32
}

type slotState uint8

const (
	slotFree     slotState = iota
	slotActive             // registered
	slotDeleting           // deleted; waiting for the OS to confirm
)

// IDs: the slot index plus one in the low 24 bits, the generation above.
const (
	indexBits = 24
	maxSlots  = 1<<indexBits - 1
)

func (p *Poller) id(index int32) uintptr {
	return uintptr(index+1) | uintptr(p.at(index).gen)<<indexBits
}

// lookup returns the slot an ID names, or nil for a stale or foreign ID.
func (p *Poller) lookup(id uintptr) (int32, *slot) {
	index := int32(id&maxSlots) - 1
	if index < 0 || index >= p.used {
		return -1, nil
	}
	s := p.at(index)
	if s.state == slotFree || uintptr(s.gen)<<indexBits != id&^maxSlots {
		return -1, nil
	}
	return index, s
}

// backend is what differs between the OS mechanisms. Its methods run with
// p.mu held.
type backend interface {
	// arm registers (or re-registers) slot i with its interest and mode.
	arm(i int32) error
	// remove starts the removal of slot i; done means that it is freed
	// already, with no packet to wait for.
	remove(i int32) (done bool, err error)
	// translate turns a dequeued packet into an event of slot i; ok is false for
	// packets that are the poller's own business. (By value: a pointer
	// through an interface call would move Wait's buffer to the heap.)
	translate(e sockstate.OverlappedEntry) (ev Event, i int32, ok bool)
	// flush re-arms what the last events left to re-arm, before a Wait
	// blocks: after the caller has handled them.
	flush()
	// close releases the backend's handles once no Wait runs.
	close()
}

// New returns a Poller on a new I/O completion port.
func New(opts ...Option) (*Poller, error) {
	p := &Poller{bySocket: make(map[windows.Handle]int32), start: time.Now()}
	for _, o := range opts {
		o(p)
	}
	switch p.backend {
	case Auto:
		p.backend = AFD
		if sockstate.Supported() {
			p.backend = SocketNotifications
		}
	case SocketNotifications:
		if err := sockstate.LoadProcessSocketNotifications(); err != nil {
			return nil, err
		}
	case AFD:
	default:
		return nil, fmt.Errorf("poller: unknown backend %v", p.backend)
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("poller: CreateIoCompletionPort: %w", err)
	}
	p.port = port
	if p.backend == AFD {
		p.impl, err = newAFD(p)
	} else {
		p.impl = &psn{p: p}
	}
	if err != nil {
		windows.CloseHandle(port)
		return nil, err
	}
	return p, nil
}

// Backend reports the backend in use.
func (p *Poller) Backend() Backend { return p.backend }

// Add registers socket s (a Winsock socket) under key with an interest and
// a mode. A socket that is registered already is refused with an error
// matching ErrAlreadyRegistered, as epoll refuses it with EEXIST: a second
// Add is usually a slip in the caller's bookkeeping. Modify is the way to
// change a registration. (A socket closed without Delete may keep its
// handle registered: see Delete.)
func (p *Poller) Add(s windows.Handle, key uint64, interest Interest, mode Mode) error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if err := check(s, interest, mode); err != nil {
		return err
	}
	if _, ok := p.bySocket[s]; ok {
		return fmt.Errorf("poller: Add of socket %#x: %w", uintptr(s), ErrAlreadyRegistered)
	}
	i, err := p.alloc()
	if err != nil {
		return err
	}
	sl := p.at(i)
	sl.socket, sl.key, sl.interest, sl.mode, sl.state = s, key, interest, mode, slotActive
	if err := p.impl.arm(i); err != nil {
		p.release(i)
		return err
	}
	sl.armed = true
	p.bySocket[s] = i
	return nil
}

// Modify changes the key, interest or mode of socket s, and re-arms a
// one-shot registration that has fired. Changing only the key of an armed
// registration makes no system call. If it returns an error, the
// registration is as it was: its key, interest and mode, armed or not.
func (p *Poller) Modify(s windows.Handle, key uint64, interest Interest, mode Mode) error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if err := check(s, interest, mode); err != nil {
		return err
	}
	i, ok := p.bySocket[s]
	if !ok {
		return ErrNotRegistered
	}
	sl := p.at(i)
	if sl.armed && sl.interest == interest && sl.mode == mode {
		sl.key = key
		return nil
	}
	// A refused Modify changes nothing: the OS holds the old registration
	// (or, for a one-shot that has fired, none), and so does the slot, so
	// that a retry makes the call again.
	oldKey, oldInterest, oldMode := sl.key, sl.interest, sl.mode
	sl.key, sl.interest, sl.mode = key, interest, mode
	if err := p.impl.arm(i); err != nil {
		sl.key, sl.interest, sl.mode = oldKey, oldInterest, oldMode
		return err
	}
	sl.armed = true
	return nil
}

// Delete removes socket s. It returns at once, also while other goroutines
// Wait; the poller frees the registration when the OS confirms. No event of
// s is dequeued after Delete returns (a Wait that dequeued one just before
// may still return it).
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
// the close already.
func (p *Poller) Delete(s windows.Handle) error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	i, ok := p.bySocket[s]
	if !ok {
		return ErrNotRegistered
	}
	return p.drop(i)
}

// drop unmaps slot i and starts its removal.
func (p *Poller) drop(i int32) error {
	sl := p.at(i)
	delete(p.bySocket, sl.socket)
	sl.state = slotDeleting
	done, err := p.impl.remove(i)
	if done {
		p.release(i)
	}
	return err
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

// release frees slot i for reuse under a new generation.
func (p *Poller) release(i int32) {
	sl := p.at(i)
	*sl = slot{gen: sl.gen + 1}
	p.free = append(p.free, i)
}

// Wait waits up to timeout (forever if negative) for events, fills events
// with them and returns how many. It blocks at most once: after the first
// packets arrive it takes whatever else is queued already, without
// waiting, until events is full, so a Wait is not limited to one batch of
// the OS. It returns 0 and a nil error on a timeout, n (maybe 0) and a nil
// error when a Wake releases it, and ErrClosed once the poller is closed.
// It does not allocate when it returns events. Before it calls the OS it
// may yield the processor (runtime.Gosched), about once every 5 ms in a
// goroutine that loops on Wait, which keeps Go's runtime from taking the
// processor away from it in a system call.
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
func (p *Poller) deliver(raw []sockstate.OverlappedEntry, events []Event, n0 int, wait uint32) (n int, woken, closed bool) {
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
			events[sl.waitAt].Events |= ev.Events // reported already in this Wait
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

// Wake makes one Wait return at once (with the events it has, maybe none):
// k Wakes release k Waits, those that are blocked and, for the rest, the
// next ones to start. One Wake per goroutine is a way to stop them.
func (p *Poller) Wake() error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	return p.post(wakeKey)
}

func (p *Poller) post(key uintptr) error {
	return windows.PostQueuedCompletionStatus(p.port, 0, key, nil)
}

// Close wakes every Wait, which returns ErrClosed, waits for them to
// return, removes every registration and releases the poller's handles.
// The sockets stay open: they are the caller's.
func (p *Poller) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.closed = true
	err := p.post(closeKey)
	p.mu.Unlock()
	p.waiters.Wait()

	p.mu.Lock()
	defer p.mu.Unlock()
	for s, i := range p.bySocket {
		delete(p.bySocket, s)
		p.at(i).state = slotDeleting
		if done, _ := p.impl.remove(i); done {
			p.release(i)
		}
	}
	p.impl.close()
	if cerr := windows.CloseHandle(p.port); err == nil {
		err = cerr
	}
	return err
}

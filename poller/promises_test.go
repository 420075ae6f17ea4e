// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// The abstract model of the poller's promises that the state-machine test
// (statemachine_test.go) checks every Wait against. It is written from the
// package doc, the methods' docs and epoll's rules, not from the
// implementation. Time is logical: a tick is taken before and after every
// call, so that "Delete returned before this Wait started" is a comparison
// of ticks, never of durations. Where the doc allows several outcomes (a
// stale event dequeued just before Delete, a Wait that races Close, the
// backends' differences), the model allows each; what it promises is
// checked:
//
//   - every event names a key that was current for a registration at some
//     time during the Wait: a deleted (or modified away) key never comes
//     back to a Wait that starts after Delete (or Modify) returned;
//   - an event has bits, and only those of the interest, and Error;
//   - one event per registration per Wait;
//   - a one-shot registration is reported at most once per arming, to the
//     Waits that start after the arming returned;
//   - where the OS drops a registration when its socket closes (epoll), no
//     Wait that starts after a close without Delete reports it;
//   - obligations (obligation): Level is reported while ready, to a Wait
//     that starts after the check; Edge after a drain and a new arrival;
//     an armed one-shot that is ready, once; and what one backend promises
//     beyond the others (statemachine_differences_test.go);
//   - an infinite Wait returns (0, nil) only for a Wake: k Wakes release at
//     most k such Waits, and (checked by the runner) at least k blocked;
//   - a Wait returns an error only once Close has begun, and it is
//     ErrClosed; every call that starts after Close returned is ErrClosed.

// never is the end of a key that is still current.
const never = math.MaxInt64

// registration is one Add until its Delete (or Close).
type registration struct {
	id       int
	key      uint64 // current key
	interest Interest
	mode     Mode
	armed    bool  // a one-shot that the model has not seen fire
	armStart int64 // the tick before the Add or Modify that armed it
	ended    bool
	closed   bool  // its socket was closed without Delete: no promises (but see model.closeDrops)
	closedAt int64 // the tick after that close
}

// keyLife is one key's time: from the start of the call that set it to the
// end of the call that replaced or removed it.
type keyLife struct {
	reg      *registration
	interest Interest
	mode     Mode
	from     int64 // tick before Add or Modify
	armEnd   int64 // tick after it
	to       int64 // tick after the Modify, Delete or Close that ended it
	once     int   // one-shot: events from Waits that started after armEnd
}

// obligation is an event the poller owes: of reg, with all of bits (any
// bits if 0), from a Wait that returned after tick after (or, when
// startAfter, that started after it).
type obligation struct {
	reg        *registration
	bits       Interest
	after      int64
	startAfter bool
	why        string
}

// waitResult is one Wait as the model sees it.
type waitResult struct {
	start, end int64
	size       int
	timeout    time.Duration
	n          int
	err        error
	events     []Event
	background bool
}

func (w waitResult) String() string {
	return fmt.Sprintf("Wait(size %d, timeout %v, ticks %d..%d) = (%d, %v) %v", w.size, w.timeout, w.start, w.end, w.n, w.err, w.events[:min(w.n, len(w.events))])
}

type model struct {
	keys        map[uint64]*keyLife
	regs        int
	owed        []*obligation
	wakes       []int64 // ticks before each Wake
	wakeReturns []int64 // end ticks of infinite Waits that returned (0, nil)
	closeStart  int64   // 0 until Close begins
	closeEnd    int64   // 0 until Close returns
	// closeDrops: the OS drops a registration when its socket closes
	// (epoll; the package doc's differences): no Wait that starts after
	// a close without Delete reports it.
	closeDrops bool
}

func newModel() *model { return &model{keys: make(map[uint64]*keyLife)} }

// add records a successful Add (t0 before it, t1 after).
func (m *model) add(key uint64, interest Interest, mode Mode, t0, t1 int64) *registration {
	m.regs++
	r := &registration{id: m.regs}
	m.setKey(r, key, interest, mode, t0, t1)
	return r
}

// modify records a successful Modify.
func (m *model) modify(r *registration, key uint64, interest Interest, mode Mode, t0, t1 int64) {
	m.keys[r.key].to = t1
	m.drop(r)
	m.setKey(r, key, interest, mode, t0, t1)
}

func (m *model) setKey(r *registration, key uint64, interest Interest, mode Mode, t0, t1 int64) {
	r.key, r.interest, r.mode, r.armed, r.armStart = key, interest, mode, true, t0
	m.keys[key] = &keyLife{reg: r, interest: interest, mode: mode, from: t0, armEnd: t1, to: never}
}

// end records the end of r: Delete (or, for all, Close) returned at t1.
func (m *model) end(r *registration, t1 int64) {
	m.keys[r.key].to = t1
	r.ended = true
	m.drop(r)
}

// drop forgets what r owed: its interest or mode changed, or it is gone.
func (m *model) drop(r *registration) {
	m.owed = slices.DeleteFunc(m.owed, func(o *obligation) bool { return o.reg == r })
}

// owing reports whether r is owed anything.
func (m *model) owing(r *registration) bool {
	return slices.ContainsFunc(m.owed, func(o *obligation) bool { return o.reg == r })
}

func (m *model) owe(r *registration, bits Interest, after int64, startAfter bool, why string) {
	m.owed = append(m.owed, &obligation{reg: r, bits: bits, after: after, startAfter: startAfter, why: why})
}

// check checks one Wait's result against the promises, and discharges
// what it delivers.
func (m *model) check(w waitResult) error {
	closing := m.closeStart != 0 && m.closeStart < w.end
	switch {
	case m.closeEnd != 0 && w.start > m.closeEnd && !errors.Is(w.err, ErrClosed):
		return fmt.Errorf("%v: a Wait that started after Close returned, want ErrClosed", w)
	case w.err != nil && !(closing && errors.Is(w.err, ErrClosed)):
		return fmt.Errorf("%v: an error, and not ErrClosed of a Close under way", w)
	case w.err != nil && w.n != 0:
		return fmt.Errorf("%v: events with an error", w)
	case w.n < 0 || w.n > w.size:
		return fmt.Errorf("%v: n out of [0, %d]", w, w.size)
	case w.err == nil && w.n == 0 && w.timeout < 0:
		m.wakeReturns = append(m.wakeReturns, w.end)
	}
	seen := make(map[*registration]bool)
	for _, e := range w.events[:w.n] {
		k, ok := m.keys[e.Key]
		switch {
		case !ok:
			return fmt.Errorf("%v: key %d was never registered", w, e.Key)
		case k.from > w.end || k.to < w.start:
			return fmt.Errorf("%v: key %d was current only in ticks %d..%d, not during the Wait", w, e.Key, k.from, k.to)
		case e.Events == 0:
			return fmt.Errorf("%v: an event of key %d with no bits", w, e.Key)
		case e.Events&^(k.interest|Error) != 0:
			return fmt.Errorf("%v: key %d reported %v, its interest is %v", w, e.Key, e.Events, k.interest)
		case seen[k.reg]:
			return fmt.Errorf("%v: registration %d reported twice in one Wait", w, k.reg.id)
		case m.closeDrops && k.reg.closed && w.start > k.reg.closedAt:
			return fmt.Errorf("%v: key %d's socket was closed without Delete at tick %d, before the Wait, and the OS dropped its registration", w, e.Key, k.reg.closedAt)
		}
		seen[k.reg] = true
		if k.mode.oneShot() && w.start > k.armEnd {
			if k.once++; k.once > 1 {
				return fmt.Errorf("%v: one-shot key %d reported again without Modify", w, e.Key)
			}
		}
		r := k.reg
		consumed := r.mode.oneShot() && r.key == e.Key && w.end > r.armStart
		if consumed {
			r.armed = false
		}
		m.owed = slices.DeleteFunc(m.owed, func(o *obligation) bool {
			if o.reg != r || r.mode.oneShot() && e.Key != r.key {
				return false // a one-shot arming is met by its own key only
			}
			if consumed {
				// The report took the arming: nothing more is owed until
				// the next Modify, also what the runner recorded as owed
				// after this Wait returned, before it checked it (it
				// checks a background Wait's result at its next step).
				return true
			}
			if w.end <= o.after || (o.startAfter && w.start <= o.after) {
				return false
			}
			if o.bits == anyBits {
				return true // met by any event
			}
			o.bits &^= e.Events
			return o.bits == 0 // met when all its bits have come
		})
	}
	return nil
}

// anyBits marks an obligation that any event of the registration meets.
const anyBits Interest = 0x80

// wakesOK checks that k Wakes released at most k infinite Waits with no
// events: each such return needs a Wake that began before it.
func (m *model) wakesOK() error {
	returns := slices.Clone(m.wakeReturns)
	sort.Slice(returns, func(i, j int) bool { return returns[i] < returns[j] })
	for i, end := range returns {
		before := 0
		for _, w := range m.wakes {
			if w < end {
				before++
			}
		}
		if i+1 > before {
			return fmt.Errorf("%d infinite Waits returned (0, nil) by tick %d, after %d Wakes", i+1, end, before)
		}
	}
	return nil
}

func (o *obligation) String() string {
	bits := o.bits.String()
	if o.bits == anyBits {
		bits = "any event"
	}
	when := "returned"
	if o.startAfter {
		when = "started"
	}
	return fmt.Sprintf("registration %d (key %d, %v %v): %s, from a Wait %s after tick %d (%s)",
		o.reg.id, o.reg.key, o.reg.interest, o.reg.mode, bits, when, o.after, o.why)
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The state-machine runner's Waits, its checks of what is owed, Close, and
// the end of a sequence.

// wait is a Wait on the runner's goroutine.
func (r *runner) wait(size int, timeout time.Duration) error {
	events := make([]Event, size)
	start := r.tick()
	n, err := r.p.Wait(events, timeout)
	return r.record(waitResult{start: start, end: r.tick(), size: size, timeout: timeout, n: n, err: err, events: events})
}

func (r *runner) record(w waitResult) error {
	r.stats.waits++
	if w.n > 0 && w.n <= w.size {
		r.stats.events += w.n
	}
	before := len(r.m.owed)
	err := r.m.check(w)
	r.stats.met += before - len(r.m.owed)
	return err
}

// collect checks the background Waits that have returned; with block, it
// waits (up to smEventually) until all have.
func (r *runner) collect(block bool) error {
	deadline := time.After(smEventually)
	for r.bg > 0 {
		var w waitResult
		if block {
			select {
			case w = <-r.results:
			case <-deadline:
				return fmt.Errorf("%d background Waits have not returned after %v", r.bg, smEventually)
			}
		} else {
			select {
			case w = <-r.results:
			default:
				return nil
			}
		}
		r.bg--
		if err := r.record(w); err != nil {
			return fmt.Errorf("background %w", err)
		}
	}
	return nil
}

// check adds what the current state owes (Level while ready, to a Wait
// that starts after now; an armed one-shot level that is ready, any
// event), then Waits until everything owed has come.
func (r *runner) check() error {
	if r.closed {
		return nil
	}
	now := r.tick()
	for _, f := range r.fix {
		reg := f.reg
		if reg == nil || reg.closed {
			continue
		}
		switch bits := r.owedBits(f, reg); {
		case bits == 0:
		case reg.mode == Level:
			r.m.owe(reg, bits, now, true, "Level while ready")
		case reg.mode == OneShotLevel && reg.armed:
			r.m.owe(reg, anyBits, reg.armStart, false, "an armed one-shot level that is ready")
		}
	}
	deadline := time.Now().Add(smEventually)
	for len(r.m.owed) > 0 {
		if err := r.collect(false); err != nil {
			return err
		}
		if len(r.m.owed) == 0 {
			break
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, o := range r.m.owed {
				fmt.Fprintf(&b, "\n\t%v", o)
			}
			return &undelivered{owed: slices.Clone(r.m.owed), msg: fmt.Sprintf("not delivered within %v:%s", smEventually, b.String())}
		}
		if err := r.wait(8, 20*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// close Closes the Poller: the Waits under way return, and every call
// after it is ErrClosed.
func (r *runner) close() error {
	if r.closed {
		return r.wantErr(r.p.Close(), nil)
	}
	r.m.closeStart = r.tick()
	err := r.p.Close()
	r.m.closeEnd = r.tick()
	r.closed = true
	if err != nil {
		return fmt.Errorf("Close: %w", err)
	}
	for _, f := range r.fix {
		if f.reg != nil {
			r.m.end(f.reg, r.m.closeEnd)
			if !f.closed {
				f.reg = nil
			}
		}
	}
	r.m.owed = nil
	return r.collect(true)
}

// finish ends a sequence: as many Wakes as background Waits remain must
// release them all (k Wakes release k Waits), what is owed must come, and
// Close must return every later call with ErrClosed.
func (r *runner) finish() error {
	if err := r.collect(false); err != nil {
		return err
	}
	if !r.closed {
		for range r.bg { // one for each Wait still out
			r.m.wakes = append(r.m.wakes, r.tick())
			if err := r.p.Wake(); err != nil {
				return err
			}
		}
		if err := r.collect(true); err != nil {
			return fmt.Errorf("at the end, after a Wake for each: %w", err)
		}
		if err := r.check(); err != nil {
			return fmt.Errorf("at the end: %w", err)
		}
		if err := r.close(); err != nil {
			return err
		}
	}
	if err := r.collect(true); err != nil {
		return err
	}
	if err := r.wait(1, 0); err != nil {
		return fmt.Errorf("after Close: %w", err)
	}
	if _, err := r.p.Wait(nil, 0); !errors.Is(err, ErrClosed) {
		return fmt.Errorf("Wait with no room after Close: %v, want ErrClosed", err)
	}
	if err := r.wantErr(r.p.Wake(), nil); err != nil {
		return fmt.Errorf("Wake after Close: %w", err)
	}
	return r.m.wakesOK()
}

// cleanup closes the Poller (if a check stopped the sequence early) and
// the sockets.
func (r *runner) cleanup() {
	r.p.Close()
	for r.bg > 0 {
		select {
		case <-r.results:
			r.bg--
		case <-time.After(smEventually):
			r.bg = 0 // reported already
		}
	}
	for _, f := range r.fix {
		if f == nil {
			continue
		}
		if f.closed {
			f.closePeer()
			continue
		}
		f.close()
	}
}

// undelivered is the error of a check whose obligations did not come.
type undelivered struct {
	owed []*obligation
	msg  string
}

func (u *undelivered) Error() string { return u.msg }

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// fixture is one socket the Poller watches and its peer, with what the
// runner knows of its state. The sockets are made and used by the
// functions of statemachine_sockets_linux_test.go and
// statemachine_sockets_windows_test.go.
type fixture struct {
	tcp       bool
	s, peer   Socket // peer: the TCP client, or a UDP sender connected to s
	sent      int    // TCP: bytes; UDP: datagrams
	read      int
	eof       bool  // the peer shut down its side
	reset     bool  // the peer reset the connection (and so is closed)
	resetSeen bool  // a recv returned the reset
	resetAt   int64 // the tick of the reset
	drained   bool  // read until it would block, with all that was sent read
	closed    bool  // s closed without Delete: Delete comes before anything else (but see closeDrops)
	reg       *registration
}

// runner runs one sequence on one Poller.
type runner struct {
	p       *Poller
	d       differences // of the Poller's backend
	m       *model
	fix     [smSockets]*fixture
	clock   atomic.Int64
	results chan waitResult
	bg      int // background Waits not yet collected
	closed  bool
	nextKey uint64
	stats   *runStats
}

func (r *runner) tick() int64 { return r.clock.Add(1) }

// runSequence runs ops on a new Poller of backend b and returns the first
// broken promise; stats, if not nil, counts what ran.
func runSequence(b Backend, ops []op, stats *runStats) (err error) {
	if stats == nil {
		stats = new(runStats)
	}
	p, err := New(WithBackend(b))
	if err != nil {
		return err
	}
	r := &runner{p: p, d: differencesOf(b), m: newModel(), results: make(chan waitResult, 64), nextKey: 1, stats: stats}
	r.m.closeDrops = r.d.closeDrops
	defer r.cleanup()
	for i := range r.fix {
		if r.fix[i], err = newFixture(i != 2); err != nil { // two TCP pairs and a UDP socket
			return err
		}
	}
	for i, o := range ops {
		stats.ops++
		if err := r.collect(false); err != nil {
			return fmt.Errorf("before op %d %v: %w", i, o, err)
		}
		if err := r.do(o); err != nil {
			return fmt.Errorf("op %d %v: %w", i, o, err)
		}
	}
	return r.finish()
}

// close closes both sockets (the peer unless it reset the connection).
func (f *fixture) close() {
	closeSocket(f.s)
	f.closePeer()
}

func (f *fixture) closePeer() {
	if !f.reset {
		closeSocket(f.peer)
	}
}

// ready is what the model knows that s is, or will be once what was sent
// has arrived.
func (f *fixture) ready() Interest {
	var i Interest
	if f.sent > f.read || f.eof {
		i |= Readable
	}
	if !f.tcp || !f.reset {
		i |= Writable
	}
	if f.eof && (f.sent == f.read || hangUpWithDataUnread()) {
		i |= HangUp
	}
	return i
}

// wantErr checks a registration call's error: ErrClosed once closed, else
// want (nil or a sentinel that the error must match).
func (r *runner) wantErr(err, want error) error {
	if r.closed {
		want = ErrClosed
	}
	if (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
		return fmt.Errorf("got error %v, want %v", err, want)
	}
	return nil
}

func (r *runner) do(o op) error {
	switch o.kind {
	case opWait:
		return r.wait(o.n, o.timeout)
	case opWaitBG:
		if r.bg >= 3 || r.closed {
			return r.wait(o.n, 50*time.Millisecond) // never blocks for ever on this goroutine
		}
		r.bg++
		go func() {
			events := make([]Event, o.n)
			start := r.tick()
			n, err := r.p.Wait(events, o.timeout)
			r.results <- waitResult{start: start, end: r.tick(), size: o.n, timeout: o.timeout, n: n, err: err, events: events, background: true}
		}()
		return nil
	case opWake:
		r.m.wakes = append(r.m.wakes, r.tick())
		return r.wantErr(r.p.Wake(), nil)
	case opCheck:
		return r.check()
	case opClose:
		return r.close()
	}
	stale, err := r.closedFirst(o)
	if err != nil {
		return err
	}
	f := r.fix[o.sock]
	switch o.kind {
	case opAdd:
		key, t0, t1, err := r.keyed(func(key uint64) error { return r.p.Add(f.s, key, o.interest, o.mode) })
		if f.reg != nil {
			return r.wantErr(err, ErrAlreadyRegistered)
		}
		if err := r.wantErr(err, nil); err != nil || r.closed {
			return err
		}
		if stale != nil {
			r.m.end(stale, t1) // the Add took its place
		}
		f.reg = r.m.add(key, o.interest, o.mode, t0, t1)
		r.armedReady(f, opAdd, t0)
	case opModify:
		var same bool // a Modify of the key alone: no system call
		if f.reg != nil {
			same = f.reg.armed && f.reg.interest == o.interest && f.reg.mode == o.mode
		}
		key, t0, t1, err := r.keyed(func(key uint64) error { return r.p.Modify(f.s, key, o.interest, o.mode) })
		if f.reg == nil {
			return r.wantErr(err, ErrNotRegistered)
		}
		if err := r.wantErr(err, nil); err != nil || r.closed {
			return err
		}
		r.m.modify(f.reg, key, o.interest, o.mode, t0, t1)
		if !same {
			r.armedReady(f, opModify, t0)
		}
	case opDelete:
		return r.delete(f)
	case opSend:
		return r.send(f, o.n)
	case opDrain:
		r.readOwed(f)
		return r.drain(f)
	case opReadPart:
		r.readOwed(f)
		buf := make([]byte, o.n)
		if !f.tcp {
			buf = make([]byte, 2048)
		}
		n, err := recvSocket(f.s, buf)
		switch {
		case err == nil && n > 0 && f.tcp:
			f.read += n
		case err == nil && !f.tcp:
			f.read++
		case err != nil && f.reset && !wouldBlock(err):
			f.resetSeen = true
		}
	case opShutdown:
		if !f.tcp || f.eof || f.reset {
			return nil
		}
		t0 := r.tick()
		if err := shutdownSocket(f.peer); err != nil {
			return fmt.Errorf("shutdown: %w", err)
		}
		f.eof = true
		r.edge(f, Readable|HangUp, t0, "the peer's shutdown")
	case opReset:
		if !f.tcp || f.reset {
			return nil
		}
		if f.reg != nil && r.m.owing(f.reg) {
			// A reset may discard data not yet read, and the event the
			// data owed with it: what is owed now is the reset's, any
			// event (edge, below), as after a drain (seed 3210).
			r.m.drop(f.reg)
			f.drained = true
		}
		t0 := r.tick()
		abortSocket(f.peer)
		f.reset, f.resetAt = true, r.tick()
		r.edge(f, anyBits, t0, "the peer's reset")
	case opCloseSock:
		if f.reg != nil {
			if err := r.delete(f); err != nil {
				return err
			}
		}
		return r.replace(o.sock)
	case opCloseNoDelete:
		if f.reg == nil || r.closed {
			return r.replace(o.sock)
		}
		closeSocket(f.s)
		f.closed, f.reg.closed, f.reg.closedAt = true, true, r.tick()
		r.m.drop(f.reg)
	}
	return nil
}

// keyed makes a registration call (Add or Modify) with a fresh key, between
// two ticks.
func (r *runner) keyed(call func(key uint64) error) (key uint64, t0, t1 int64, err error) {
	key = r.nextKey
	r.nextKey++
	t0 = r.tick()
	err = call(key)
	return key, t0, r.tick(), err
}

// edge records what a new arrival (what) owes an Edge registration (or
// an armed one-shot edge one) after a drain, or on a backend that reports
// every arrival also after one: the bits of want in its interest (anyBits:
// a reset's), from a Wait that returns after t0, the tick before the
// peer's call (a Wait on another goroutine may take the event before that
// call has returned).
func (r *runner) edge(f *fixture, want Interest, t0 int64, what string) {
	reg := f.reg
	drained := f.drained
	f.drained = false
	if !drained && !r.d.edgeEveryArrival || reg == nil || reg.closed || r.closed {
		return
	}
	why := what + " after a drain"
	if !drained {
		why = what + " with data unread (every arrival)"
	}
	bits := want & reg.interest
	switch {
	case want != anyBits:
	case r.d.resetBits:
		bits = r.owedBits(f, reg)
	case reg.interest&(Readable|HangUp|Error) != 0:
		bits = anyBits
	}
	switch {
	case bits == 0:
	case reg.mode == Edge:
		r.m.owe(reg, bits, t0, false, why)
	case reg.mode == OneShotEdge && reg.armed:
		r.m.owe(reg, anyBits, t0, false, why+" (one-shot: any event)")
	}
}

// readOwed forgets what f's edge owes before a read: as under epoll, which
// reports only the bits that still hold when a Wait takes the event, data
// that arrived after a drain and was read before any Wait took its edge
// may go unreported.
func (r *runner) readOwed(f *fixture) {
	if f.reg != nil {
		r.m.drop(f.reg)
	}
}

func (r *runner) delete(f *fixture) error {
	err := r.p.Delete(f.s)
	t1 := r.tick()
	if f.reg == nil {
		return r.wantErr(err, ErrNotRegistered)
	}
	if err := r.wantErr(err, nil); err != nil || r.closed {
		return err
	}
	r.m.end(f.reg, t1)
	f.reg = nil
	return nil
}

// closedFirst settles, before op o uses its fixture's socket, the sockets
// closed without Delete whose number that socket has: its own, or another
// fixture's whose number a new socket was given. Delete of the number
// comes first, as Delete's doc asks; but where the OS dropped the
// registration (closeDrops), an Add of a socket given the number succeeds
// without it and takes the stale registration's place: closedFirst
// returns that registration, which the Add ends.
func (r *runner) closedFirst(o op) (stale *registration, err error) {
	takeOver := r.d.closeDrops && o.kind == opAdd && !r.closed
	if g := r.fix[o.sock]; g.closed && takeOver {
		// On Linux the new socket is given the number again, unless a
		// lower one is free.
		if err := r.replace(o.sock); err != nil {
			return nil, err
		}
		if r.fix[o.sock].s == g.s {
			stale = g.reg
		} else if err := r.deleteClosed(g); err != nil {
			return nil, err
		}
	} else if err := r.settle(o.sock); err != nil {
		return nil, err
	}
	f := r.fix[o.sock]
	for j, g := range r.fix {
		if j == o.sock || !g.closed || g.s != f.s {
			continue
		}
		if takeOver {
			stale, g.reg = g.reg, nil
			if err := r.replace(j); err != nil { // without a Delete: the number is f's now
				return nil, err
			}
		} else if err := r.settle(j); err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// settle finishes a close without Delete of fixture i, if any: Delete of
// the number (deleteClosed), and a new socket in its place.
func (r *runner) settle(i int) error {
	f := r.fix[i]
	if !f.closed {
		return nil
	}
	if err := r.deleteClosed(f); err != nil {
		return err
	}
	return r.replace(i)
}

// deleteClosed Deletes the number of f's socket, closed without Delete: it
// returns nil or ErrNotRegistered (Delete's doc; nil where the OS dropped
// the registration unnoticed, closeDrops).
func (r *runner) deleteClosed(f *fixture) error {
	err := r.p.Delete(f.s)
	t1 := r.tick()
	if !r.closed {
		if err != nil && (r.d.closeDrops || !errors.Is(err, ErrNotRegistered)) {
			want := "nil or ErrNotRegistered"
			if r.d.closeDrops {
				want = "nil (the poller does not notice the close)"
			}
			return fmt.Errorf("Delete after closesocket: %v, want %s", err, want)
		}
		r.m.end(f.reg, t1)
	} else if !errors.Is(err, ErrClosed) {
		return fmt.Errorf("Delete after Close: %v, want ErrClosed", err)
	}
	f.reg = nil
	return nil
}

// replace puts new sockets in fixture i's place. They are made before the
// old ones close, so that a number that a socket closed without Delete
// left is the lowest free, and on Linux the new socket takes it, as a
// program's next socket would.
func (r *runner) replace(i int) error {
	f := r.fix[i]
	var err error
	r.fix[i], err = newFixture(f.tcp)
	if f.closed {
		f.closePeer()
	} else {
		f.close()
	}
	return err
}

func (r *runner) send(f *fixture, n int) error {
	if f.tcp && (f.eof || f.reset || f.sent-f.read > 16<<10) {
		return nil
	}
	if !f.tcp && f.sent-f.read > 64 {
		return nil
	}
	buf := make([]byte, n)
	t0 := r.tick()
	if got, err := sendSocket(f.peer, buf); err != nil || got != n {
		return fmt.Errorf("send: %d, %v", got, err)
	}
	if f.tcp {
		f.sent += n
	} else {
		f.sent++
	}
	r.edge(f, Readable, t0, "data")
	return nil
}

// drain reads until all that was sent has come and the socket would block
// (or the end of the stream, or the reset).
func (r *runner) drain(f *fixture) error {
	buf := make([]byte, 4096)
	deadline := time.Now().Add(smEventually)
	for {
		n, err := recvSocket(f.s, buf)
		switch {
		case err == nil && f.tcp && n == 0: // end of stream
			if f.read < f.sent {
				return fmt.Errorf("end of stream after %d of %d bytes", f.read, f.sent)
			}
			f.drained = true
			return nil
		case err == nil:
			f.read += map[bool]int{true: n, false: 1}[f.tcp]
		case f.reset && !wouldBlock(err):
			f.resetSeen = true
			return nil
		case !wouldBlock(err):
			return fmt.Errorf("recv: %w", err)
		case f.read >= f.sent:
			f.drained = true
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("drain: %d of %d sent arrived in %v", f.read, f.sent, smEventually)
		default:
			time.Sleep(time.Millisecond) // in flight
		}
	}
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
)

// AddConn registers the socket of rc as Add does. rc is what a
// net.TCPConn, net.TCPListener or net.UDPConn (any syscall.Conn) gives
// through SyscallConn. The poller makes its system call inside
// rc.Control, where the connection cannot close the socket, and does not
// hold on to rc: the registration names the socket by its descriptor (on
// Windows its handle), as Add's does. While the registration lasts, Wait
// may make calls of its own on that descriptor (on AFD it polls the
// socket again; on epoll it may switch a registration that reports only
// a hang-up it was not asked for to edge triggering), never once Delete
// has returned.
//
// Delete before Close: call DeleteConn before the connection's Close. A
// connection closed first leaves its socket's number to the next socket
// the process opens, which the registration, then stale, may be taken
// for (see Delete), and DeleteConn can no longer reach it: rc.Control of
// a closed connection fails, with an error matching net.ErrClosed.
func (p *Poller) AddConn(rc syscall.RawConn, key uint64, interest Interest, mode Mode) error {
	return p.control(rc, connAdd, key, interest, mode)
}

// ModifyConn changes the registration of the socket of rc as Modify does,
// inside rc.Control.
func (p *Poller) ModifyConn(rc syscall.RawConn, key uint64, interest Interest, mode Mode) error {
	return p.control(rc, connModify, key, interest, mode)
}

// DeleteConn removes the socket of rc as Delete does, inside rc.Control.
// Call it before the connection's Close (see AddConn).
func (p *Poller) DeleteConn(rc syscall.RawConn) error {
	return p.control(rc, connDelete, 0, 0, 0)
}

// The calls that control makes inside rc.Control.
const (
	connAdd = iota
	connModify
	connDelete
)

// connCall is one call of control: its function, which rc.Control takes,
// is made once for the struct, and the structs are kept for reuse, so
// that a call allocates nothing (a closure passed to an interface method
// would). (A free list, not a sync.Pool, which under the race detector
// drops what is put back at random.)
type connCall struct {
	p        *Poller
	op       uint8
	key      uint64
	interest Interest
	mode     Mode
	err      error
	f        func(fd uintptr)
}

var connCalls struct {
	sync.Mutex
	free []*connCall
}

// getConnCall takes a connCall from the free list, or makes one.
func getConnCall() *connCall {
	connCalls.Lock()
	defer connCalls.Unlock()
	if n := len(connCalls.free); n > 0 {
		c := connCalls.free[n-1]
		connCalls.free = connCalls.free[:n-1]
		return c
	}
	c := new(connCall)
	c.f = c.run
	return c
}

// putConnCall gives c back to the free list.
func putConnCall(c *connCall) {
	c.p, c.err = nil, nil
	connCalls.Lock()
	connCalls.free = append(connCalls.free, c)
	connCalls.Unlock()
}

func (c *connCall) run(fd uintptr) {
	s := Socket(fd)
	switch c.op {
	case connAdd:
		c.err = c.p.Add(s, c.key, c.interest, c.mode)
	case connModify:
		c.err = c.p.Modify(s, c.key, c.interest, c.mode)
	default:
		c.err = c.p.Delete(s)
	}
}

// control makes the call op with the socket of rc, inside rc.Control.
func (p *Poller) control(rc syscall.RawConn, op uint8, key uint64, interest Interest, mode Mode) error {
	if rc == nil {
		return errors.New("poller: a nil syscall.RawConn")
	}
	c := getConnCall()
	c.p, c.op, c.key, c.interest, c.mode = p, op, key, interest, mode
	cerr := rc.Control(c.f)
	err := c.err
	putConnCall(c)
	if cerr != nil {
		return fmt.Errorf("poller: the connection's socket: %w", cerr)
	}
	return err
}

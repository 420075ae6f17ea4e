// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
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
	return control(rc, func(s Socket) error { return p.Add(s, key, interest, mode) })
}

// ModifyConn changes the registration of the socket of rc as Modify does,
// inside rc.Control.
func (p *Poller) ModifyConn(rc syscall.RawConn, key uint64, interest Interest, mode Mode) error {
	return control(rc, func(s Socket) error { return p.Modify(s, key, interest, mode) })
}

// DeleteConn removes the socket of rc as Delete does, inside rc.Control.
// Call it before the connection's Close (see AddConn).
func (p *Poller) DeleteConn(rc syscall.RawConn) error {
	return control(rc, func(s Socket) error { return p.Delete(s) })
}

// control calls call with the socket of rc, inside rc.Control.
func control(rc syscall.RawConn, call func(s Socket) error) error {
	if rc == nil {
		return errors.New("poller: a nil syscall.RawConn")
	}
	var err error
	if cerr := rc.Control(func(fd uintptr) { err = call(Socket(fd)) }); cerr != nil {
		return fmt.Errorf("poller: the connection's socket: %w", cerr)
	}
	return err
}

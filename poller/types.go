// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"
)

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

// Option configures New.
type Option func(*config)

type config struct{ backend Backend }

// WithBackend forces a backend; New fails if this system lacks it.
func WithBackend(b Backend) Option { return func(c *config) { c.backend = b } }

// Interest is what a registration waits for, and, in an Event, what
// happened (the package doc says what each means on every backend). Error
// is always reported, whatever the interest; asking for Error alone (or
// for 0) waits for errors only.
type Interest uint8

const (
	Readable Interest = 1 << iota // data, a connection to accept, or end of stream
	Writable                      // room to write, or a connect that completed
	HangUp                        // the peer will send no more: it closed or reset the connection
	Error                         // the socket is in error: a reset, or a failed connect
)

func (i Interest) String() string {
	if i == 0 {
		return "0"
	}
	s := ""
	for _, n := range []struct {
		bit  Interest
		name string
	}{{Readable, "Readable"}, {Writable, "Writable"}, {HangUp, "HangUp"}, {Error, "Error"}} {
		if i&n.bit != 0 {
			if s != "" {
				s += "|"
			}
			s += n.name
			i &^= n.bit
		}
	}
	if i != 0 {
		if s != "" {
			s += "|"
		}
		s += fmt.Sprintf("%#x", uint8(i))
	}
	return s
}

// Mode is a registration's trigger mode.
type Mode uint8

const (
	// Level reports the socket while it is ready, at every Wait. With
	// several goroutines in Wait: after a Wait returns the event, it is
	// reported again, while the socket stays ready, once a Wait starts
	// (on any goroutine), to that Wait or to one already blocked. A Wait
	// that was blocked already is not handed it before that on AFD; on
	// epoll and ProcessSocketNotifications the OS may report it again at
	// once, so a blocked Wait can get it while another goroutine still
	// handles it. To give each readiness to one goroutine, use a one-shot
	// mode.
	Level Mode = iota
	// Edge reports the socket when it becomes ready; drain it until the
	// call would block (EAGAIN, WSAEWOULDBLOCK) before waiting again. (What
	// counts as an edge differs between the backends: see the package
	// doc.)
	Edge
	// OneShotLevel reports once, then disarms until Modify re-arms it. With
	// several goroutines in Wait, each readiness goes to one of them.
	OneShotLevel
	// OneShotEdge is OneShotLevel with an edge trigger.
	OneShotEdge
)

func (m Mode) oneShot() bool { return m == OneShotLevel || m == OneShotEdge }

func (m Mode) String() string {
	switch m {
	case Level:
		return "Level"
	case Edge:
		return "Edge"
	case OneShotLevel:
		return "OneShotLevel"
	case OneShotEdge:
		return "OneShotEdge"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Event is one socket's readiness, as Wait reports it.
type Event struct {
	Key    uint64   // the key given to Add or Modify
	Events Interest // what happened: Readable, Writable, HangUp, Error
}

// Backend names the OS mechanism a Poller uses.
type Backend uint8

const (
	// Auto picks SocketNotifications where this Windows has it, else AFD.
	Auto Backend = iota
	// SocketNotifications is ws2_32's ProcessSocketNotifications (Windows
	// 10 build 20348 and later).
	SocketNotifications
	// AFD polls the socket driver directly (every Windows, and Wine).
	AFD
	// Epoll is Linux's epoll(7).
	Epoll
)

// String returns the constant's name: "Auto", "SocketNotifications",
// "AFD" or "Epoll". (In this module's own tests on the reference model of
// ProcessSocketNotifications, "SocketNotifications (reference model)".)
func (b Backend) String() string {
	switch b {
	case Auto:
		return "Auto"
	case SocketNotifications:
		return psnName
	case AFD:
		return "AFD"
	case Epoll:
		return "Epoll"
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// psnName is the SocketNotifications backend's name; a build for the
// module's own tests on the reference model says so (model_windows.go).
var psnName = "SocketNotifications"

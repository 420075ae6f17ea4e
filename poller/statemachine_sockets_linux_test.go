// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"

	"golang.org/x/sys/unix"
)

// The state-machine runner's sockets on Linux (descriptors);
// statemachine_sockets_windows_test.go has the same functions on Windows.

// backends returns the backends of this system: on Linux, epoll.
func backends() []Backend { return []Backend{Epoll} }

var loopback = &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}

// newFixture returns a connected loopback TCP pair, or a UDP socket and a
// sender connected to it; the socket the Poller watches is non-blocking,
// the peer blocking. Each descriptor is closed once, by the runner.
func newFixture(tcp bool) (*fixture, error) {
	f := &fixture{tcp: tcp, s: -1, peer: -1}
	typ := unix.SOCK_DGRAM
	if tcp {
		typ = unix.SOCK_STREAM
	}
	// The receiving side: a listener for TCP, the watched socket for UDP.
	l, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return f, err
	}
	if !tcp {
		f.s = l
	}
	if err = unix.Bind(l, loopback); err == nil && tcp {
		err = unix.Listen(l, 1)
	}
	var addr unix.Sockaddr
	if err == nil {
		addr, err = unix.Getsockname(l)
	}
	if err == nil {
		f.peer, err = unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	}
	if err == nil {
		err = unix.Connect(f.peer, addr)
	}
	if err == nil && tcp {
		f.s, _, err = unix.Accept4(l, unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
	}
	if tcp {
		unix.Close(l)
		if err == nil {
			f.s = lowest(f.s)
		}
	}
	return f, err
}

// lowest moves descriptor s to the lowest number free, as a socket made
// alone would have: a number that a socket closed without Delete left is
// given to the next watched socket, as it is in a program (the accepted
// socket came after the listener and the peer, and would not have it).
// The socket keeps one descriptor.
func lowest(s int) int {
	d, err := unix.FcntlInt(uintptr(s), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil || d > s {
		if err == nil {
			unix.Close(d)
		}
		return s
	}
	unix.Close(s)
	return d
}

func closeSocket(s Socket) {
	if s >= 0 {
		unix.Close(s)
	}
}

func recvSocket(s Socket, buf []byte) (int, error) { return unix.Read(s, buf) }

func sendSocket(s Socket, buf []byte) (int, error) { return unix.Write(s, buf) }

func shutdownSocket(s Socket) error { return unix.Shutdown(s, unix.SHUT_WR) }

// abortSocket closes s with SO_LINGER 0: its peer gets a RST.
func abortSocket(s Socket) {
	unix.SetsockoptLinger(s, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
	unix.Close(s)
}

func wouldBlock(err error) bool { return errors.Is(err, unix.EAGAIN) }

// hangUpWithDataUnread reports whether the peer's FIN is reported
// (HangUp) while data it sent before is unread: on Linux it is
// (EPOLLRDHUP once the receive side is shut down).
func hangUpWithDataUnread() bool { return true }

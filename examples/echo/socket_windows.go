// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package echo

import (
	"errors"
	"fmt"
	"net/netip"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/poller"
	"github.com/sockstate/sockstate/winsock"
)

// The socket calls of the echo server and its clients on Windows: Winsock
// through golang.org/x/sys/windows and this module's winsock package.
// socket_linux.go has the same functions.

// listenLoopback opens a non-blocking TCP socket listening on 127.0.0.1,
// at a port the OS picks, and returns it with that address.
func listenLoopback() (poller.Socket, netip.AddrPort, error) {
	l, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return windows.InvalidHandle, netip.AddrPort{}, err
	}
	err = windows.Bind(l, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	if err == nil {
		err = windows.Listen(l, windows.SOMAXCONN)
	}
	if err == nil {
		err = winsock.SetNonblock(l, true)
	}
	var sa windows.Sockaddr
	if err == nil {
		sa, err = windows.Getsockname(l)
	}
	if err != nil {
		windows.Closesocket(l)
		return windows.InvalidHandle, netip.AddrPort{}, err
	}
	a := sa.(*windows.SockaddrInet4)
	return l, netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)), nil
}

// acceptConn takes a pending connection from the listener l as a
// non-blocking socket. Without the peer's address, which the server does
// not use: winsock.Accept would allocate it, a garbage object a connection.
func acceptConn(l poller.Socket) (poller.Socket, error) {
	c, err := winsock.AcceptNoAddr(l)
	if err != nil {
		return windows.InvalidHandle, err
	}
	if err := winsock.SetNonblock(c, true); err != nil {
		windows.Closesocket(c)
		return windows.InvalidHandle, err
	}
	return c, nil
}

// dial opens a blocking TCP socket connected to addr, an IPv4 address.
func dial(addr netip.AddrPort) (poller.Socket, error) {
	ip := addr.Addr().Unmap()
	if !ip.Is4() {
		return windows.InvalidHandle, fmt.Errorf("dial %v: not an IPv4 address", addr)
	}
	s, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return windows.InvalidHandle, err
	}
	if err := windows.Connect(s, &windows.SockaddrInet4{Addr: ip.As4(), Port: int(addr.Port())}); err != nil {
		windows.Closesocket(s)
		return windows.InvalidHandle, err
	}
	return s, nil
}

// recv reads from s into b: 0 and a nil error at the end of the stream.
func recv(s poller.Socket, b []byte) (int, error) { return winsock.Recv(s, b, 0) }

// send writes b to s and returns how much of it the socket took.
func send(s poller.Socket, b []byte) (int, error) { return winsock.Send(s, b, 0) }

// recvNow and sendNow are the server's recv and send, on its non-blocking
// sockets: on Windows, the same calls.
func recvNow(s poller.Socket, b []byte) (int, error) { return recv(s, b) }

func sendNow(s poller.Socket, b []byte) (int, error) { return send(s, b) }

// shutdownWrite ends what s sends: the peer reads the end of the stream.
func shutdownWrite(s poller.Socket) error { return windows.Shutdown(s, windows.SHUT_WR) }

// closeSocket closes s.
func closeSocket(s poller.Socket) error { return windows.Closesocket(s) }

// wouldBlock reports whether err is a non-blocking socket's "try again".
func wouldBlock(err error) bool { return errors.Is(err, windows.WSAEWOULDBLOCK) }

// peerGone reports whether err says that the peer reset or aborted the
// connection: the peer's doing, not a fault of the server.
func peerGone(err error) bool {
	return errors.Is(err, windows.WSAECONNRESET) || errors.Is(err, windows.WSAECONNABORTED)
}

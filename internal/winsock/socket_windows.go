// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package winsock holds the loopback socket helpers, clients and WSAPoll
// binding that the tests and benchmarks of this module share, built on the
// public package github.com/sockstate/sockstate/winsock. Users never need
// them: the examples open their sockets with the public package.
package winsock

import (
	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/winsock"
)

// Listen opens a TCP socket listening on 127.0.0.1 at a port the OS picks,
// and returns it with its address.
func Listen() (windows.Handle, *windows.SockaddrInet4, error) {
	return bound(windows.SOCK_STREAM, windows.IPPROTO_TCP, true)
}

// UDP opens a UDP socket bound to 127.0.0.1 at a port the OS picks, and
// returns it with its address.
func UDP() (windows.Handle, *windows.SockaddrInet4, error) {
	return bound(windows.SOCK_DGRAM, windows.IPPROTO_UDP, false)
}

func bound(typ, proto int, listen bool) (windows.Handle, *windows.SockaddrInet4, error) {
	s, err := winsock.Socket(windows.AF_INET, typ, proto)
	if err != nil {
		return windows.InvalidHandle, nil, err
	}
	addr, err := bind(s, listen)
	if err != nil {
		windows.Closesocket(s)
		return windows.InvalidHandle, nil, err
	}
	return s, addr, nil
}

func bind(s windows.Handle, listen bool) (*windows.SockaddrInet4, error) {
	if err := windows.Bind(s, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return nil, err
	}
	if listen {
		if err := windows.Listen(s, windows.SOMAXCONN); err != nil {
			return nil, err
		}
	}
	sa, err := windows.Getsockname(s)
	if err != nil {
		return nil, err
	}
	return sa.(*windows.SockaddrInet4), nil
}

// Dial opens a TCP socket and connects it to addr, blocking until done.
// Several goroutines may dial one addr at once. (examples/echo has the
// same few lines as its own dial: an example a user copies cannot import
// this package.)
func Dial(addr *windows.SockaddrInet4) (windows.Handle, error) {
	s, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return windows.InvalidHandle, err
	}
	// A copy: x/sys encodes a Sockaddr into the value itself, so sharing
	// one between goroutines is a data race.
	to := *addr
	if err := windows.Connect(s, &to); err != nil {
		windows.Closesocket(s)
		return windows.InvalidHandle, err
	}
	return s, nil
}

// Pair returns the two ends of a connected loopback TCP connection.
func Pair() (client, server windows.Handle, err error) {
	l, addr, err := Listen()
	if err != nil {
		return windows.InvalidHandle, windows.InvalidHandle, err
	}
	defer windows.Closesocket(l)
	client, err = Dial(addr)
	if err != nil {
		return windows.InvalidHandle, windows.InvalidHandle, err
	}
	server, _, err = winsock.Accept(l)
	if err != nil {
		windows.Closesocket(client)
		return windows.InvalidHandle, windows.InvalidHandle, err
	}
	return client, server, nil
}

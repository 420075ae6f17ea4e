// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package echo

import (
	"net/netip"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/poller"
)

// The tests' socket helpers on Windows; platform_linux_test.go has the
// same functions.

// backends are the poller's backends that this Windows has.
func backends() []poller.Backend {
	if sockstate.Supported() {
		return []poller.Backend{poller.AFD, poller.SocketNotifications}
	}
	return []poller.Backend{poller.AFD}
}

// udpSocket opens a UDP socket bound to 127.0.0.1 at a port the OS picks.
func udpSocket() (poller.Socket, netip.AddrPort, error) {
	s, a, err := iwinsock.UDP()
	if err != nil {
		return windows.InvalidHandle, netip.AddrPort{}, err
	}
	return s, netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)), nil
}

// sendTo sends the datagram b from s to addr.
func sendTo(s poller.Socket, b []byte, addr netip.AddrPort) error {
	return windows.Sendto(s, b, 0, &windows.SockaddrInet4{Addr: addr.Addr().As4(), Port: int(addr.Port())})
}

// resetConn resets the connection of s (SO_LINGER 0) and closes s.
func resetConn(s poller.Socket) error {
	linger := windows.Linger{Onoff: 1, Linger: 0}
	err := windows.SetsockoptLinger(s, windows.SOL_SOCKET, windows.SO_LINGER, &linger)
	if cerr := windows.Closesocket(s); err == nil {
		err = cerr
	}
	return err
}

// reserveDescriptors does nothing: Windows has no limit on a process's
// socket handles to raise.
func reserveDescriptors(testing.TB, int) {}

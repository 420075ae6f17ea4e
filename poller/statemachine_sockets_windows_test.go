// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

// The state-machine runner's sockets on Windows (Winsock);
// statemachine_sockets_linux_test.go has the same functions on Linux.

// newFixture returns a connected loopback TCP pair, or a UDP socket and a
// sender connected to it; the socket the Poller watches is non-blocking.
func newFixture(tcp bool) (*fixture, error) {
	f := &fixture{tcp: tcp}
	var err error
	if tcp {
		f.peer, f.s, err = iwinsock.Pair()
	} else {
		var addr *windows.SockaddrInet4
		if f.s, addr, err = iwinsock.UDP(); err == nil {
			if f.peer, err = winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP); err == nil {
				err = windows.Connect(f.peer, addr)
			}
		}
	}
	if err == nil {
		err = winsock.SetNonblock(f.s, true)
	}
	return f, err
}

func closeSocket(s Socket) { windows.Closesocket(s) }

func recvSocket(s Socket, buf []byte) (int, error) { return winsock.Recv(s, buf, 0) }

func sendSocket(s Socket, buf []byte) (int, error) { return winsock.Send(s, buf, 0) }

func shutdownSocket(s Socket) error { return windows.Shutdown(s, windows.SHUT_WR) }

// abortSocket closes s with SO_LINGER 0: its peer gets a RST.
func abortSocket(s Socket) {
	windows.SetsockoptLinger(s, windows.SOL_SOCKET, windows.SO_LINGER, &windows.Linger{Onoff: 1, Linger: 0})
	windows.Closesocket(s)
}

func wouldBlock(err error) bool { return errors.Is(err, windows.WSAEWOULDBLOCK) }

// hangUpWithDataUnread reports whether the peer's FIN is reported
// (HangUp) while data it sent before is unread. Wine's server learns of
// the FIN only from a read that finds the buffer empty (it watches the
// host socket for POLLIN, not POLLRDHUP): while sent data is unread,
// neither AFD poll reports DISCONNECT under Wine. Windows' afd.sys reports
// it when the FIN arrives.
func hangUpWithDataUnread() bool { return !sockettest.UnderWine() }

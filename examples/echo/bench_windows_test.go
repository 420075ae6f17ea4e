// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package echo

import (
	"errors"
	"net/netip"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/windows"

	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

// osServers are BenchmarkEcho's servers of Windows alone: the WSAPoll loop.
func osServers() []benchServer { return []benchServer{{"wsapoll", wsapollServer}} }

// wsapollServer is the classic loop: one goroutine, WSAPoll over the
// listener and every connection.
func wsapollServer(b *testing.B) (netip.AddrPort, func()) {
	l, addr, err := iwinsock.Listen()
	if err != nil {
		b.Fatal(err)
	}
	if err := winsock.SetNonblock(l, true); err != nil {
		b.Fatal(err)
	}
	var stopped atomic.Bool
	done := make(chan error, 1)
	go func() {
		fds := []iwinsock.PollFd{{Fd: l, Events: iwinsock.POLLRDNORM}}
		var next []iwinsock.PollFd
		buf := make([]byte, 64<<10)
		for !stopped.Load() {
			if _, err := iwinsock.Poll(fds, 50); err != nil {
				done <- err
				return
			}
			next = append(next[:0], fds[0])
			for _, fd := range fds[1:] {
				if fd.REvents == 0 {
					next = append(next, fd)
					continue
				}
				n, err := winsock.Recv(fd.Fd, buf, 0)
				switch {
				case errors.Is(err, windows.WSAEWOULDBLOCK):
					next = append(next, fd)
				case err != nil || n == 0 || sendAll(fd.Fd, buf[:n], sendNow) != nil:
					windows.Closesocket(fd.Fd) // gone: drop it
				default:
					next = append(next, fd)
				}
			}
			if fds[0].REvents != 0 {
				for {
					c, _, err := winsock.Accept(l)
					if err != nil {
						break
					}
					winsock.SetNonblock(c, true)
					next = append(next, iwinsock.PollFd{Fd: c, Events: iwinsock.POLLRDNORM})
				}
			}
			fds, next = next, fds
		}
		for _, fd := range fds {
			windows.Closesocket(fd.Fd)
		}
		done <- nil
	}()
	return netip.AddrPortFrom(netip.AddrFrom4(addr.Addr), uint16(addr.Port)), func() {
		stopped.Store(true)
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller_test

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/poller"
)

// BenchmarkWaitOneActive measures one Wait that finds the one readable
// socket among idle ones, against a WSAPoll call over the same sockets. The
// poller's cost should stay flat as the idle sockets grow; WSAPoll's grows
// with them.
func BenchmarkWaitOneActive(b *testing.B) {
	backends := []poller.Backend{poller.AFD}
	if sockstate.Supported() {
		backends = append(backends, poller.SocketNotifications)
	}
	for _, idle := range []int{10, 100, 1000, 10000} {
		socks := udpSockets(b, idle+1)
		addr := localAddr(b, socks[idle])
		sender := udpSockets(b, 1)[0]
		// One datagram, never read: the active socket stays readable.
		if err := windows.Sendto(sender, []byte{1}, 0, addr); err != nil {
			b.Fatal(err)
		}
		for _, backend := range backends {
			b.Run(fmt.Sprintf("poller-%v/idle=%d", backend, idle), func(b *testing.B) {
				p, err := poller.New(poller.WithBackend(backend))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				for i, s := range socks {
					if err := p.Add(s, uint64(i), poller.Readable, poller.Level); err != nil {
						b.Fatal(err)
					}
				}
				events := make([]poller.Event, 8)
				b.ReportAllocs()
				for b.Loop() {
					if n, err := p.Wait(events, 5*time.Second); n != 1 || err != nil || events[0].Key != uint64(idle) {
						b.Fatalf("Wait: %d events (%v), %v", n, events[:n], err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("wsapoll/idle=%d", idle), func(b *testing.B) {
			fds := make([]winsock.PollFd, len(socks))
			for i, s := range socks {
				fds[i] = winsock.PollFd{Fd: s, Events: winsock.POLLRDNORM}
			}
			b.ReportAllocs()
			for b.Loop() {
				if n, err := winsock.Poll(fds, 5000); n != 1 || err != nil || fds[idle].REvents == 0 {
					b.Fatalf("WSAPoll: %d, %v", n, err)
				}
			}
		})
	}
}

func udpSockets(b *testing.B, n int) []windows.Handle {
	socks := make([]windows.Handle, n)
	for i := range socks {
		s, _, err := winsock.UDP()
		if err != nil {
			b.Fatalf("socket %d of %d: %v", i, n, err)
		}
		socks[i] = s
	}
	b.Cleanup(func() {
		for _, s := range socks {
			windows.Closesocket(s)
		}
	})
	return socks
}

func localAddr(b *testing.B, s windows.Handle) *windows.SockaddrInet4 {
	sa, err := windows.Getsockname(s)
	if err != nil {
		b.Fatal(err)
	}
	return sa.(*windows.SockaddrInet4)
}

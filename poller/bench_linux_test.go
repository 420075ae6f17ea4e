// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller_test

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sockstate/sockstate/poller"
)

// BenchmarkWaitEpoll times the poller's Wait against a loop on raw
// unix.EpollWait that does the same work on the same sockets, a
// sub-benchmark each, ".../poller" and ".../raw" (scripts/bench.sh linux
// runs them in processes of their own and compares them):
//
//   - ready/idle=N: one Wait (Level registrations of Readable, room for 8
//     events, a 5 s timeout) that finds the one readable UDP socket among N
//     idle ones; the raw loop's epoll_wait finds it by the index in its
//     epoll data, as the poller finds its slot.
//   - timeout=D/idle=1000: one Wait of D, 0 or 1 ms, on 1,000 idle
//     sockets, which returns nothing; the raw loop's epoll_wait of D.
//
// The raw loop's set holds an eventfd too, as the poller's does (its
// Wake), and it waits again on EINTR, as a correct loop must.
func BenchmarkWaitEpoll(b *testing.B) {
	for _, idle := range []int{10, 1000, 10000} {
		set := lazySet(b, idle, true)
		name := fmt.Sprintf("ready/idle=%d", idle)
		b.Run(name+"/poller", func(b *testing.B) { pollerWaits(b, set(b), 5*time.Second, 1) })
		b.Run(name+"/raw", func(b *testing.B) { rawWaits(b, set(b), 5*time.Second, 1) })
	}
	set := lazySet(b, 1000, false)
	for _, d := range []time.Duration{0, time.Millisecond} {
		name := fmt.Sprintf("timeout=%v/idle=1000", d)
		b.Run(name+"/poller", func(b *testing.B) { pollerWaits(b, set(b), d, 0) })
		b.Run(name+"/raw", func(b *testing.B) { rawWaits(b, set(b), d, 0) })
	}
}

// lazySet returns a function that gives idle UDP sockets and, if ready,
// one more, the last, with a datagram that is never read: the first
// sub-benchmark that calls it opens them (-bench may select none), the
// others share them, and they close when b ends.
func lazySet(b *testing.B, idle int, ready bool) func(sub *testing.B) []int {
	var socks []int
	return func(sub *testing.B) []int {
		if socks != nil {
			return socks
		}
		n := idle
		if ready {
			n++
		}
		for range n {
			s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				sub.Fatalf("socket %d of %d: %v", len(socks)+1, n, err)
			}
			socks = append(socks, s)
			b.Cleanup(func() { unix.Close(s) })
		}
		if ready {
			loopback := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
			r := socks[idle]
			if err := unix.Bind(r, loopback); err != nil {
				sub.Fatal(err)
			}
			addr, err := unix.Getsockname(r)
			if err == nil {
				err = unix.Sendto(socks[0], []byte{1}, 0, addr) // socks[0] is idle: it is not read
			}
			if err != nil {
				sub.Fatal(err)
			}
		}
		return socks
	}
}

// pollerWaits times Waits of timeout on a poller with socks registered,
// each of which must give want events (1: the last socket's).
func pollerWaits(b *testing.B, socks []int, timeout time.Duration, want int) {
	p, err := poller.New()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for i, s := range socks {
		if err := p.Add(s, uint64(i), poller.Readable, poller.Level); err != nil {
			b.Fatal(err)
		}
	}
	last := uint64(len(socks) - 1)
	events := make([]poller.Event, 8)
	b.ReportAllocs()
	for b.Loop() {
		n, err := p.Wait(events, timeout)
		if n != want || err != nil || (n == 1 && events[0].Key != last) {
			b.Fatalf("Wait: %d events (%v), %v; want %d", n, events[:n], err, want)
		}
	}
}

// rawWaits times epoll_wait calls of timeout (in whole milliseconds) on
// an epoll set of socks, each in its index, and an eventfd, each of which
// must give want events (1: the last socket's).
func rawWaits(b *testing.B, socks []int, timeout time.Duration, want int) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(ep)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(efd)
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}); err != nil {
		b.Fatal(err)
	}
	for i, s := range socks {
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, s, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}); err != nil {
			b.Fatal(err)
		}
	}
	last := int32(len(socks) - 1)
	ms := int(timeout / time.Millisecond)
	var events [8]unix.EpollEvent
	b.ReportAllocs()
	for b.Loop() {
		n, err := unix.EpollWait(ep, events[:], ms)
		for err == unix.EINTR {
			n, err = unix.EpollWait(ep, events[:], ms)
		}
		if n != want || err != nil || (n == 1 && events[0].Fd != last) {
			b.Fatalf("epoll_wait: %d events, %v; want %d", n, err, want)
		}
	}
}

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
// unix.EpollWait that does the same work on the same sockets, side by side
// in one process: blocks of calls alternate between the two, and so does
// the side that goes first (poller, raw, raw, poller, poller...), so that
// a change in the machine's speed (on a shared VM, from one second to the
// next) falls on both alike. An op is a call on each side; it reports
// each side's time a call (poller-ns/Wait, raw-ns/Wait, which
// scripts/bench.sh linux compares with issue 39's goal) and their ratio
// (poller/raw); B/op and allocs/op count both sides. The cases:
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
		b.Run(fmt.Sprintf("ready/idle=%d", idle), func(b *testing.B) { sideBySide(b, set(b), 5*time.Second, 1) })
	}
	set := lazySet(b, 1000, false)
	for _, d := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("timeout=%v/idle=1000", d), func(b *testing.B) { sideBySide(b, set(b), d, 0) })
	}
}

// sideBySide times b.N calls of timeout on each side, the poller's Wait
// and raw epoll_wait, on socks, in blocks of 100 calls that alternate
// (30 to 80 µs on this project's VM; a call at a time when it waits for
// its timeout); each call must give want events (1: the last socket's).
func sideBySide(b *testing.B, socks []int, timeout time.Duration, want int) {
	pollerLoop, closePoller := pollerWaits(b, socks, timeout, want)
	defer closePoller()
	rawLoop, closeRaw := rawWaits(b, socks, timeout, want)
	defer closeRaw()
	sides := [2]func(calls int){pollerLoop, rawLoop}
	block := 100
	if want == 0 && timeout > 0 {
		block = 1
	}
	var spent [2]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for done, k := 0, 0; done < b.N; done, k = done+block, k+1 {
		calls := min(block, b.N-done)
		for j := range 2 {
			side := (k + j) % 2 // who goes first alternates
			start := time.Now()
			sides[side](calls)
			spent[side] += time.Since(start)
		}
	}
	b.ReportMetric(float64(spent[0])/float64(b.N), "poller-ns/Wait")
	b.ReportMetric(float64(spent[1])/float64(b.N), "raw-ns/Wait")
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "poller/raw")
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

// pollerWaits returns a loop of Waits of timeout on a poller with socks
// registered, each of which must give want events (1: the last socket's),
// and a function that closes the poller.
func pollerWaits(b *testing.B, socks []int, timeout time.Duration, want int) (loop func(calls int), closeIt func()) {
	p, err := poller.New()
	if err != nil {
		b.Fatal(err)
	}
	for i, s := range socks {
		if err := p.Add(s, uint64(i), poller.Readable, poller.Level); err != nil {
			p.Close()
			b.Fatal(err)
		}
	}
	last := uint64(len(socks) - 1)
	events := make([]poller.Event, 8)
	loop = func(calls int) {
		for range calls {
			n, err := p.Wait(events, timeout)
			if n != want || err != nil || (n == 1 && events[0].Key != last) {
				b.Fatalf("Wait: %d events (%v), %v; want %d", n, events[:n], err, want)
			}
		}
	}
	return loop, func() { p.Close() }
}

// rawWaits returns a loop of epoll_wait calls of timeout (in whole
// milliseconds) on an epoll set of socks, each in its index, and an
// eventfd, each of which must give want events (1: the last socket's),
// and a function that closes the set.
func rawWaits(b *testing.B, socks []int, timeout time.Duration, want int) (loop func(calls int), closeIt func()) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		efd = -1
	} else {
		err = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1})
	}
	for i := 0; i < len(socks) && err == nil; i++ {
		err = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, socks[i], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)})
	}
	closeIt = func() {
		unix.Close(ep)
		if efd >= 0 {
			unix.Close(efd)
		}
	}
	if err != nil {
		closeIt()
		b.Fatal(err)
	}
	last := int32(len(socks) - 1)
	ms := int(timeout / time.Millisecond)
	var events [8]unix.EpollEvent
	loop = func(calls int) {
		for range calls {
			n, err := unix.EpollWait(ep, events[:], ms)
			for err == unix.EINTR {
				n, err = unix.EpollWait(ep, events[:], ms)
			}
			if n != want || err != nil || (n == 1 && events[0].Fd != last) {
				b.Fatalf("epoll_wait: %d events, %v; want %d", n, err, want)
			}
		}
	}
	return loop, closeIt
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"

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
		sockets := oneActive(b, idle)
		for _, backend := range backends {
			b.Run(fmt.Sprintf("poller-%v/idle=%d", backend, idle), func(b *testing.B) {
				waitOneActive(b, backend, sockets(b))
			})
		}
		b.Run(fmt.Sprintf("wsapoll/idle=%d", idle), func(b *testing.B) {
			socks := sockets(b)
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

// oneActive returns a function that gives idle+1 UDP sockets, the last one
// readable: the first sub-benchmark of b that calls it opens them (-bench
// may select none), the others share them, and they close when b ends.
func oneActive(b *testing.B, idle int) func(sub *testing.B) []windows.Handle {
	var socks []windows.Handle
	return func(sub *testing.B) []windows.Handle {
		if socks == nil {
			socks = udpSockets(sub, b, idle+1)
			addr := localAddr(sub, socks[idle])
			sender := udpSockets(sub, b, 1)[0]
			// One datagram, never read: the active socket stays readable.
			if err := windows.Sendto(sender, []byte{1}, 0, addr); err != nil {
				sub.Fatal(err)
			}
		}
		return socks
	}
}

// waitOneActive times one Wait of a poller on backend that finds the last
// of socks, the readable one, among the others.
func waitOneActive(b *testing.B, backend poller.Backend, socks []windows.Handle) {
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
	active := uint64(len(socks) - 1)
	events := make([]poller.Event, 8)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := p.Wait(events, 5*time.Second); n != 1 || err != nil || events[0].Key != active {
			b.Fatalf("Wait: %d events (%v), %v", n, events[:n], err)
		}
	}
}

// BenchmarkRegisteredMemory reports what registering 10,000 sockets adds to
// the process (the sockets are opened before): its working set
// (ws-B/socket, as the C reference loop's "cloop mem" measures it) and the
// Go heap (heap-B/socket). The first iteration measures; later ones reuse
// its memory. scripts/bench.sh runs it with -benchtime 1x.
func BenchmarkRegisteredMemory(b *testing.B) {
	const n = 10000
	socks := udpSockets(b, b, n)
	measured := false
	for b.Loop() {
		p, err := poller.New(poller.WithBackend(poller.AFD))
		if err != nil {
			b.Fatal(err)
		}
		ws0, heap0 := memory(b)
		for i, s := range socks {
			if err := p.Add(s, uint64(i), poller.Readable, poller.Level); err != nil {
				b.Fatal(err)
			}
		}
		ws1, heap1 := memory(b)
		if !measured {
			measured = true
			b.ReportMetric(float64(int64(ws1)-int64(ws0))/n, "ws-B/socket")
			b.ReportMetric(float64(int64(heap1)-int64(heap0))/n, "heap-B/socket")
		}
		p.Close()
	}
}

// vmCounters is VM_COUNTERS, what NtQueryInformationProcess returns for
// ProcessVmCounters.
type vmCounters struct {
	PeakVirtualSize, VirtualSize                       uintptr
	PageFaultCount                                     uint32
	PeakWorkingSetSize, WorkingSetSize                 uintptr
	QuotaPeakPagedPoolUsage, QuotaPagedPoolUsage       uintptr
	QuotaPeakNonPagedPoolUsage, QuotaNonPagedPoolUsage uintptr
	PagefileUsage, PeakPagefileUsage                   uintptr
}

// memory returns the process's working set and the bytes of live Go heap,
// after a garbage collection.
func memory(b *testing.B) (ws uintptr, heap uint64) {
	runtime.GC()
	var vm vmCounters
	if err := windows.NtQueryInformationProcess(windows.CurrentProcess(), windows.ProcessVmCounters,
		unsafe.Pointer(&vm), uint32(unsafe.Sizeof(vm)), nil); err != nil {
		b.Fatalf("NtQueryInformationProcess: %v", err)
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return vm.WorkingSetSize, m.HeapAlloc
}

// udpSockets opens n UDP sockets, failing b on an error, and closes them
// when owner ends.
func udpSockets(b *testing.B, owner testing.TB, n int) []windows.Handle {
	socks := make([]windows.Handle, n)
	for i := range socks {
		s, _, err := winsock.UDP()
		if err != nil {
			b.Fatalf("socket %d of %d: %v", i, n, err)
		}
		socks[i] = s
	}
	owner.Cleanup(func() {
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

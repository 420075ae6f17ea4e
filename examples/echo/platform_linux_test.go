// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package echo

import (
	"net/netip"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sockstate/sockstate/poller"
)

// The tests' socket helpers on Linux; platform_windows_test.go has the
// same functions.

// backends are the poller's backends that Linux has.
func backends() []poller.Backend { return []poller.Backend{poller.Epoll} }

// udpSocket opens a UDP socket bound to 127.0.0.1 at a port the OS picks.
func udpSocket() (poller.Socket, netip.AddrPort, error) {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	err = unix.Bind(s, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	var sa unix.Sockaddr
	if err == nil {
		sa, err = unix.Getsockname(s)
	}
	if err != nil {
		unix.Close(s)
		return -1, netip.AddrPort{}, err
	}
	a := sa.(*unix.SockaddrInet4)
	return s, netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)), nil
}

// sendTo sends the datagram b from s to addr.
func sendTo(s poller.Socket, b []byte, addr netip.AddrPort) error {
	return unix.Sendto(s, b, 0, &unix.SockaddrInet4{Addr: addr.Addr().As4(), Port: int(addr.Port())})
}

// resetConn resets the connection of s (SO_LINGER 0) and closes s.
func resetConn(s poller.Socket) error {
	err := unix.SetsockoptLinger(s, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
	if cerr := unix.Close(s); err == nil {
		err = cerr
	}
	return err
}

// reserveDescriptors makes RLIMIT_NOFILE at least n for this process
// (Go's runtime has raised the soft limit to the hard one already; a root
// process may raise the hard one too), or skips the test, naming the
// limit.
func reserveDescriptors(t testing.TB, n int) {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("getrlimit RLIMIT_NOFILE: %v", err)
	}
	if lim.Cur >= uint64(n) {
		return
	}
	want := lim
	want.Cur = uint64(n)
	want.Max = max(lim.Max, want.Cur)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err != nil {
		t.Skipf("%d descriptors needed; RLIMIT_NOFILE is %d (hard limit %d) and raising it failed: %v", n, lim.Cur, lim.Max, err)
	}
	t.Logf("RLIMIT_NOFILE raised from %d (hard limit %d) to %d", lim.Cur, lim.Max, n)
}

// osServers are BenchmarkEcho's servers of Linux alone: none (the poller's
// server is the epoll loop).
func osServers() []benchServer { return nil }

// TestAcceptAllocs: taking a connection allocates nothing (unix.Accept4,
// which returns the peer's address, made two allocations a connection: at
// 10,000 connections a few hundred kilobytes of garbage that the server's
// memory a connection counted).
func TestAcceptAllocs(t *testing.T) {
	l, addr, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer closeSocket(l)
	const runs = 50
	for range runs + 1 { // AllocsPerRun runs once more, to warm up
		c, err := dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer closeSocket(c)
	}
	if n := testing.AllocsPerRun(runs, func() {
		c, err := acceptConn(l)
		if err != nil {
			t.Fatal(err)
		}
		closeSocket(c)
	}); n != 0 {
		t.Errorf("%.1f allocations a connection taken", n)
	}
}

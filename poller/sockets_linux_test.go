// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// forEachBackend runs test on a new Poller of every backend of this
// system: on Linux, epoll.
func forEachBackend(t *testing.T, test func(t *testing.T, p *Poller)) {
	t.Helper()
	t.Run(Epoll.String(), func(t *testing.T) {
		p, err := New(WithBackend(Epoll))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		test(t, p)
	})
}

// resetPeer resets the connection of s (SO_LINGER 0, then close): its
// peer gets a RST. s is closed, once (sockettest.Close).
func resetPeer(t *testing.T, s Socket) {
	t.Helper()
	if err := unix.SetsockoptLinger(s, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0}); err != nil {
		t.Fatal(err)
	}
	sockettest.Close(t, s)
}

// shutdownWrite shuts down the sending side of s: its peer gets a FIN.
func shutdownWrite(t *testing.T, s Socket) {
	t.Helper()
	if err := unix.Shutdown(s, unix.SHUT_WR); err != nil {
		t.Fatal(err)
	}
}

// tcpSocket returns a non-blocking TCP socket, not connected; it is
// closed when the test ends.
func tcpSocket(t *testing.T) Socket {
	t.Helper()
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(s) })
	return s
}

// connectRefused starts a connect of the non-blocking TCP socket s to a
// loopback port where nothing listens: it fails, now or soon.
func connectRefused(t *testing.T, s Socket) {
	t.Helper()
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(l)
	// A port bound and not listening refuses, and no other test takes it
	// meanwhile.
	if err := unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	addr, err := unix.Getsockname(l)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Connect(s, addr); err != nil && !errors.Is(err, unix.EINPROGRESS) && !errors.Is(err, unix.ECONNREFUSED) {
		t.Fatalf("connect: %v", err)
	}
}

// socketError reads (and so clears) the pending error of s, nil if none.
func socketError(t *testing.T, s Socket) error {
	t.Helper()
	e, err := unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		t.Fatal(err)
	}
	if e == 0 {
		return nil
	}
	return unix.Errno(e)
}

// dupSocket returns a second descriptor of the socket of s, and a
// function that closes it, once (it is closed when the test ends, if not
// before).
func dupSocket(t *testing.T, s Socket) (second Socket, closeSecond func()) {
	t.Helper()
	d, err := unix.FcntlInt(uintptr(s), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closeSecond = func() { once.Do(func() { unix.Close(d) }) }
	t.Cleanup(closeSecond)
	return d, closeSecond
}

// udpPair returns a non-blocking UDP socket bound to loopback (receiver)
// and a socket connected to it (sender); both are closed when the test
// ends.
func udpPair(t *testing.T) (sender, receiver Socket) {
	t.Helper()
	socket := func() Socket {
		s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(s) })
		return s
	}
	sender, receiver = socket(), socket()
	if err := unix.Bind(receiver, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	addr, err := unix.Getsockname(receiver)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Connect(sender, addr); err != nil {
		t.Fatal(err)
	}
	return sender, receiver
}

// recvSome makes one receive of up to n bytes on the non-blocking socket
// s (a part of a stream, or one datagram) and returns what it read, ""
// if nothing was there.
func recvSome(t *testing.T, s Socket, n int) string {
	t.Helper()
	buf := make([]byte, n)
	got, err := unix.Read(s, buf)
	if errors.Is(err, unix.EAGAIN) {
		return ""
	}
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	return string(buf[:got])
}

// threadCPU returns the CPU time (user and system) of the calling thread,
// which the caller has locked (runtime.LockOSThread).
func threadCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

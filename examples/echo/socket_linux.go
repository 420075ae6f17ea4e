// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package echo

import (
	"errors"
	"fmt"
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sockstate/sockstate/poller"
)

// The socket calls of the echo server and its clients on Linux: plain
// descriptors through golang.org/x/sys/unix. socket_windows.go has the same
// functions.

// listenLoopback opens a non-blocking TCP socket listening on 127.0.0.1,
// at a port the OS picks, and returns it with that address.
func listenLoopback() (poller.Socket, netip.AddrPort, error) {
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	err = unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	if err == nil {
		err = unix.Listen(l, unix.SOMAXCONN)
	}
	var sa unix.Sockaddr
	if err == nil {
		sa, err = unix.Getsockname(l)
	}
	if err != nil {
		unix.Close(l)
		return -1, netip.AddrPort{}, err
	}
	a := sa.(*unix.SockaddrInet4)
	return l, netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)), nil
}

// acceptConn takes a pending connection from the listener l as a
// non-blocking socket. It asks for no address: unix.Accept4 returns the
// peer's, two allocations a connection, which the server does not need.
func acceptConn(l poller.Socket) (poller.Socket, error) {
	for {
		c, _, errno := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(l), 0, 0, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
		switch errno {
		case 0:
			return int(c), nil
		case unix.EINTR:
			continue
		}
		return -1, errno
	}
}

// dial opens a blocking TCP socket connected to addr, an IPv4 address.
func dial(addr netip.AddrPort) (poller.Socket, error) {
	ip := addr.Addr().Unmap()
	if !ip.Is4() {
		return -1, fmt.Errorf("dial %v: not an IPv4 address", addr)
	}
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Connect(s, &unix.SockaddrInet4{Addr: ip.As4(), Port: int(addr.Port())}); err != nil {
		unix.Close(s)
		return -1, err
	}
	return s, nil
}

// recv reads from s into b: 0 and a nil error at the end of the stream.
func recv(s poller.Socket, b []byte) (int, error) {
	n, err := unix.Read(s, b)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// send writes b to s and returns how much of it the socket took. A write
// to a connection that the peer reset fails with EPIPE and raises SIGPIPE,
// which Go's runtime ignores for every descriptor but standard output and
// error (os/signal's doc).
func send(s poller.Socket, b []byte) (int, error) {
	n, err := unix.Write(s, b)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// recvNow and sendNow are the server's recv and send, on its non-blocking
// sockets: raw system calls, which the Go scheduler is not told of. They
// never wait for I/O here; but a loopback write carries the segment
// through to the peer's socket and can last over 20 µs, after which the
// scheduler would take the goroutine's P back and wake another thread
// for it, about 0.2 futex and 0.2 nanosleep system calls a message more
// (doc/benchmarks.md, "Linux, natively"). Never on a blocking socket (the
// clients'): the raw call would hold its thread and P while it waits.
func recvNow(s poller.Socket, b []byte) (int, error) {
	return rawIO(unix.SYS_READ, s, b)
}

func sendNow(s poller.Socket, b []byte) (int, error) {
	return rawIO(unix.SYS_WRITE, s, b)
}

func rawIO(call uintptr, s poller.Socket, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, errno := unix.RawSyscall(call, uintptr(s), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// shutdownWrite ends what s sends: the peer reads the end of the stream.
func shutdownWrite(s poller.Socket) error { return unix.Shutdown(s, unix.SHUT_WR) }

// closeSocket closes s.
func closeSocket(s poller.Socket) error { return unix.Close(s) }

// wouldBlock reports whether err is a non-blocking socket's "try again".
func wouldBlock(err error) bool { return errors.Is(err, unix.EAGAIN) }

// peerGone reports whether err says that the peer reset or aborted the
// connection, or that it is gone (a write after its reset): the peer's
// doing, not a fault of the server.
func peerGone(err error) bool {
	return errors.Is(err, unix.ECONNRESET) || errors.Is(err, unix.ECONNABORTED) || errors.Is(err, unix.EPIPE)
}

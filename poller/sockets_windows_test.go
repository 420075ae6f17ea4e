// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

// The socket helpers of the tests that every backend shares, on Windows;
// sockets_linux_test.go has the same functions on Linux.

// resetPeer resets the connection of s (SO_LINGER 0, then closesocket): its
// peer gets a RST. s is closed, once (sockettest.Close).
func resetPeer(t *testing.T, s Socket) {
	t.Helper()
	if err := windows.SetsockoptLinger(s, windows.SOL_SOCKET, windows.SO_LINGER, &windows.Linger{Onoff: 1, Linger: 0}); err != nil {
		t.Fatal(err)
	}
	sockettest.Close(t, s)
}

// shutdownWrite shuts down the sending side of s: its peer gets a FIN.
func shutdownWrite(t *testing.T, s Socket) {
	t.Helper()
	if err := windows.Shutdown(s, windows.SHUT_WR); err != nil {
		t.Fatal(err)
	}
}

// tcpSocket returns a non-blocking TCP socket, not connected; it is
// closed when the test ends.
func tcpSocket(t *testing.T) Socket {
	t.Helper()
	s, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(s) })
	if err := winsock.SetNonblock(s, true); err != nil {
		t.Fatal(err)
	}
	return s
}

// connectRefused starts a connect of the non-blocking TCP socket s to a
// loopback port where nothing listens: it fails, now or soon.
func connectRefused(t *testing.T, s Socket) {
	t.Helper()
	// A port bound (by a UDP socket) and not listening for TCP refuses,
	// and no other test takes it meanwhile.
	l, addr, err := iwinsock.UDP()
	if err != nil {
		t.Fatal(err)
	}
	defer windows.Closesocket(l)
	if err := windows.Connect(s, addr); err != nil && !errors.Is(err, windows.WSAEWOULDBLOCK) {
		t.Fatalf("connect: %v", err)
	}
}

// socketError reads (and so clears) the pending error of s, nil if none.
func socketError(t *testing.T, s Socket) error {
	t.Helper()
	const soError = 0x1007 // SO_ERROR, which x/sys/windows lacks
	e, err := windows.GetsockoptInt(s, windows.SOL_SOCKET, soError)
	if err != nil {
		t.Fatal(err)
	}
	if e == 0 {
		return nil
	}
	return windows.Errno(e)
}

// dupSocket returns a second handle of the socket of s
// (WSADuplicateSocket), and a function that closes it, once (it is closed
// when the test ends, if not before).
func dupSocket(t *testing.T, s Socket) (second Socket, closeSecond func()) {
	t.Helper()
	var info windows.WSAProtocolInfo
	if err := windows.WSADuplicateSocket(s, windows.GetCurrentProcessId(), &info); err != nil {
		t.Fatal(err)
	}
	const fromProtocolInfo = -1 // FROM_PROTOCOL_INFO
	d, err := windows.WSASocket(fromProtocolInfo, fromProtocolInfo, fromProtocolInfo, &info, 0, windows.WSA_FLAG_OVERLAPPED)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closeSecond = func() { once.Do(func() { windows.Closesocket(d) }) }
	t.Cleanup(closeSecond)
	return d, closeSecond
}

// udpPair returns a non-blocking UDP socket bound to loopback (receiver)
// and a socket connected to it (sender); both are closed when the test
// ends.
func udpPair(t *testing.T) (sender, receiver Socket) {
	t.Helper()
	receiver, addr, err := iwinsock.UDP()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(receiver) })
	if err := winsock.SetNonblock(receiver, true); err != nil {
		t.Fatal(err)
	}
	sender, err = winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(sender) })
	if err := windows.Connect(sender, addr); err != nil {
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
	got, err := winsock.Recv(s, buf, 0)
	if errors.Is(err, windows.WSAEWOULDBLOCK) {
		return ""
	}
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	return string(buf[:got])
}

var getThreadTimes = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetThreadTimes")

// threadCPU returns the CPU time (user and kernel) of the calling thread,
// which the caller has locked (runtime.LockOSThread).
func threadCPU(t *testing.T) time.Duration {
	t.Helper()
	var creation, exit, kernel, user windows.Filetime
	thread := windows.CurrentThread()
	r, _, err := getThreadTimes.Call(uintptr(thread),
		uintptr(unsafe.Pointer(&creation)), uintptr(unsafe.Pointer(&exit)),
		uintptr(unsafe.Pointer(&kernel)), uintptr(unsafe.Pointer(&user)))
	if r == 0 {
		t.Fatalf("GetThreadTimes: %v", err)
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100
}

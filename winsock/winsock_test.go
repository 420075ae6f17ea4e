// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package winsock_test

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/winsock"
)

// listen opens a TCP socket listening on 127.0.0.1 at a port the OS picks;
// it is closed when the test ends.
func listen(t *testing.T) (windows.Handle, *windows.SockaddrInet4) {
	t.Helper()
	l, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(l) })
	if err := windows.Bind(l, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := windows.Listen(l, windows.SOMAXCONN); err != nil {
		t.Fatal(err)
	}
	sa, err := windows.Getsockname(l)
	if err != nil {
		t.Fatal(err)
	}
	return l, sa.(*windows.SockaddrInet4)
}

// dial connects a new blocking TCP socket to addr; it is closed when the
// test ends.
func dial(t *testing.T, addr *windows.SockaddrInet4) windows.Handle {
	t.Helper()
	c, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(c) })
	if err := windows.Connect(c, addr); err != nil {
		t.Fatal(err)
	}
	return c
}

// accept accepts one connection from l; it is closed when the test ends.
func accept(t *testing.T, l windows.Handle) (windows.Handle, windows.Sockaddr) {
	t.Helper()
	s, sa, err := winsock.Accept(l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(s) })
	return s, sa
}

func TestAcceptReturnsThePeerAddress(t *testing.T) {
	l, addr := listen(t)
	c := dial(t, addr)
	_, peer := accept(t, l)
	local, err := windows.Getsockname(c)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := peer.(*windows.SockaddrInet4)
	want := local.(*windows.SockaddrInet4)
	if !ok || got.Addr != want.Addr || got.Port != want.Port {
		t.Fatalf("Accept returned the peer %#v, want the client's address %#v", peer, want)
	}
}

func TestNonblockingAcceptWouldBlock(t *testing.T) {
	l, addr := listen(t)
	if err := winsock.SetNonblock(l, true); err != nil {
		t.Fatal(err)
	}
	s, sa, err := winsock.Accept(l)
	if !errors.Is(err, windows.WSAEWOULDBLOCK) || s != windows.InvalidHandle || sa != nil {
		t.Fatalf("Accept with nothing pending = %v, %v, %v; want InvalidHandle, nil, WSAEWOULDBLOCK", s, sa, err)
	}
	dial(t, addr)
	// The connection is pending once connect returns; a loopback accept
	// may still need a moment under some stacks, so poll briefly.
	for i := 0; ; i++ {
		s, _, err = winsock.Accept(l)
		if err == nil {
			windows.Closesocket(s)
			return
		}
		if !errors.Is(err, windows.WSAEWOULDBLOCK) || i == 1000 {
			t.Fatalf("Accept after connect: %v", err)
		}
		windows.SleepEx(1, false)
	}
}

func TestAcceptNoAddr(t *testing.T) {
	l, addr := listen(t)
	if err := winsock.SetNonblock(l, true); err != nil {
		t.Fatal(err)
	}
	if s, err := winsock.AcceptNoAddr(l); !errors.Is(err, windows.WSAEWOULDBLOCK) || s != windows.InvalidHandle {
		t.Fatalf("AcceptNoAddr with nothing pending = %v, %v; want InvalidHandle, WSAEWOULDBLOCK", s, err)
	}
	const conns = 20
	clients := make([]windows.Handle, conns)
	for i := range clients {
		clients[i] = dial(t, addr)
	}
	var accepted []windows.Handle
	t.Cleanup(func() {
		for _, s := range accepted {
			windows.Closesocket(s)
		}
	})
	accepted = make([]windows.Handle, 0, conns)
	// Blocking again, so that each accept returns a connection (every
	// client has connected) and none returns an error, which allocates.
	if err := winsock.SetNonblock(l, false); err != nil {
		t.Fatal(err)
	}
	var failed error
	// AllocsPerRun calls the function once more than it counts.
	allocs := testing.AllocsPerRun(conns-1, func() {
		s, err := winsock.AcceptNoAddr(l)
		if err != nil {
			failed = err
			return
		}
		accepted = append(accepted, s)
	})
	if failed != nil {
		t.Fatalf("AcceptNoAddr after connect: %v", failed)
	}
	if allocs != 0 {
		t.Errorf("%v allocations an AcceptNoAddr that returns a connection", allocs)
	}
	// Each accepted socket is connected to a client: what the client
	// sends arrives on one of them.
	for i, c := range clients {
		msg := []byte{byte(i)}
		if _, err := winsock.Send(c, msg, 0); err != nil {
			t.Fatal(err)
		}
	}
	got := map[byte]bool{}
	for _, s := range accepted {
		if err := winsock.SetNonblock(s, false); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1)
		if n, err := winsock.Recv(s, buf, 0); err != nil || n != 1 {
			t.Fatalf("recv on an accepted socket: %d, %v", n, err)
		}
		got[buf[0]] = true
	}
	if len(accepted) != conns || len(got) != conns {
		t.Fatalf("%d connections accepted, %d distinct messages read; want %d", len(accepted), len(got), conns)
	}
}

func TestRecvWouldBlockThenData(t *testing.T) {
	l, addr := listen(t)
	c := dial(t, addr)
	s, _ := accept(t, l)
	if err := winsock.SetNonblock(s, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := winsock.Recv(s, buf, 0)
	var errno windows.Errno
	if !errors.Is(err, windows.WSAEWOULDBLOCK) || !errors.As(err, &errno) || n != 0 {
		t.Fatalf("Recv with nothing to read = %d, %v (%T); want 0 and a windows.Errno matching WSAEWOULDBLOCK", n, err, err)
	}

	// Back in blocking mode, Recv waits for the data.
	if err := winsock.SetNonblock(s, false); err != nil {
		t.Fatal(err)
	}
	if n, err := winsock.Send(c, []byte("hello"), 0); err != nil || n != 5 {
		t.Fatalf("Send = %d, %v", n, err)
	}
	n, err = winsock.Recv(s, buf, 0)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("Recv = %q, %v; want \"hello\"", buf[:n], err)
	}

	// FIONREAD counts what waits; MSG_PEEK leaves it there.
	if _, err := winsock.Send(c, []byte("peek"), 0); err != nil {
		t.Fatal(err)
	}
	for {
		var pending uint32
		if err := winsock.Ioctlsocket(s, winsock.FIONREAD, &pending); err != nil {
			t.Fatal(err)
		}
		if pending == 4 {
			break
		}
		windows.SleepEx(1, false)
	}
	for range 2 {
		n, err = winsock.Recv(s, buf, windows.MSG_PEEK)
		if err != nil || string(buf[:n]) != "peek" {
			t.Fatalf("Recv with MSG_PEEK = %q, %v", buf[:n], err)
		}
	}

	// The peer's close reads as 0 bytes and no error.
	if err := windows.Shutdown(c, windows.SHUT_WR); err != nil {
		t.Fatal(err)
	}
	if n, err := winsock.Recv(s, buf, 0); err != nil || string(buf[:n]) != "peek" {
		t.Fatalf("Recv = %q, %v", buf[:n], err)
	}
	if n, err := winsock.Recv(s, buf, 0); err != nil || n != 0 {
		t.Fatalf("Recv at the end of the stream = %d, %v; want 0, nil", n, err)
	}
}

func TestSendWouldBlockWhenTheBufferIsFull(t *testing.T) {
	l, addr := listen(t)
	c := dial(t, addr)
	s, _ := accept(t, l)
	if err := winsock.SetNonblock(c, true); err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	sent := 0
	for sent < 256<<20 { // the peer reads nothing: the buffers fill up
		n, err := winsock.Send(c, chunk, 0)
		if errors.Is(err, windows.WSAEWOULDBLOCK) {
			break
		}
		if err != nil {
			t.Fatalf("Send after %d bytes: %v", sent, err)
		}
		sent += n
	}
	if sent >= 256<<20 {
		t.Fatalf("sent %d bytes to a peer that reads nothing without WSAEWOULDBLOCK", sent)
	}
	// What was taken arrives whole.
	if err := windows.Shutdown(c, windows.SHUT_WR); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	got := 0
	for {
		n, err := winsock.Recv(s, buf, 0)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		got += n
	}
	if got != sent {
		t.Fatalf("received %d bytes, the sender's socket took %d", got, sent)
	}
}

func TestErrorsOnANonSocket(t *testing.T) {
	const notASocket = windows.Handle(0x7ffffff0)
	buf := make([]byte, 1)
	if err := winsock.SetNonblock(notASocket, true); !errors.Is(err, windows.WSAENOTSOCK) {
		t.Errorf("SetNonblock: %v, want WSAENOTSOCK", err)
	}
	if _, err := winsock.Recv(notASocket, buf, 0); !errors.Is(err, windows.WSAENOTSOCK) {
		t.Errorf("Recv: %v, want WSAENOTSOCK", err)
	}
	if _, err := winsock.Send(notASocket, buf, 0); !errors.Is(err, windows.WSAENOTSOCK) {
		t.Errorf("Send: %v, want WSAENOTSOCK", err)
	}
	if s, sa, err := winsock.Accept(notASocket); !errors.Is(err, windows.WSAENOTSOCK) || s != windows.InvalidHandle || sa != nil {
		t.Errorf("Accept: %v, %v, %v; want InvalidHandle, nil, WSAENOTSOCK", s, sa, err)
	}
}

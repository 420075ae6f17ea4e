// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package winsock

import (
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ioctlsocket commands of winsock2.h.
const (
	// FIONBIO (_IOW('f', 126, u_long)) sets the socket's non-blocking mode:
	// on when the argument is not 0.
	FIONBIO = 0x8004667e
	// FIONREAD (_IOR('f', 127, u_long)) returns how many bytes one recv can
	// read at once.
	FIONREAD = 0x4004667f
)

// startup calls WSAStartup once for the process. Winsock counts its
// starts, and this one is never undone: the process may use sockets until
// it exits.
var startup = sync.OnceValue(func() error {
	var data windows.WSAData
	return windows.WSAStartup(0x0202, &data)
})

// Socket starts Winsock 2.2 once for the process (WSAStartup), then opens a
// socket as windows.Socket does: domain, typ and proto are the AF_*, SOCK_*
// and IPPROTO_* constants of golang.org/x/sys/windows. The socket is
// blocking; close it with windows.Closesocket.
//
// windows.Socket alone fails with WSANOTINITIALISED in a program that has
// not started Winsock (importing Go's net package starts it).
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-socket
func Socket(domain, typ, proto int) (windows.Handle, error) {
	if err := startup(); err != nil {
		return windows.InvalidHandle, err
	}
	return windows.Socket(domain, typ, proto)
}

// Ioctlsocket calls ioctlsocket: it applies the command cmd (such as
// [FIONBIO] or [FIONREAD]) to the socket s, reading and writing the u_long
// at arg. Errors are windows.Errno values such as windows.WSAENOTSOCK.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-ioctlsocket
func Ioctlsocket(s windows.Handle, cmd uint32, arg *uint32) error {
	return ioctlsocket(s, cmd, arg)
}

// SetNonblock turns the non-blocking mode of the socket s on or off
// (ioctlsocket with [FIONBIO]). In non-blocking mode, [Accept], [Recv],
// [Send] and connect return an error matching windows.WSAEWOULDBLOCK
// instead of waiting. Use it on every socket that an event loop reads or
// writes after a readiness notification. syscall.SetNonblock does nothing
// on Windows.
//
// Winsock refuses (windows.WSAEINVAL) to turn the mode off while a
// WSAAsyncSelect or WSAEventSelect is active on the socket.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-ioctlsocket
func SetNonblock(s windows.Handle, nonblocking bool) error {
	var arg uint32
	if nonblocking {
		arg = 1
	}
	return ioctlsocket(s, FIONBIO, &arg)
}

// Accept calls accept: it takes one pending connection from the listening
// socket l and returns the new socket with the peer's address. The new
// socket has the properties of l; close it with windows.Closesocket. On a
// non-blocking l with no pending connection the error matches
// windows.WSAEWOULDBLOCK. windows.Accept of golang.org/x/sys returns
// EWINDOWS.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-accept
func Accept(l windows.Handle) (windows.Handle, windows.Sockaddr, error) {
	var rsa windows.RawSockaddrAny
	size := int32(unsafe.Sizeof(rsa))
	s, err := accept(l, &rsa, &size)
	if err != nil {
		return windows.InvalidHandle, nil, err
	}
	sa, err := rsa.Sockaddr()
	if err != nil {
		windows.Closesocket(s)
		return windows.InvalidHandle, nil, err
	}
	return s, sa, nil
}

// AcceptNoAddr calls accept without asking for the peer's address: it takes
// one pending connection from the listening socket l, as [Accept] does,
// and allocates nothing for it, where Accept allocates the address it
// returns (32 bytes a connection for IPv4, garbage at once for a server
// that does not look at it). The new socket has the properties of l;
// close it with windows.Closesocket. On a non-blocking l with no pending
// connection the error matches windows.WSAEWOULDBLOCK; an error, as from
// every call of this package, is a windows.Errno in an error interface,
// which allocates (8 bytes).
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-accept
func AcceptNoAddr(l windows.Handle) (windows.Handle, error) {
	return accept(l, nil, nil)
}

// Recv calls recv: it reads from the connected socket s into buf, with the
// MSG_* flags of golang.org/x/sys/windows (0 for none), and returns how
// many bytes it read. 0 bytes and a nil error mean that the peer closed its
// side (for a stream socket and a non-empty buf). On a non-blocking socket
// with nothing to read, the error matches windows.WSAEWOULDBLOCK. On an
// error the count is 0.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-recv
func Recv(s windows.Handle, buf []byte, flags int) (int, error) {
	n, err := recv(s, buf, int32(flags))
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

// Send calls send: it writes buf to the connected socket s, with the MSG_*
// flags of golang.org/x/sys/windows (0 for none), and returns how many
// bytes the socket took, which may be fewer than len(buf) on a non-blocking
// socket. When the send buffer is full the error matches
// windows.WSAEWOULDBLOCK; wait until the socket is writable and send the
// rest. On an error the count is 0.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-send
func Send(s windows.Handle, buf []byte, flags int) (int, error) {
	n, err := send(s, buf, int32(flags))
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

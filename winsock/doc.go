// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

// Package winsock binds the few Winsock calls of ws2_32.dll that a user of
// socket state notifications needs and golang.org/x/sys/windows lacks:
// [SetNonblock] and [Ioctlsocket] (ioctlsocket, FIONBIO), and [Accept]
// (or [AcceptNoAddr]), [Recv] and [Send], whose errors are windows.Errno values, so that
// errors.Is(err, windows.WSAEWOULDBLOCK) tells a non-blocking socket that
// has nothing to give from a failure. [Socket] opens a socket after
// starting Winsock once.
//
// Readiness APIs report that a socket may be read or written; the call that
// follows must not block, or one slow peer stalls an event loop. Edge
// triggering in particular needs each socket drained until
// WSAEWOULDBLOCK. Go's own helpers cannot do this on Windows:
// syscall.SetNonblock is a no-op there, and windows.Accept returns
// EWINDOWS.
//
// Use these calls on plain Winsock sockets (from [Socket] or
// windows.Socket), such as those registered with
// github.com/sockstate/sockstate or its poller. Sockets of Go's net package
// already belong to the runtime's network poller: read and write them
// through net.Conn.
//
// The calls are written by mkwinsyscall from the //sys lines of
// syscall_windows.go, like golang.org/x/sys/windows. The package builds on
// Windows only.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/
package winsock

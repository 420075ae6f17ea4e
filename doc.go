// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package sockstate binds the Windows socket state notifications API of
// ws2_32.dll for Go, without cgo: ProcessSocketNotifications,
// SOCK_NOTIFY_REGISTRATION, OVERLAPPED_ENTRY,
// SocketNotificationRetrieveEvents, the SOCK_NOTIFY_* constants, and
// GetQueuedCompletionStatusEx, which golang.org/x/sys/windows lacks.
//
// The API tells an I/O completion port when sockets become readable,
// writable, hung up or in error: a readiness model like epoll or kqueue,
// with level or edge triggers, persistent or one-shot. It needs Windows 10
// build 20348 or later (Windows 11, Windows Server 2022 and later).
//
// # Where the API is
//
// The calls and the structs build on Windows only. On other systems this
// package holds only the SOCK_NOTIFY_* constants, the flag types [Events],
// [Filter], [Op] and [Trigger], which print flags as names, and
// [ErrInvalidRegistration], so that portable code can name them. Read the
// rest with
//
//	GOOS=windows go doc -all github.com/sockstate/sockstate
//
// or at https://pkg.go.dev/github.com/sockstate/sockstate?GOOS=windows.
//
// Two packages build on this one: [github.com/sockstate/sockstate/poller],
// an epoll-style readiness poller with one API on every Windows (Wine
// included) and on Linux (epoll), and
// [github.com/sockstate/sockstate/winsock], the Winsock calls that
// golang.org/x/sys/windows lacks (non-blocking mode, accept, recv, send).
//
// The names follow golang.org/x/sys/windows: C names for constants, Go names
// for types and fields, errors as windows.Errno so that errors.Is works.
// zsyscall_windows.go is written by mkwinsyscall from the //sys lines of
// syscall_windows.go; run "go generate ./..." to refresh it.
//
// Microsoft's overview, with the rules on completion keys and removal:
// https://learn.microsoft.com/windows/win32/winsock/winsock-socket-state-notifications
package sockstate

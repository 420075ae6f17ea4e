// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build !windows

package poller

// Socket is a socket as the OS names it: on Windows a Winsock SOCKET
// handle, on Linux a file descriptor.
type Socket = int

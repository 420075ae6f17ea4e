// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import "golang.org/x/sys/windows"

// Socket is a socket as the OS names it: on Windows a Winsock SOCKET
// handle, on Linux a file descriptor.
type Socket = windows.Handle

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package echo is an example: a TCP echo server on the poller, and the
// load that cmd/echodemo and the benchmarks drive it with: clients that
// each send messages one at a time and check that every byte comes back.
// One source for Linux (epoll) and Windows (AFD, ProcessSocketNotifications):
// only the socket calls differ, in socket_linux.go (golang.org/x/sys/unix)
// and socket_windows.go (golang.org/x/sys/windows and this module's winsock
// package). It is example code, read it and copy from it; it is not part
// of the module's API and may change in any version.
package echo

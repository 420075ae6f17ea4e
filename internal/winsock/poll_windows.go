// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package winsock

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// PollFd is WSAPOLLFD: a socket, the events asked for and those found.
type PollFd struct {
	Fd      windows.Handle
	Events  int16
	REvents int16
}

// WSAPOLLFD's event bits.
const (
	POLLERR    = 0x0001
	POLLHUP    = 0x0002
	POLLNVAL   = 0x0004
	POLLWRNORM = 0x0010
	POLLRDNORM = 0x0100
)

// Poll is WSAPoll over a slice: it waits up to timeoutMs milliseconds (-1
// for ever) and returns how many entries have REvents set.
func Poll(fds []PollFd, timeoutMs int) (int, error) {
	if len(fds) == 0 {
		return 0, nil
	}
	n, err := wsaPoll(unsafe.SliceData(fds), uint32(len(fds)), int32(timeoutMs))
	return int(n), err
}

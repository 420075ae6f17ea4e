// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The epoll calls that never wait for I/O (epoll_ctl, and epoll_wait with
// a zero timeout: at most a brief wait for the epoll instance's mutex)
// are made as raw system calls, as Go's runtime makes its own
// (runtime/netpoll_epoll.go): the goroutine keeps its thread and its P,
// and the scheduler is not told, as it is of a call that may wait
// (unix.EpollWait with a timeout), whose P it hands to another thread once
// the call has lasted 20 µs. A Wait that finds events at once, and every
// Add, Modify and Delete, costs the system call alone.

// ctl is epoll_ctl.
func ctl(epfd, op, fd int, ev *unix.EpollEvent) error {
	_, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(epfd), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(ev)), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// poll is epoll_wait with a zero timeout: it takes what is ready, and
// never waits. (epoll_pwait with no signal mask: every architecture has
// it, and not all have epoll_wait.)
func poll(epfd int, raw []unix.EpollEvent) (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&raw[0])), uintptr(len(raw)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

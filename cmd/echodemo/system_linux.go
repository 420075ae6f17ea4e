// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// spareDescriptors are the descriptors that the process keeps beside its
// connections: the standard three, the poller's two, the runtime's.
const spareDescriptors = 32

// connLimit returns the most connections (clients, or idle ones) that this
// process can run, and why, if it is fewer than maxClients: each is two
// descriptors (the client's socket and the server's) within RLIMIT_NOFILE,
// whose soft limit Go's runtime raised to the hard one at start.
func connLimit() (int, string) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return maxClients, ""
	}
	if lim.Cur >= 2*maxClients+spareDescriptors {
		return maxClients, ""
	}
	most := 0
	if lim.Cur > spareDescriptors {
		most = int((lim.Cur - spareDescriptors) / 2)
	}
	return most, fmt.Sprintf("each connection is two descriptors in this process, and RLIMIT_NOFILE is %d (raise the hard limit to run more)", lim.Cur)
}

// missingBackend reports whether err says that Linux lacks the backend
// asked for (a Windows one).
func missingBackend(err error) bool { return errors.Is(err, errors.ErrUnsupported) }

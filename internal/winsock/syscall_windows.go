// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package winsock

// The ws2_32 call that the tests and benchmarks need besides those of the
// public package github.com/sockstate/sockstate/winsock; mkwinsyscall
// writes zsyscall_windows.go from this line (see mksyscall.go).

//sys	wsaPoll(fds *PollFd, nfds uint32, timeout int32) (n int32, err error) [failretval==-1] = ws2_32.WSAPoll

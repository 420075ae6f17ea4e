// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"errors"
	"fmt"
	"math"

	"golang.org/x/sys/windows"
)

// Dequeue is [GetQueuedCompletionStatusEx] over a slice: it dequeues up to
// len(entries) packets from completionPort into entries, waiting up to
// timeoutMs milliseconds (windows.INFINITE waits for ever), and returns how
// many. Use it instead of the raw call; it cannot be handed a wrong count or
// pointer. The wait is not alertable (Go code has no use for APCs); the raw
// call has that choice.
//
// An empty entries slice is an error and the OS is not called: a count of 0
// is not a request the OS documents, and Wine (8) answers it with success
// and a count of one entry removed while it removes and writes none
// (TestDequeue): passed on, that count would name an entry past the end of
// the slice. A slice longer than a uint32 can count is refused too.
//
// Timeouts: Dequeue and [Process], the two calls over slices, return 0 and
// a nil error when the time runs out, and keep errors for failures. A
// timeout is how a wait ends when nothing happened, not a fault, and the OS
// spells it in two ways (WAIT_TIMEOUT here; WAIT_TIMEOUT or ERROR_TIMEOUT on
// the page of ProcessSocketNotifications), so a loop over either call needs
// no special case: if err != nil it failed, else it handles entries[:n].
// The raw calls, [GetQueuedCompletionStatusEx] and
// [ProcessSocketNotifications], return the OS's code as it is.
//
// Other errors are the windows.Errno of the OS, such as
// windows.ERROR_INVALID_HANDLE for a handle that is not a port. A call that
// dequeues does not allocate.
//
// Requires Windows Vista or later.
//
// Reference: https://learn.microsoft.com/windows/win32/fileio/getqueuedcompletionstatusex-func
func Dequeue(completionPort windows.Handle, entries []OverlappedEntry, timeoutMs uint32) (int, error) {
	if len(entries) == 0 {
		return 0, errors.New("sockstate: Dequeue: no room for an entry: the OS would dequeue a packet all the same")
	}
	if uint64(len(entries)) > math.MaxUint32 {
		return 0, fmt.Errorf("sockstate: Dequeue: %d entries: counts above %d do not fit the call", len(entries), uint32(math.MaxUint32))
	}
	var n uint32
	err := getQueuedCompletionStatusEx(completionPort, &entries[0], uint32(len(entries)), &n, timeoutMs, false)
	switch {
	case err == nil:
	case isTimeoutErr(err):
		return 0, nil
	default:
		return 0, err
	}
	if int(n) > len(entries) {
		return 0, fmt.Errorf("sockstate: Dequeue: the OS reported %d entries for room for %d", n, len(entries))
	}
	return int(n), nil
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import "golang.org/x/sys/windows"

// The prototypes below are read by mkwinsyscall (see mksyscall.go), which
// writes zsyscall_windows.go from them.

//sys	processSocketNotifications(completionPort windows.Handle, registrationCount uint32, registrationInfos *SockNotifyRegistration, timeoutMs uint32, completionCount uint32, completionPortEntries *OverlappedEntry, receivedEntryCount *uint32) (ret error) = ws2_32.ProcessSocketNotifications?
//sys	getQueuedCompletionStatusEx(completionPort windows.Handle, entries *OverlappedEntry, count uint32, numEntriesRemoved *uint32, timeoutMs uint32, alertable bool) (err error) = kernel32.GetQueuedCompletionStatusEx

// ProcessSocketNotifications calls ws2_32's ProcessSocketNotifications: it
// applies registrationCount registrations from the array at
// registrationInfos to completionPort (an I/O completion port from
// windows.CreateIoCompletionPort), then dequeues up to completionCount
// packets into the array at completionPortEntries, waiting up to timeoutMs
// milliseconds (windows.INFINITE waits for ever), and stores how many it
// dequeued in *receivedEntryCount. Dequeued packets can be socket
// notifications or any other completion on that port.
//
// The C function returns its error code rather than setting the last error;
// this function returns that code as a windows.Errno, so errors.Is works
// with the windows.ERROR_* and windows.WSAE* values. When the call returns
// nil or a timeout, every registration's RegistrationResult holds its own
// result and must be checked; on any other error nothing was changed.
//
// Timeout: the reference page says both that the call "returns
// ERROR_TIMEOUT" (parameter timeoutMs) and that it "returns WAIT_TIMEOUT"
// (return value); winsock2.h does not say. Treat both windows.WAIT_TIMEOUT
// and windows.ERROR_TIMEOUT as a timeout; the tests on Windows record which
// one the OS returns.
//
// The OS rules for the pointers and counts: registrationInfos must be nil
// when registrationCount is 0; completionPortEntries and receivedEntryCount
// must be nil, and timeoutMs 0, when completionCount is 0; the two arrays
// must not overlap. This function passes its arguments to the OS unchanged.
//
// Completion keys are kept by the OS after the call (see
// [SockNotifyRegistration]): never pass a Go pointer disguised as a uintptr.
//
// Requires Windows 10 build 20348 or later (Windows 11, Windows Server 2022).
// Where ws2_32.dll lacks the export (older Windows, Wine), it returns an
// error for which errors.Is(err, [ErrNotSupported]) and errors.Is(err,
// windows.ERROR_PROC_NOT_FOUND) hold, and does not panic; see
// [LoadProcessSocketNotifications] to test once up front.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-processsocketnotifications
func ProcessSocketNotifications(completionPort windows.Handle, registrationCount uint32, registrationInfos *SockNotifyRegistration, timeoutMs uint32, completionCount uint32, completionPortEntries *OverlappedEntry, receivedEntryCount *uint32) error {
	return checkLoad(processSocketNotifications(completionPort, registrationCount, registrationInfos, timeoutMs, completionCount, completionPortEntries, receivedEntryCount))
}

// checkLoad turns the loader's error for a missing export, which the
// generated call returns, into one that matches ErrNotSupported: the
// probe's cached one where the probe failed too.
func checkLoad(err error) error {
	if loadErr, ok := err.(*windows.DLLError); ok {
		if cached := LoadProcessSocketNotifications(); cached != nil {
			return cached
		}
		return notSupported(loadErr)
	}
	return err
}

// GetQueuedCompletionStatusEx calls kernel32's GetQueuedCompletionStatusEx:
// it dequeues up to count packets from completionPort into the array at
// entries, waiting up to timeoutMs milliseconds (windows.INFINITE waits for
// ever), and stores how many it dequeued in *numEntriesRemoved. With
// alertable set, the wait also returns for queued APCs (WAIT_IO_COMPLETION).
// golang.org/x/sys/windows binds only GetQueuedCompletionStatus, which
// dequeues one packet a call.
//
// This is the raw call: it passes its arguments to the OS unchanged and
// returns what the OS returns. [Dequeue] is the same call over a slice, and
// the one to use: it refuses an empty slice and reports a timeout as 0
// entries and a nil error.
//
// Use it to dequeue socket notifications of persistent registrations, which
// need no re-arming call, or any other completion. On a timeout it returns
// windows.WAIT_TIMEOUT; other errors are the windows.Errno of GetLastError,
// such as windows.ERROR_INVALID_HANDLE for a handle that is not a port.
// count must be at least 1: under Wine (8) a count of 0 succeeds and
// reports one entry removed while it removes and writes none.
//
// Requires Windows Vista or later.
//
// Reference: https://learn.microsoft.com/windows/win32/fileio/getqueuedcompletionstatusex-func
func GetQueuedCompletionStatusEx(completionPort windows.Handle, entries *OverlappedEntry, count uint32, numEntriesRemoved *uint32, timeoutMs uint32, alertable bool) error {
	return getQueuedCompletionStatusEx(completionPort, entries, count, numEntriesRemoved, timeoutMs, alertable)
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Process is [ProcessSocketNotifications] over slices: it applies every
// registration of registrations to completionPort, then dequeues up to
// len(entries) packets into entries, waiting up to timeoutMs milliseconds
// (windows.INFINITE waits for ever), and returns how many it dequeued.
// Use it instead of the raw call; it cannot be handed a wrong count or
// pointer. A call that succeeds does not allocate; a timeout or an error
// costs one small allocation, made where the generated call turns the OS's
// code into an error.
//
// It applies the OS rules on pointers and counts itself: an empty slice is
// passed as a nil pointer; with no entries to fill, the timeout is 0 and no
// count pointer is passed, as the OS requires; slices longer than a uint32
// can count, or that overlap in memory, are an error, and the OS is not
// called.
//
// A timeout is not an error: Process returns 0 and a nil error, whichever of
// WAIT_TIMEOUT or ERROR_TIMEOUT the OS returned (the reference page names
// both), as [Dequeue] does (its doc says why). After a success or a timeout, every registration's
// RegistrationResult holds the OS's answer; if any is not 0, Process returns
// a *[RegistrationError] naming each one, together with the entries it did
// dequeue. Any other error means the OS applied nothing and dequeued
// nothing; it is a windows.Errno, or matches [ErrNotSupported] where the API
// is missing.
//
// Process passes the registrations to the OS unchanged; call
// [SockNotifyRegistration.Validate] to check them against the documented
// rules first.
//
// Requires Windows 10 build 20348 or later, like ProcessSocketNotifications.
func Process(completionPort windows.Handle, registrations []SockNotifyRegistration, entries []OverlappedEntry, timeoutMs uint32) (int, error) {
	if tooMany(len(registrations), len(entries)) {
		return 0, countError(len(registrations), len(entries))
	}
	if overlap(registrations, entries) {
		return 0, errors.New("sockstate: Process: the registrations and the entries overlap in memory")
	}
	var (
		regs    *SockNotifyRegistration
		out     *OverlappedEntry
		n       uint32
		counter *uint32
	)
	if len(registrations) > 0 {
		regs = &registrations[0]
	}
	if len(entries) > 0 {
		out, counter = &entries[0], &n
	} else {
		timeoutMs = 0
	}
	err := processSocketNotifications(completionPort, uint32(len(registrations)), regs, timeoutMs, uint32(len(entries)), out, counter)
	switch {
	case err == nil:
	case isTimeoutErr(err):
		n = 0
	default:
		return 0, checkLoad(err)
	}
	if int(n) > len(entries) {
		return 0, fmt.Errorf("sockstate: Process: the OS reported %d entries for room for %d", n, len(entries))
	}
	for i := range registrations {
		if registrations[i].RegistrationResult != 0 {
			return int(n), newRegistrationError(registrations)
		}
	}
	return int(n), nil
}

// tooMany reports whether a slice length does not fit the call's uint32
// counts.
func tooMany(registrations, entries int) bool {
	return uint64(registrations) > math.MaxUint32 || uint64(entries) > math.MaxUint32
}

// countError is the error for slice lengths that the uint32 counts cannot
// hold.
func countError(registrations, entries int) error {
	return fmt.Errorf("sockstate: Process: %d registrations and %d entries: counts above %d do not fit the call", registrations, entries, uint32(math.MaxUint32))
}

// overlap reports whether the memory of the two slices overlaps, which the
// OS forbids.
func overlap(registrations []SockNotifyRegistration, entries []OverlappedEntry) bool {
	if len(registrations) == 0 || len(entries) == 0 {
		return false
	}
	r := uintptr(unsafe.Pointer(unsafe.SliceData(registrations)))
	e := uintptr(unsafe.Pointer(unsafe.SliceData(entries)))
	rEnd := r + uintptr(len(registrations))*unsafe.Sizeof(registrations[0])
	eEnd := e + uintptr(len(entries))*unsafe.Sizeof(entries[0])
	return r < eEnd && e < rEnd
}

func isTimeoutErr(err error) bool {
	errno, ok := err.(windows.Errno)
	return ok && (errno == windows.WAIT_TIMEOUT || errno == windows.ERROR_TIMEOUT)
}

// RegistrationError reports the registrations that the OS refused in one
// call of [Process]; the others were applied. errors.Is and errors.As see
// each refusal's windows.Errno.
type RegistrationError struct {
	// Failures lists the refused registrations in the order of the slice
	// passed to Process; it is never empty.
	Failures []RegistrationFailure
}

// RegistrationFailure is one refused registration: its index in the slice
// passed to Process, its socket, and the OS's code for it.
type RegistrationFailure struct {
	// Index is the registration's index in the slice passed to Process.
	Index int
	// Socket is the registration's socket.
	Socket windows.Handle
	// Err is the registration's RegistrationResult: a Win32 or Winsock
	// error code, such as windows.WSAENOTSOCK or windows.ERROR_INVALID_PARAMETER.
	Err windows.Errno
}

func newRegistrationError(registrations []SockNotifyRegistration) *RegistrationError {
	e := new(RegistrationError)
	for i, r := range registrations {
		if r.RegistrationResult != 0 {
			e.Failures = append(e.Failures, RegistrationFailure{Index: i, Socket: r.Socket, Err: windows.Errno(r.RegistrationResult)})
		}
	}
	return e
}

func (e *RegistrationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sockstate: %d registration(s) refused:", len(e.Failures))
	for i, f := range e.Failures {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " #%d (socket %#x): %v (%d)", f.Index, uintptr(f.Socket), f.Err, uint32(f.Err))
	}
	return b.String()
}

// Unwrap returns each refusal's windows.Errno.
func (e *RegistrationError) Unwrap() []error {
	errs := make([]error, len(e.Failures))
	for i, f := range e.Failures {
		errs[i] = f.Err
	}
	return errs
}

// Validate checks the registration against the rules of winsock2.h and the
// SOCK_NOTIFY_REGISTRATION reference page, as a stricter reading than the
// OS may apply: one operation at a time (NONE, ENABLE, DISABLE or REMOVE);
// an event filter of IN, OUT and HANGUP bits only; only known trigger bits;
// for ENABLE, exactly one of ONESHOT and PERSISTENT and exactly one of LEVEL
// and EDGE (the reference page requires only the second; the samples on
// Microsoft's overview page pass LEVEL or EDGE alone); and, for an
// operation, a socket other than INVALID_SOCKET. The error matches
// [ErrInvalidRegistration].
//
// [Process] and [ProcessSocketNotifications] do not call it: they pass
// registrations to the OS unchanged, because only the OS decides what it
// accepts. Call it where a registration is built.
func (r *SockNotifyRegistration) Validate() error {
	if err := checkRegistration(uint16(r.EventFilter), uint8(r.Operation), uint8(r.TriggerFlags)); err != nil {
		return err
	}
	if r.Operation != SOCK_NOTIFY_OP_NONE && r.Socket == windows.InvalidHandle {
		return fmt.Errorf("%w: operation %v on INVALID_SOCKET", ErrInvalidRegistration, r.Operation)
	}
	return nil
}

// String prints the registration with its fields named and its flags as
// names, for logs and test failures.
func (r SockNotifyRegistration) String() string {
	return "{socket " + hex(uint64(r.Socket)) + " key " + hex(uint64(r.CompletionKey)) +
		" filter " + r.EventFilter.String() + " op " + r.Operation.String() +
		" trigger " + r.TriggerFlags.String() + " result " + strconv.FormatUint(uint64(r.RegistrationResult), 10) + "}"
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// SockNotifyRegistration is the C struct SOCK_NOTIFY_REGISTRATION of
// winsock2.h: one request to create, re-arm, disable or remove a socket's
// notification registration, passed to [ProcessSocketNotifications] in an
// array. The OS writes RegistrationResult; every other field is input.
//
// The OS keeps CompletionKey after the call and hands it back in every
// notification until SOCK_NOTIFY_EVENT_REMOVE. Never store a Go pointer in it
// (as a uintptr the garbage collector neither keeps the object alive nor
// updates the value): use an index or an ID into a table that you own, and
// free what it names only after SOCK_NOTIFY_EVENT_REMOVE. A socket closed
// without SOCK_NOTIFY_OP_REMOVE loses its registration without that
// notification, and notifications already queued may still arrive.
//
// Requires Windows 10 build 20348 or later (Windows 11, Windows Server 2022).
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/ns-winsock2-sock_notify_registration
type SockNotifyRegistration struct {
	// Socket is the socket (SOCKET) to register. Only sockets of the
	// Microsoft Winsock provider are supported.
	Socket windows.Handle
	// CompletionKey (PVOID completionKey) is returned as the completion key
	// of every notification for this registration. It is taken when the
	// registration is created; later ENABLEs do not change it.
	CompletionKey uintptr
	// EventFilter (UINT16 eventFilter) holds SOCK_NOTIFY_REGISTER_EVENT_* bits.
	// Its type is 16 bits wide, as in C; the notifications' event bits are
	// 32 bits wide ([Events]).
	EventFilter Filter
	// Operation (UINT8 operation) is one SOCK_NOTIFY_OP_* value.
	Operation Op
	// TriggerFlags (UINT8 triggerFlags) holds SOCK_NOTIFY_TRIGGER_* bits.
	TriggerFlags Trigger
	// RegistrationResult (DWORD registrationResult) is written by the OS when
	// the call returns nil or a timeout: 0 (ERROR_SUCCESS) or the Win32 or
	// Winsock error code of this registration alone.
	RegistrationResult uint32
}

// OverlappedEntry is the C struct OVERLAPPED_ENTRY of minwinbase.h: one
// packet dequeued from an I/O completion port by
// [ProcessSocketNotifications] or [GetQueuedCompletionStatusEx].
//
// For a socket state notification, CompletionKey is the registration's key
// and NumberOfBytesTransferred holds the SOCK_NOTIFY_EVENT_* bits (read them
// with [SocketNotificationRetrieveEvents]). The reference page of
// ProcessSocketNotifications calls lpOverlapped "reserved" for these packets,
// "must not be used as pointers", while a comment in Microsoft's edge-triggered
// sample says the events are "the integer value of the overlapped pointer":
// winsock2.h reads dwNumberOfBytesTransferred, and so does this package;
// never dereference Overlapped of a socket notification. For packets posted
// with PostQueuedCompletionStatus or completed overlapped I/O, the fields
// mean what those calls put in them.
//
// Reference: https://learn.microsoft.com/windows/win32/api/minwinbase/ns-minwinbase-overlapped_entry
type OverlappedEntry struct {
	// CompletionKey (ULONG_PTR lpCompletionKey) is the packet's key.
	CompletionKey uintptr
	// Overlapped (LPOVERLAPPED lpOverlapped) is the packet's OVERLAPPED
	// pointer as a plain number: the OS writes whatever the packet carries,
	// reserved bits for a socket notification or any integer that a
	// PostQueuedCompletionStatus caller passed, and a Go pointer type
	// holding such a value crashes the garbage collector or the stack
	// copier. A caller that posted or started I/O with a real OVERLAPPED
	// keeps it reachable itself until its packet comes back, and finds it
	// by this number, for instance in a map keyed by
	// uintptr(unsafe.Pointer(ov)) (see the example).
	Overlapped uintptr
	// Internal (ULONG_PTR Internal) is reserved.
	Internal uintptr
	// NumberOfBytesTransferred (DWORD dwNumberOfBytesTransferred) is the byte
	// count of an I/O completion, or the event bits of a socket notification.
	NumberOfBytesTransferred uint32
}

// SocketNotificationRetrieveEvents returns the SOCK_NOTIFY_EVENT_* bits of a
// socket state notification: the entry's NumberOfBytesTransferred, exactly
// as the inline function of winsock2.h computes it. Use it on entries whose
// CompletionKey belongs to a socket registration; for other packets the
// value is a byte count, not events. It panics if entry is nil, as the C
// function would fault.
//
// Requires Windows 10 build 20348 or later for the notifications themselves;
// the function is plain Go and runs anywhere.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-socketnotificationretrieveevents
func SocketNotificationRetrieveEvents(entry *OverlappedEntry) uint32 {
	return entry.NumberOfBytesTransferred
}

// The C layouts, from the pointer size: SOCKET, PVOID and ULONG_PTR are one
// pointer wide; UINT16, UINT8 and DWORD are 2, 1 and 4 bytes; structs are
// padded to their widest member. testdata/layout.txt lists the resulting
// numbers for each GOARCH, and the tests compare both with the C compiler's.
const (
	ptrSize = unsafe.Sizeof(uintptr(0))

	sizeofSockNotifyRegistration = 2*ptrSize + 8
	sizeofOverlappedEntry        = (3*ptrSize + 4 + ptrSize - 1) &^ (ptrSize - 1)
)

// Compile-time layout checks: each pair of constants is only valid (a
// uintptr constant cannot be negative) when the Go and C values are equal,
// so a layout change fails the build on every GOARCH.
const (
	_ = unsafe.Sizeof(SockNotifyRegistration{}) - sizeofSockNotifyRegistration
	_ = sizeofSockNotifyRegistration - unsafe.Sizeof(SockNotifyRegistration{})
	_ = unsafe.Offsetof(SockNotifyRegistration{}.CompletionKey) - ptrSize
	_ = ptrSize - unsafe.Offsetof(SockNotifyRegistration{}.CompletionKey)
	_ = unsafe.Offsetof(SockNotifyRegistration{}.EventFilter) - 2*ptrSize
	_ = 2*ptrSize - unsafe.Offsetof(SockNotifyRegistration{}.EventFilter)
	_ = unsafe.Offsetof(SockNotifyRegistration{}.Operation) - (2*ptrSize + 2)
	_ = (2*ptrSize + 2) - unsafe.Offsetof(SockNotifyRegistration{}.Operation)
	_ = unsafe.Offsetof(SockNotifyRegistration{}.TriggerFlags) - (2*ptrSize + 3)
	_ = (2*ptrSize + 3) - unsafe.Offsetof(SockNotifyRegistration{}.TriggerFlags)
	_ = unsafe.Offsetof(SockNotifyRegistration{}.RegistrationResult) - (2*ptrSize + 4)
	_ = (2*ptrSize + 4) - unsafe.Offsetof(SockNotifyRegistration{}.RegistrationResult)

	_ = unsafe.Sizeof(OverlappedEntry{}) - sizeofOverlappedEntry
	_ = sizeofOverlappedEntry - unsafe.Sizeof(OverlappedEntry{})
	_ = unsafe.Offsetof(OverlappedEntry{}.Overlapped) - ptrSize
	_ = ptrSize - unsafe.Offsetof(OverlappedEntry{}.Overlapped)
	_ = unsafe.Offsetof(OverlappedEntry{}.Internal) - 2*ptrSize
	_ = 2*ptrSize - unsafe.Offsetof(OverlappedEntry{}.Internal)
	_ = unsafe.Offsetof(OverlappedEntry{}.NumberOfBytesTransferred) - 3*ptrSize
	_ = 3*ptrSize - unsafe.Offsetof(OverlappedEntry{}.NumberOfBytesTransferred)
)

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate

import (
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// goLayout is the Go side of testdata/layout.txt, keyed by "STRUCT field".
var goLayout = map[string]uintptr{
	"SOCK_NOTIFY_REGISTRATION sizeof":             unsafe.Sizeof(SockNotifyRegistration{}),
	"SOCK_NOTIFY_REGISTRATION socket":             unsafe.Offsetof(SockNotifyRegistration{}.Socket),
	"SOCK_NOTIFY_REGISTRATION completionKey":      unsafe.Offsetof(SockNotifyRegistration{}.CompletionKey),
	"SOCK_NOTIFY_REGISTRATION eventFilter":        unsafe.Offsetof(SockNotifyRegistration{}.EventFilter),
	"SOCK_NOTIFY_REGISTRATION operation":          unsafe.Offsetof(SockNotifyRegistration{}.Operation),
	"SOCK_NOTIFY_REGISTRATION triggerFlags":       unsafe.Offsetof(SockNotifyRegistration{}.TriggerFlags),
	"SOCK_NOTIFY_REGISTRATION registrationResult": unsafe.Offsetof(SockNotifyRegistration{}.RegistrationResult),
	"OVERLAPPED_ENTRY sizeof":                     unsafe.Sizeof(OverlappedEntry{}),
	"OVERLAPPED_ENTRY lpCompletionKey":            unsafe.Offsetof(OverlappedEntry{}.CompletionKey),
	"OVERLAPPED_ENTRY lpOverlapped":               unsafe.Offsetof(OverlappedEntry{}.Overlapped),
	"OVERLAPPED_ENTRY Internal":                   unsafe.Offsetof(OverlappedEntry{}.Internal),
	"OVERLAPPED_ENTRY dwNumberOfBytesTransferred": unsafe.Offsetof(OverlappedEntry{}.NumberOfBytesTransferred),
}

// layoutRows returns testdata/layout.txt's rows for this GOARCH as
// "STRUCT field" -> bytes, and checks that they cover goLayout exactly.
func layoutRows(t *testing.T) map[string]uintptr {
	t.Helper()
	rows := make(map[string]uintptr)
	for _, row := range readTable(t, "layout.txt") {
		if len(row) != 4 {
			t.Fatalf("layout.txt: malformed row %q", row)
		}
		if row[0] != runtime.GOARCH {
			continue
		}
		n, err := strconv.ParseUint(row[3], 10, 32)
		if err != nil {
			t.Fatalf("layout.txt: %q: %v", row, err)
		}
		rows[row[1]+" "+row[2]] = uintptr(n)
	}
	if len(rows) != len(goLayout) {
		t.Fatalf("layout.txt has %d rows for %s; the Go types have %d sizes and offsets", len(rows), runtime.GOARCH, len(goLayout))
	}
	return rows
}

func TestLayoutMatchesTable(t *testing.T) {
	for key, want := range layoutRows(t) {
		got, ok := goLayout[key]
		switch {
		case !ok:
			t.Errorf("layout.txt names %s, which the Go types lack", key)
		case got != want:
			t.Errorf("%s on %s: Go has %d, C has %d", key, runtime.GOARCH, got, want)
		}
	}
}

func TestSocketNotificationRetrieveEvents(t *testing.T) {
	ov := new(windows.Overlapped)
	tests := []struct {
		name  string
		entry OverlappedEntry
		want  uint32
	}{
		{"no events", OverlappedEntry{}, 0},
		{"in", OverlappedEntry{NumberOfBytesTransferred: SOCK_NOTIFY_EVENT_IN}, 0x01},
		{"out", OverlappedEntry{NumberOfBytesTransferred: SOCK_NOTIFY_EVENT_OUT}, 0x02},
		{"in hangup", OverlappedEntry{NumberOfBytesTransferred: SOCK_NOTIFY_EVENT_IN | SOCK_NOTIFY_EVENT_HANGUP}, 0x05},
		{"err", OverlappedEntry{NumberOfBytesTransferred: SOCK_NOTIFY_EVENT_ERR}, 0x40},
		{"remove", OverlappedEntry{NumberOfBytesTransferred: SOCK_NOTIFY_EVENT_REMOVE}, 0x80},
		{"all events", OverlappedEntry{NumberOfBytesTransferred: SOCK_NOTIFY_EVENTS_ALL}, 0xC7},
		// The key, the OVERLAPPED pointer and Internal play no part, as in C.
		{"other fields ignored", OverlappedEntry{CompletionKey: ^uintptr(0), Overlapped: uintptr(unsafe.Pointer(ov)), Internal: ^uintptr(0), NumberOfBytesTransferred: SOCK_NOTIFY_EVENT_HANGUP | SOCK_NOTIFY_EVENT_ERR}, 0x44},
		// Not a socket notification: the byte count comes back whole.
		{"byte count", OverlappedEntry{NumberOfBytesTransferred: 0xFFFFFFFF}, 0xFFFFFFFF},
	}
	for _, tt := range tests {
		if got := SocketNotificationRetrieveEvents(&tt.entry); got != tt.want {
			t.Errorf("%s: got %#x, want %#x", tt.name, got, tt.want)
		}
	}
}

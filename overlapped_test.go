// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate

import (
	"runtime"
	"testing"

	"golang.org/x/sys/windows"
)

var postQueuedCompletionStatus = windows.NewLazySystemDLL("kernel32.dll").NewProc("PostQueuedCompletionStatus")

// TestOverlappedHoldsAnyValue posts packets whose lpOverlapped is not a
// pointer (7, 4095, 0xdeadbeef, all ones), as PostQueuedCompletionStatus
// callers may and as socket notifications leave it. It dequeues them, keeps
// copies in a local on the stack, makes the stack grow (which copies it and
// checks every pointer in it) and runs a GC, then reads the values back
// unchanged.
func TestOverlappedHoldsAnyValue(t *testing.T) {
	port := newPort(t)
	values := []uintptr{7, 4095, 0xdeadbeef, ^uintptr(0)}
	for i, v := range values {
		if r, _, err := postQueuedCompletionStatus.Call(uintptr(port), 0, uintptr(i), v); r == 0 {
			t.Fatalf("PostQueuedCompletionStatus: %v", err)
		}
	}
	entries := make([]OverlappedEntry, 8)
	var n uint32
	if err := GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 0, false); err != nil || int(n) != len(values) {
		t.Fatalf("GetQueuedCompletionStatusEx: %d entries, %v", n, err)
	}
	for _, e := range entries[:n] { // e is a copy on the stack
		growStack(64)
		runtime.GC()
		if got := e.Overlapped; got != values[e.CompletionKey] {
			t.Errorf("packet %d: lpOverlapped %#x, posted %#x", e.CompletionKey, got, values[e.CompletionKey])
		}
	}
}

// growStack uses about depth KiB of stack, more than a new goroutine has.
func growStack(depth int) byte {
	var pad [1024]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		return pad[0]
	}
	return growStack(depth-1) + pad[depth%len(pad)]
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate_test

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
)

// A caller that posts (or starts I/O with) a real OVERLAPPED keeps it
// reachable in a table of its own until its packet comes back, and finds it
// there by OverlappedEntry.Overlapped, which is a plain number. The number
// is never turned back into a pointer: packets from elsewhere (socket
// notifications, other posters) carry values that are not pointers.
func ExampleOverlappedEntry_overlapped() {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer windows.CloseHandle(port)

	type request struct {
		ov   windows.Overlapped // first, so the OVERLAPPED's address is the request's
		name string
	}
	inflight := make(map[uintptr]*request) // keeps each request alive, by address
	for _, name := range []string{"first", "second"} {
		r := &request{name: name}
		inflight[uintptr(unsafe.Pointer(&r.ov))] = r
		if err := windows.PostQueuedCompletionStatus(port, 0, 1, &r.ov); err != nil {
			fmt.Println(err)
			return
		}
	}
	entries := make([]sockstate.OverlappedEntry, 4)
	n, err := sockstate.Dequeue(port, entries, 1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries[:n] {
		r, ok := inflight[e.Overlapped]
		if !ok {
			continue // not one of ours
		}
		delete(inflight, e.Overlapped)
		fmt.Println("back:", r.name)
	}
	// Output:
	// back: first
	// back: second
}

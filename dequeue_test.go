// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// newPort returns a new I/O completion port, closed when the test ends.
func newPort(t *testing.T) windows.Handle {
	t.Helper()
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		t.Fatalf("CreateIoCompletionPort: %v", err)
	}
	t.Cleanup(func() { windows.CloseHandle(port) })
	return port
}

func isTimeout(err error) bool {
	return errors.Is(err, windows.WAIT_TIMEOUT) || errors.Is(err, windows.ERROR_TIMEOUT)
}

func TestGetQueuedCompletionStatusEx(t *testing.T) {
	type packet struct {
		key   uintptr
		bytes uint32
		ov    *windows.Overlapped
	}
	post := func(t *testing.T, port windows.Handle, packets []packet) {
		t.Helper()
		for _, p := range packets {
			if err := windows.PostQueuedCompletionStatus(port, p.bytes, p.key, p.ov); err != nil {
				t.Fatalf("PostQueuedCompletionStatus: %v", err)
			}
		}
	}
	ov1, ov2 := new(windows.Overlapped), new(windows.Overlapped)
	many := make([]packet, 10)
	for i := range many {
		many[i] = packet{key: uintptr(100 + i), bytes: uint32(i)}
	}

	t.Run("round trip", func(t *testing.T) {
		port := newPort(t)
		sent := []packet{
			{0, 0, nil},
			{1, 1, ov1},
			{^uintptr(0), ^uint32(0), nil},
			{uintptr(0x12345678), 512, ov2},
		}
		post(t, port, sent)
		entries := make([]OverlappedEntry, 8)
		var n uint32
		if err := GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 0, false); err != nil {
			t.Fatalf("GetQueuedCompletionStatusEx: %v", err)
		}
		if int(n) != len(sent) {
			t.Fatalf("dequeued %d packets, want %d", n, len(sent))
		}
		for i, p := range sent {
			e := entries[i]
			if e.CompletionKey != p.key || e.NumberOfBytesTransferred != p.bytes || e.Overlapped != uintptr(unsafe.Pointer(p.ov)) {
				t.Errorf("entry %d = {key %#x, bytes %#x, ov %#x}, want {key %#x, bytes %#x, ov %p}",
					i, e.CompletionKey, e.NumberOfBytesTransferred, e.Overlapped, p.key, p.bytes, p.ov)
			}
		}
	})

	t.Run("batches", func(t *testing.T) {
		port := newPort(t)
		post(t, port, many)
		entries := make([]OverlappedEntry, 4)
		var got []uintptr
		for _, want := range []uint32{4, 4, 2} {
			var n uint32
			if err := GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 0, false); err != nil {
				t.Fatalf("GetQueuedCompletionStatusEx: %v", err)
			}
			if n != want {
				t.Fatalf("batch of %d, want %d", n, want)
			}
			for _, e := range entries[:n] {
				got = append(got, e.CompletionKey)
			}
		}
		for i, key := range got {
			if key != many[i].key {
				t.Fatalf("keys dequeued in the order %v, want 100 to 109", got)
			}
		}
		var n uint32
		if err := GetQueuedCompletionStatusEx(port, &entries[0], 1, &n, 0, false); !errors.Is(err, windows.WAIT_TIMEOUT) {
			t.Fatalf("drained port: got %v, want WAIT_TIMEOUT", err)
		}
	})

	t.Run("one at a time", func(t *testing.T) {
		port := newPort(t)
		post(t, port, many[:3])
		var e OverlappedEntry
		for i := range 3 {
			var n uint32
			if err := GetQueuedCompletionStatusEx(port, &e, 1, &n, windows.INFINITE, false); err != nil || n != 1 {
				t.Fatalf("dequeue %d: n=%d err=%v", i, n, err)
			}
			if e.CompletionKey != many[i].key {
				t.Fatalf("dequeue %d: key %d, want %d", i, e.CompletionKey, many[i].key)
			}
		}
	})

	t.Run("timeout", func(t *testing.T) {
		port := newPort(t)
		var e OverlappedEntry
		for _, ms := range []uint32{0, 1, 30} {
			var n uint32
			err := GetQueuedCompletionStatusEx(port, &e, 1, &n, ms, false)
			if !errors.Is(err, windows.WAIT_TIMEOUT) {
				t.Errorf("timeout %d ms on an empty port: got %v, want WAIT_TIMEOUT", ms, err)
			}
		}
	})

	t.Run("wakes a waiter", func(t *testing.T) {
		port := newPort(t)
		done := make(chan error, 1)
		var e OverlappedEntry
		go func() {
			var n uint32
			err := GetQueuedCompletionStatusEx(port, &e, 1, &n, 10_000, false)
			if err == nil && (n != 1 || e.CompletionKey != 42) {
				err = fmt.Errorf("dequeued %d entries, key %d; want 1 entry, key 42", n, e.CompletionKey)
			}
			done <- err
		}()
		post(t, port, []packet{{42, 0, nil}})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})

	t.Run("not a port", func(t *testing.T) {
		event, err := windows.CreateEvent(nil, 0, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer windows.CloseHandle(event)
		var e OverlappedEntry
		for _, h := range []windows.Handle{0, event, windows.Handle(0x7FFFFFF0)} {
			var n uint32
			err := GetQueuedCompletionStatusEx(h, &e, 1, &n, 0, false)
			if !errors.Is(err, windows.ERROR_INVALID_HANDLE) {
				t.Errorf("handle %#x: got %v, want ERROR_INVALID_HANDLE", h, err)
			}
		}
	})
	runtime.KeepAlive(ov1)
	runtime.KeepAlive(ov2)
}

// TestDequeue: the slice form of GetQueuedCompletionStatusEx refuses an
// empty slice (nil and zero-length) without dequeuing (the packet posted
// before is still there afterwards), returns (0, nil) on a timeout of 0 and
// 30 ms, returns the packets posted in order, and reports a handle that is
// not a port as ERROR_INVALID_HANDLE. Under Wine it checks what the raw call
// does with a count of 0, which is why Dequeue refuses an empty slice.
func TestDequeue(t *testing.T) {
	port := newPort(t)
	if err := windows.PostQueuedCompletionStatus(port, 3, 33, nil); err != nil {
		t.Fatal(err)
	}
	for name, entries := range map[string][]OverlappedEntry{"nil": nil, "empty": make([]OverlappedEntry, 0, 4)} {
		if n, err := Dequeue(port, entries, 0); n != 0 || err == nil {
			t.Errorf("%s slice: (%d, %v), want an error", name, n, err)
		}
	}
	entries := make([]OverlappedEntry, 4)
	if n, err := Dequeue(port, entries, 0); n != 1 || err != nil || entries[0].CompletionKey != 33 || entries[0].NumberOfBytesTransferred != 3 {
		t.Fatalf("after the refused calls: (%d, %v) %+v, want the packet posted before", n, err, entries[0])
	}
	for _, ms := range []uint32{0, 30} {
		if n, err := Dequeue(port, entries, ms); n != 0 || err != nil {
			t.Errorf("timeout %d ms: (%d, %v), want (0, nil)", ms, n, err)
		}
	}
	for i := range 6 {
		if err := windows.PostQueuedCompletionStatus(port, 0, uintptr(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	var keys []uintptr
	for len(keys) < 6 {
		n, err := Dequeue(port, entries, 1000)
		if err != nil || n == 0 {
			t.Fatalf("Dequeue: (%d, %v) after %v", n, err, keys)
		}
		for _, e := range entries[:n] {
			keys = append(keys, e.CompletionKey)
		}
	}
	if fmt.Sprint(keys) != "[0 1 2 3 4 5]" {
		t.Errorf("keys %v, want 0 to 5 in order", keys)
	}
	if _, err := Dequeue(windows.Handle(0x7FFFFFF0), entries, 0); !errors.Is(err, windows.ERROR_INVALID_HANDLE) {
		t.Errorf("not a port: %v, want ERROR_INVALID_HANDLE", err)
	}

	// Why Dequeue refuses an empty slice (its doc): the raw call with a
	// count of 0, into room for one. Under Wine it succeeds and reports one
	// entry while it writes none and removes none: a caller that believed
	// it would read an entry past an empty slice. Windows does not document
	// the count, so there it is only logged.
	if err := windows.PostQueuedCompletionStatus(port, 0, 44, nil); err != nil {
		t.Fatal(err)
	}
	const untouched = 999
	entries[0] = OverlappedEntry{CompletionKey: untouched}
	var n uint32
	err := GetQueuedCompletionStatusEx(port, &entries[0], 0, &n, 0, false)
	if !sockettest.UnderWine() {
		t.Logf("raw GetQueuedCompletionStatusEx with a count of 0: n=%d, err=%v", n, err)
		return
	}
	if err != nil || n != 1 || entries[0].CompletionKey != untouched {
		t.Errorf("under Wine, the raw call with a count of 0: n=%d, err=%v, entry key %d; Dequeue's doc says n=1, nil, the entry untouched", n, err, entries[0].CompletionKey)
	}
	if n, err := Dequeue(port, entries, 0); n != 1 || err != nil || entries[0].CompletionKey != 44 {
		t.Errorf("after the raw call with a count of 0: (%d, %v) key %d, want the packet posted before still there", n, err, entries[0].CompletionKey)
	}
}

// TestABIStubDequeue: through the ABI stub's GetQueuedCompletionStatusEx,
// Dequeue passes on the entries the OS wrote and their count, refuses a
// count larger than the room it gave (an OS fault that would hand out
// entries past the slice), and returns the OS's error as a windows.Errno.
func TestABIStubDequeue(t *testing.T) {
	stub := useABIStub(t)
	stub.useDequeue()
	entries := make([]OverlappedEntry, 3)
	if n, err := Dequeue(0, entries, 10); n != 3 || err != nil || entries[2].CompletionKey != ^uintptr(2) {
		t.Errorf("got (%d, %v) %+v, want the stub's 3 entries", n, err, entries)
	}
	stub.overReport(2)
	if n, err := Dequeue(0, entries, 10); n != 0 || err == nil || !strings.Contains(err.Error(), "reported 5 entries for room for 3") {
		t.Errorf("the OS reporting 5 entries for 3: got (%d, %v), want (0, an error naming both)", n, err)
	}
	stub.overReport(0)
	stub.setResult(windows.ERROR_INVALID_HANDLE)
	if n, err := Dequeue(0, entries, 10); n != 0 || !errors.Is(err, windows.ERROR_INVALID_HANDLE) {
		t.Errorf("the OS failing: got (%d, %v), want (0, ERROR_INVALID_HANDLE)", n, err)
	}
}

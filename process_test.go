// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// TestProcessRefusesBadSlices: overlapping slices and counts that do not
// fit a uint32 are refused before the OS is called.
func TestProcessRefusesBadSlices(t *testing.T) {
	port := newPort(t)
	buf := make([]OverlappedEntry, 4)
	regs := unsafe.Slice((*SockNotifyRegistration)(unsafe.Pointer(&buf[1])), 2)
	for _, tt := range []struct {
		name    string
		regs    []SockNotifyRegistration
		entries []OverlappedEntry
	}{
		{"registrations inside entries", regs, buf},
		{"registrations over the first entry", unsafe.Slice((*SockNotifyRegistration)(unsafe.Pointer(&buf[0])), 1), buf[:1]},
		{"entries after the registrations", regs, buf[2:]},
	} {
		n, err := Process(port, tt.regs, tt.entries, 0)
		if n != 0 || err == nil || !strings.Contains(err.Error(), "overlap") {
			t.Errorf("%s: got (%d, %v), want an overlap error", tt.name, n, err)
		}
	}
	// Slices that touch do not overlap, in either order: each call reaches
	// the OS. One element more on either side, and they overlap.
	rs, es := unsafe.Sizeof(SockNotifyRegistration{}), unsafe.Sizeof(OverlappedEntry{})
	span := rs * es / gcd(rs, es) // bytes that both sizes divide
	nr, ne := int(span/rs), int(span/es)
	mem := make([]OverlappedEntry, 3*ne) // entries, registrations, entries
	regsAt := func(i, n int) []SockNotifyRegistration {
		return unsafe.Slice((*SockNotifyRegistration)(unsafe.Pointer(&mem[i])), n)
	}
	for _, tt := range []struct {
		name    string
		regs    []SockNotifyRegistration
		entries []OverlappedEntry
		overlap bool
	}{
		{"entries just before the registrations", regsAt(ne, nr), mem[:ne], false},
		{"entries just after the registrations", regsAt(ne, nr), mem[2*ne:], false},
		{"entries one past the registrations' start", regsAt(ne, nr), mem[:ne+1], true},
		{"registrations one past the entries' start", regsAt(ne, nr+1), mem[2*ne:], true},
	} {
		_, err := Process(port, tt.regs, tt.entries, 0)
		if refused := err != nil && strings.Contains(err.Error(), "overlap"); refused != tt.overlap {
			t.Errorf("%s (%d registrations, %d entries): %v, want overlap refused = %v", tt.name, len(tt.regs), len(tt.entries), err, tt.overlap)
		}
	}

	// Slices longer than a uint32 can count cannot be made here, so the
	// rule that refuses them is tested on its own (unsafe.Slice headers
	// would trip checkptr).
	if strconv.IntSize == 64 {
		limit := uint64(math.MaxUint32)
		max, huge := int(limit), int(limit)+1 // ints above MaxUint32 exist only on 64-bit
		for _, counts := range [][2]int{{huge, 0}, {0, huge}, {huge, huge}} {
			if !tooMany(counts[0], counts[1]) {
				t.Errorf("tooMany(%d, %d) is false", counts[0], counts[1])
			}
		}
		if tooMany(max, max) {
			t.Error("tooMany at the limit is true")
		}
		if err := countError(huge, 0); !strings.Contains(err.Error(), "4294967296 registrations") {
			t.Errorf("count error %q", err)
		}
	}
}

// TestProcessOnThisWindows runs Process against the real ws2_32: with the
// export, nothing to dequeue is a timeout, which Process reports as (0,
// nil); without it, the error matches ErrNotSupported.
func TestProcessOnThisWindows(t *testing.T) {
	port := newPort(t)
	entries := make([]OverlappedEntry, 4)
	n, err := Process(port, nil, entries, 0)
	if Supported() {
		if n != 0 || err != nil {
			t.Fatalf("empty port: got (%d, %v), want (0, nil)", n, err)
		}
		return
	}
	if n != 0 || !errors.Is(err, ErrNotSupported) {
		t.Fatalf("got (%d, %v), want (0, an error matching ErrNotSupported)", n, err)
	}
}

// TestABIStubProcessArguments checks, through the ABI stub, what Process
// passes to the C function for each shape of input, and how it reads back
// what C returns.
func TestABIStubProcessArguments(t *testing.T) {
	stub := useABIStub(t)
	stub.refuse(0, 0)
	regs := make([]SockNotifyRegistration, 3)
	entries := make([]OverlappedEntry, 5)
	ptr := func(p unsafe.Pointer) uintptr { return uintptr(p) }

	tests := []struct {
		name    string
		regs    []SockNotifyRegistration
		entries []OverlappedEntry
		timeout uint32
		// the arguments C must receive, 1 to 6 (argument 0 is the port)
		want [6]uintptr
		n    int
	}{
		{"both", regs, entries, 250,
			[6]uintptr{3, ptr(unsafe.Pointer(&regs[0])), 250, 5, ptr(unsafe.Pointer(&entries[0])), 1}, 5},
		{"only registrations: timeout 0, no entries, no count", regs, nil, 250,
			[6]uintptr{3, ptr(unsafe.Pointer(&regs[0])), 0, 0, 0, 0}, 0},
		{"only entries: nil registrations", nil, entries, windows.INFINITE,
			[6]uintptr{0, 0, windows.INFINITE, 5, ptr(unsafe.Pointer(&entries[0])), 1}, 5},
		{"empty, non-nil slices", regs[:0], entries[:0], 250,
			[6]uintptr{0, 0, 0, 0, 0, 0}, 0},
	}
	for _, tt := range tests {
		n, err := Process(windows.Handle(0x77), tt.regs, tt.entries, tt.timeout)
		if err != nil || n != tt.n {
			t.Errorf("%s: got (%d, %v), want (%d, nil)", tt.name, n, err, tt.n)
		}
		if got := stub.arg(0); got != 0x77 {
			t.Errorf("%s: port %#x", tt.name, got)
		}
		for i, want := range tt.want {
			got := stub.arg(i + 1)
			if i == 5 { // the count pointer: only whether there is one
				got = map[bool]uintptr{false: 0, true: 1}[got != 0]
			}
			if got != want {
				t.Errorf("%s: argument %d: C received %#x, want %#x", tt.name, i+1, got, want)
			}
		}
	}
}

// TestABIStubProcessResults checks, through the ABI stub, how Process maps
// the C function's return code and registration results.
func TestABIStubProcessResults(t *testing.T) {
	stub := useABIStub(t)
	regs := make([]SockNotifyRegistration, 4)
	for i := range regs {
		regs[i].Socket = windows.Handle(0x100 + i)
	}
	entries := make([]OverlappedEntry, 3)

	t.Run("timeouts are (0, nil)", func(t *testing.T) {
		stub.refuse(0, 0)
		for _, code := range []windows.Errno{windows.WAIT_TIMEOUT, windows.ERROR_TIMEOUT} {
			stub.setResult(code) // the stub still writes 3 entries and a count of 3
			if n, err := Process(0, regs, entries, 10); n != 0 || err != nil {
				t.Errorf("C returned %d: got (%d, %v), want (0, nil)", uint32(code), n, err)
			}
		}
	})

	t.Run("other codes are errors, with nothing dequeued", func(t *testing.T) {
		stub.refuse(0, 0)
		for _, code := range []windows.Errno{windows.WSAENOBUFS, windows.ERROR_INVALID_HANDLE, windows.ERROR_INVALID_PARAMETER} {
			stub.setResult(code)
			n, err := Process(0, regs, entries, 10)
			var got windows.Errno
			if n != 0 || !errors.As(err, &got) || got != code {
				t.Errorf("C returned %d: got (%d, %v), want (0, windows.Errno(%d))", uint32(code), n, err, uint32(code))
			}
		}
	})

	t.Run("refused registrations", func(t *testing.T) {
		stub.setResult(0)
		stub.refuse(0b1010, uint32(windows.WSAENOTSOCK)&^0xFF) // refuse #1 and #3
		n, err := Process(0, regs, entries, 10)
		if n != len(entries) {
			t.Errorf("dequeued %d entries alongside the refusals, want %d", n, len(entries))
		}
		var regErr *RegistrationError
		if !errors.As(err, &regErr) {
			t.Fatalf("got %v, want a *RegistrationError", err)
		}
		base := uint32(windows.WSAENOTSOCK) &^ 0xFF
		want := []RegistrationFailure{
			{Index: 1, Socket: 0x101, Err: windows.Errno(base | 1)},
			{Index: 3, Socket: 0x103, Err: windows.Errno(base | 3)},
		}
		if fmt.Sprint(regErr.Failures) != fmt.Sprint(want) {
			t.Errorf("failures %+v, want %+v", regErr.Failures, want)
		}
		for _, f := range want {
			if !errors.Is(err, f.Err) {
				t.Errorf("errors.Is(err, %d) is false", uint32(f.Err))
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("#%d (socket %#x)", f.Index, uintptr(f.Socket))) {
				t.Errorf("%q does not name #%d and its socket", err, f.Index)
			}
		}
		var errno windows.Errno
		if !errors.As(err, &errno) || errno != want[0].Err {
			t.Errorf("errors.As to windows.Errno: %d", uint32(errno))
		}
		if errors.Is(err, windows.Errno(base)) || errors.Is(err, windows.Errno(base|2)) {
			t.Error("the accepted registrations are reported too")
		}
	})

	t.Run("more entries reported than there was room for", func(t *testing.T) {
		stub.setResult(0)
		stub.refuse(0, 0)
		stub.overReport(1)
		defer stub.overReport(0)
		n, err := Process(0, regs, entries, 10)
		if n != 0 || err == nil || !strings.Contains(err.Error(), "reported 4 entries for room for 3") {
			t.Errorf("got (%d, %v), want (0, an error naming 4 entries for room for 3)", n, err)
		}
	})

	t.Run("refusals in a call that timed out", func(t *testing.T) {
		stub.setResult(windows.WAIT_TIMEOUT)
		stub.refuse(0b1, 0xA0000000)
		n, err := Process(0, regs, entries, 10)
		var regErr *RegistrationError
		if n != 0 || !errors.As(err, &regErr) || len(regErr.Failures) != 1 {
			t.Errorf("got (%d, %v), want (0, one refusal)", n, err)
		}
	})
}

// TestABIStubProcessAllocs: a call that succeeds allocates nothing; a
// timeout allocates at most once (the generated call boxes the code).
func TestABIStubProcessAllocs(t *testing.T) {
	stub := useABIStub(t)
	stub.refuse(0, 0)
	regs := make([]SockNotifyRegistration, 4)
	entries := make([]OverlappedEntry, 16)
	for _, tt := range []struct {
		name    string
		regs    []SockNotifyRegistration
		entries []OverlappedEntry
	}{{"both", regs, entries}, {"registrations only", regs, nil}, {"entries only", nil, entries}} {
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := Process(0, tt.regs, tt.entries, 0); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations a call, want 0", tt.name, allocs)
		}
	}
	stub.setResult(windows.WAIT_TIMEOUT)
	allocs := testing.AllocsPerRun(200, func() {
		if n, err := Process(0, regs, entries, 10); n != 0 || err != nil {
			t.Fatalf("timeout: got (%d, %v)", n, err)
		}
	})
	if allocs > 1 {
		t.Errorf("timeout: %.1f allocations a call, want at most 1", allocs)
	}
	t.Logf("a timeout allocates %.0f time(s)", allocs)
}

// BenchmarkABIStubProcess compares Process with the raw generated call, both
// calling the ABI stub, so that only this package's cost is measured: 4
// registrations and 16 entries a call.
func BenchmarkABIStubProcess(b *testing.B) {
	stub := useABIStub(b)
	stub.refuse(0, 0)
	regs := make([]SockNotifyRegistration, 4)
	entries := make([]OverlappedEntry, 16)
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		var n uint32
		for b.Loop() {
			if err := processSocketNotifications(0, uint32(len(regs)), &regs[0], 0, uint32(len(entries)), &entries[0], &n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("slices", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Process(0, regs, entries, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// gcd is the greatest common divisor of a and b.
func gcd(a, b uintptr) uintptr {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

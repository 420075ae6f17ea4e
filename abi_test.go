// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// stubCompilers are the C compilers that can build testdata/abistub for
// each GOARCH, in the order tried.
var stubCompilers = map[string][]string{
	"386":   {"i686-w64-mingw32-gcc"},
	"amd64": {"x86_64-w64-mingw32-gcc", "gcc"},
	"arm64": {"aarch64-w64-mingw32-gcc"},
}

// abiStub is testdata/abistub loaded, with the binding pointed at it.
type abiStub struct {
	tb  testing.TB
	dll *windows.LazyDLL
}

// useABIStub loads the ABI stub DLL and points the binding's
// ProcessSocketNotifications at it until the test ends. The DLL is the one
// named by SOCKSTATE_ABI_STUB (scripts/test.sh builds it on the Linux host,
// where the Windows test binary cannot run a compiler), or one built now
// with a C compiler for this GOARCH from PATH. Without either it skips.
func useABIStub(tb testing.TB) *abiStub {
	tb.Helper()
	path := os.Getenv("SOCKSTATE_ABI_STUB")
	if path == "" {
		path = buildABIStub(tb)
	}
	dll := windows.NewLazyDLL(path)
	if err := dll.Load(); err != nil {
		tb.Fatalf("loading the ABI stub %s: %v", path, err)
	}
	tb.Cleanup(func() { windows.FreeLibrary(windows.Handle(dll.Handle())) })

	// Pin the cached probe to the real ws2_32 first; put the real
	// procedure back afterwards.
	LoadProcessSocketNotifications()
	real := procProcessSocketNotifications
	procProcessSocketNotifications = dll.NewProc("ProcessSocketNotifications")
	tb.Cleanup(func() { procProcessSocketNotifications = real })

	stub := &abiStub{tb, dll}
	stub.setResult(0)
	stub.refuse(0xFFFFFFFF, 0xA0000000)
	stub.overReport(0)
	return stub
}

// useDequeue points the binding's GetQueuedCompletionStatusEx at the stub
// too, until the test ends.
func (s *abiStub) useDequeue() {
	real := procGetQueuedCompletionStatusEx
	procGetQueuedCompletionStatusEx = s.dll.NewProc("GetQueuedCompletionStatusEx")
	s.tb.Cleanup(func() { procGetQueuedCompletionStatusEx = real })
}

// overReport makes the stub's calls report extra entries beyond those
// they write.
func (s *abiStub) overReport(extra uint32) { s.call("StubSetOverReport", uintptr(extra)) }

// call calls an export of the stub.
func (s *abiStub) call(name string, args ...uintptr) uintptr {
	s.tb.Helper()
	proc := s.dll.NewProc(name)
	if err := proc.Find(); err != nil {
		s.tb.Fatal(err)
	}
	r, _, _ := proc.Call(args...)
	return r
}

// setResult sets what the stub's ProcessSocketNotifications returns.
func (s *abiStub) setResult(code windows.Errno) { s.call("StubSetResult", uintptr(code)) }

// refuse makes the stub refuse the registrations whose index (mod 32) is set
// in mask, with the result base|index; it accepts the others.
func (s *abiStub) refuse(mask, base uint32) {
	s.call("StubSetRegistrationResults", uintptr(mask), uintptr(base))
}

// arg returns argument i of the stub's last call as C received it.
func (s *abiStub) arg(i int) uintptr { return s.call("StubArg", uintptr(i)) }

func buildABIStub(tb testing.TB) string {
	tb.Helper()
	names := stubCompilers[runtime.GOARCH]
	for _, name := range names {
		cc, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if out, err := exec.Command(cc, "-dumpmachine").Output(); err != nil || !strings.Contains(string(out), "mingw") {
			continue // a gcc that does not build Windows DLLs for this GOARCH
		}
		dll := filepath.Join(tb.TempDir(), "abistub.dll")
		cmd := exec.Command(cc, "-shared", "-O2", "-Wall", "-Werror", "-o", dll,
			"testdata/abistub/abistub.c", "testdata/abistub/abistub.def",
			"-Wl,--kill-at", "-Wl,--enable-stdcall-fixup")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("building the ABI stub with %s: %v\n%s", cc, err, out)
		}
		return dll
	}
	tb.Skipf("ABI stub: SOCKSTATE_ABI_STUB is unset and no C compiler for windows/%s (%s) is on PATH",
		runtime.GOARCH, strings.Join(names, ", "))
	return ""
}

// TestABIStubProcessSocketNotifications checks the ABI of the binding, not
// Windows behaviour: it points the generated call at a C stand-in for
// ws2_32 (testdata/abistub) and checks that every argument and both arrays
// cross the Go/C boundary intact, in both directions, and that the C
// compiler lays the structs out as the Go types and testdata/layout.txt do.
func TestABIStubProcessSocketNotifications(t *testing.T) {
	stub := useABIStub(t)
	call, arg := stub.call, stub.arg

	t.Run("layout as C sees it", func(t *testing.T) {
		for key, want := range layoutRows(t) {
			name, err := windows.BytePtrFromString(key)
			if err != nil {
				t.Fatal(err)
			}
			c := uint32(call("StubLayout", uintptr(unsafe.Pointer(name))))
			if uintptr(c) != want || goLayout[key] != want {
				t.Errorf("%s: C says %d, Go has %d, layout.txt has %d", key, int32(c), goLayout[key], want)
			}
		}
	})

	t.Run("arguments and arrays", func(t *testing.T) {
		// Values with bits set in every byte that the fields have.
		pattern := uint64(0xF0E1D2C3B4A59687)
		regs := make([]SockNotifyRegistration, 3)
		for i := range regs {
			regs[i] = SockNotifyRegistration{
				Socket:             windows.Handle(uintptr(pattern) - uintptr(i)),
				CompletionKey:      uintptr(pattern>>4) + uintptr(i),
				EventFilter:        Filter(0xBEEF - i),
				Operation:          Op(0xA0 + i),
				TriggerFlags:       Trigger(0x50 + i),
				RegistrationResult: 0xFFFFFFFF,
			}
		}
		sent := append([]SockNotifyRegistration(nil), regs...)
		entries := make([]OverlappedEntry, 5)
		received := uint32(0xDEAD)
		port := windows.Handle(uintptr(pattern >> 8))

		err := ProcessSocketNotifications(port, uint32(len(regs)), &regs[0], windows.INFINITE, uint32(len(entries)), &entries[0], &received)
		if err != nil {
			t.Fatalf("stub returned 0, the binding returned %v", err)
		}

		wantArgs := []uintptr{
			uintptr(port), 3, uintptr(unsafe.Pointer(&regs[0])), 0xFFFFFFFF,
			5, uintptr(unsafe.Pointer(&entries[0])), uintptr(unsafe.Pointer(&received)),
		}
		for i, want := range wantArgs {
			if got := arg(i); got != want {
				t.Errorf("argument %d: C received %#x, Go passed %#x", i, got, want)
			}
		}
		for i, want := range sent {
			var got SockNotifyRegistration
			call("StubSeen", uintptr(i), uintptr(unsafe.Pointer(&got)))
			if got != want {
				t.Errorf("registration %d: C read %+v, Go wrote %+v", i, got, want)
			}
			back := want
			back.RegistrationResult = 0xA0000000 | uint32(i)
			if regs[i] != back {
				t.Errorf("registration %d after the call: Go reads %+v, C wrote %+v", i, regs[i], back)
			}
		}
		internal := uintptr(0x5A5A5A5A) // shifted at run time: it wraps on 386, as in C
		marker := call("StubMarker")
		for i, e := range entries {
			wantOv := uintptr(0)
			if i%2 == 0 {
				wantOv = marker
			}
			if ov := e.Overlapped; ov != wantOv {
				t.Errorf("entry %d: Go reads lpOverlapped %#x, C wrote %#x", i, ov, wantOv)
			}
			e.Overlapped = 0
			want := OverlappedEntry{
				CompletionKey:            ^uintptr(i),
				Internal:                 internal<<16 | uintptr(i),
				NumberOfBytesTransferred: 0x80000000 | uint32(i)<<8 | 0xC7,
			}
			if e != want {
				t.Errorf("entry %d: Go reads %+v, C wrote %+v", i, e, want)
			}
			if ev := SocketNotificationRetrieveEvents(&entries[i]); ev != want.NumberOfBytesTransferred {
				t.Errorf("entry %d: events %#x", i, ev)
			}
		}
		if received != 5 {
			t.Errorf("receivedEntryCount: Go reads %d, C wrote 5", received)
		}
	})

	t.Run("nil arrays and zero counts", func(t *testing.T) {
		if err := ProcessSocketNotifications(windows.Handle(7), 0, nil, 0, 0, nil, nil); err != nil {
			t.Fatal(err)
		}
		for i, want := range []uintptr{7, 0, 0, 0, 0, 0, 0} {
			if got := arg(i); got != want {
				t.Errorf("argument %d: C received %#x, want %#x", i, got, want)
			}
		}
	})

	t.Run("return codes", func(t *testing.T) {
		for _, code := range []windows.Errno{
			windows.WAIT_TIMEOUT, windows.ERROR_TIMEOUT, windows.WSAENOBUFS,
			windows.ERROR_INVALID_PARAMETER, windows.Errno(0xFFFFFFFF),
		} {
			stub.setResult(code)
			err := ProcessSocketNotifications(0, 0, nil, 0, 0, nil, nil)
			var got windows.Errno
			if !errors.As(err, &got) || got != code || !errors.Is(err, code) {
				t.Errorf("C returned %d: Go got %v, want windows.Errno(%d)", uint32(code), err, uint32(code))
			}
		}
	})
}

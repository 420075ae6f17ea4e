// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/windows"
)

// ErrNotSupported reports that this Windows has no ProcessSocketNotifications
// (it arrived in Windows 10 build 20348: Windows 11 and Windows Server 2022
// have it, most Windows 10 machines and Wine do not). Test for it with
// errors.Is: the errors of [ProcessSocketNotifications] and
// [LoadProcessSocketNotifications] match it, name the running Windows build,
// and unwrap to the loader's *windows.DLLError and its windows.Errno
// (ERROR_PROC_NOT_FOUND).
var ErrNotSupported = errors.New("sockstate: ProcessSocketNotifications is not supported (it needs Windows 10 build 20348 or later)")

// LoadProcessSocketNotifications reports whether ws2_32.dll exports
// ProcessSocketNotifications: nil if it does, an error that matches
// [ErrNotSupported] if it does not. It looks once and caches the answer, so
// it is cheap to call before choosing a code path.
//
// Requires nothing; the answer is nil on Windows 10 build 20348 or later.
func LoadProcessSocketNotifications() error {
	return loadResult()
}

// Supported reports whether [ProcessSocketNotifications] can be called here:
// it is LoadProcessSocketNotifications() == nil.
func Supported() bool {
	return LoadProcessSocketNotifications() == nil
}

var loadResult = sync.OnceValue(func() error {
	if err := procProcessSocketNotifications.Find(); err != nil {
		return notSupported(err)
	}
	return nil
})

// notSupportedError is the error of a call whose export is missing.
type notSupportedError struct {
	version string // the running Windows, such as "10.0.19045"
	err     error  // what the loader said
}

func notSupported(err error) error {
	return &notSupportedError{version: windowsVersion(), err: err}
}

// windowsVersion returns the running Windows as "major.minor.build", as
// RtlGetVersion reports it (GetVersionEx would lie to unmanifested programs).
func windowsVersion() string {
	v := windows.RtlGetVersion()
	return fmt.Sprintf("%d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber)
}

func (e *notSupportedError) Error() string {
	return "sockstate: ws2_32.dll has no ProcessSocketNotifications export, which needs Windows 10 build 20348 or later; this is Windows " + e.version + ": " + e.err.Error()
}

func (e *notSupportedError) Is(target error) bool { return target == ErrNotSupported }

func (e *notSupportedError) Unwrap() error { return e.err }

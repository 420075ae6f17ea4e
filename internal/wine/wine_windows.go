// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package wine tells whether this program runs under Wine, which reports a
// Windows version of its own choosing (10.0.18362 for a win10 prefix).
package wine

import "golang.org/x/sys/windows"

// Detected reports whether Wine's ntdll.dll answers: only Wine's has the
// wine_get_version export.
func Detected() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build generate

package afd

//go:generate go tool mkwinsyscall -output zsyscall_windows.go syscall_windows.go

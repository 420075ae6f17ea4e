// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build !linux

package main

import (
	"errors"
	"time"
)

// errNoProc is what -pid and -wineserver meet on a system without Linux's
// /proc.
var errNoProc = errors.New("-pid and -wineserver read Linux's /proc: not on this system")

func residentBytes(int) (int64, error)   { return 0, errNoProc }
func cpuTime(int) (time.Duration, error) { return 0, errNoProc }

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// residentBytes returns process pid's resident memory (VmRSS in
// /proc/PID/status).
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(string(b))
}

// parseVmRSS reads the line "VmRSS:  N kB" of a /proc/PID/status.
func parseVmRSS(status string) (int64, error) {
	for line := range strings.Lines(status) {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "VmRSS:" && f[2] == "kB" {
			kib, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", f[1], err)
			}
			return kib << 10, nil
		}
	}
	return 0, errors.New("no VmRSS line: a process that has ended, or a kernel thread")
}

// cpuTime returns process pid's CPU time so far, of all its threads,
// those that have ended included: its CPU clock (clock_gettime(2) on the
// clock that clock_getcpuclockid(3) names), which any process of the same
// PID namespace may read. It counts in nanoseconds, a thread that runs as
// it is read up to its last scheduler tick or switch (4 ms at 250 Hz);
// /proc/PID/stat counts the same time in clock ticks of 10 ms (USER_HZ,
// 100), as much as a server spends in some of connload's turns.
func cpuTime(pid int) (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(processCPUClock(pid), &ts); err != nil {
		return 0, fmt.Errorf("process %d's CPU clock: %w", pid, err)
	}
	return time.Duration(ts.Nano()), nil
}

// processCPUClock is the clock ID of process pid's CPU clock, as glibc's
// clock_getcpuclockid makes it: the pid, inverted, shifted by 3, with
// CPUCLOCK_SCHED (2), from Linux's include/linux/posix-timers.h.
func processCPUClock(pid int) int32 {
	return ^int32(pid)<<3 | 2
}

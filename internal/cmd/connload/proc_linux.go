// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
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

// cpuTime returns process pid's CPU time so far, user and system, of all
// its threads, those that have ended included (/proc/PID/stat).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	ticks, err := parseStatTicks(string(b))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	hz, err := clockTicks()
	if err != nil {
		return 0, err
	}
	return time.Duration(ticks) * time.Second / time.Duration(hz), nil
}

// parseStatTicks returns utime+stime, fields 14 and 15 of a /proc/PID/stat
// line, in clock ticks. The second field, the command's name in
// parentheses, may hold spaces and parentheses of its own: the fields are
// counted from its last ')'.
func parseStatTicks(stat string) (int64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no ')' after the command's name")
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the name, not at least 13", len(f))
	}
	var sum int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("utime or stime %q: not a count of ticks", s)
		}
		sum += n
	}
	return sum, nil
}

// clockTicks returns the kernel's clock ticks a second (USER_HZ, what C's
// sysconf(_SC_CLK_TCK) returns), which /proc counts times in: the entry
// AT_CLKTCK of this process's auxiliary vector.
var clockTicks = sync.OnceValues(func() (int64, error) {
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return 0, err
	}
	return parseAuxv(b, int(unsafe.Sizeof(uintptr(0))))
})

// atClkTck is AT_CLKTCK, the auxiliary vector's key for USER_HZ
// (<linux/auxvec.h>'s; elf.h: "Frequency of times()").
const atClkTck = 17

// parseAuxv finds AT_CLKTCK in an auxiliary vector, pairs of words of
// the given size (4 or 8 bytes) in this machine's byte order.
func parseAuxv(b []byte, word int) (int64, error) {
	get := func(p []byte) uint64 {
		if word == 4 {
			return uint64(binary.NativeEndian.Uint32(p))
		}
		return binary.NativeEndian.Uint64(p)
	}
	for ; len(b) >= 2*word; b = b[2*word:] {
		key, val := get(b), get(b[word:])
		if key == 0 { // AT_NULL: the end
			break
		}
		if key == atClkTck {
			if val == 0 || val > 1e6 {
				return 0, fmt.Errorf("AT_CLKTCK %d", val)
			}
			return int64(val), nil
		}
	}
	return 0, errors.New("no AT_CLKTCK in the auxiliary vector")
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"math"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseVmRSS(t *testing.T) {
	got, err := parseVmRSS("Name:\tx\nVmPeak:\t  9 kB\nVmRSS:\t    1234 kB\nThreads:\t3\n")
	if err != nil || got != 1234<<10 {
		t.Errorf("got %d, %v; want %d", got, err, 1234<<10)
	}
	if _, err := parseVmRSS("Name:\tkthreadd\nThreads:\t1\n"); err == nil {
		t.Error("no VmRSS line: no error")
	}
}

func TestParseStatTicks(t *testing.T) {
	// A name with a space and a parenthesis of its own.
	stat := "42 (a b) c) S 1 42 42 0 -1 4194560 100 0 0 0 25 17 0 0 20 0 3 0 99 1000 50\n"
	if got, err := parseStatTicks(stat); err != nil || got != 42 {
		t.Errorf("got %d, %v; want 25+17", got, err)
	}
	for _, bad := range []string{"42 x S 1", "42 (x) S 1 2 3", "42 (x) S 1 42 42 0 -1 4194560 100 0 0 0 u 17 0"} {
		if _, err := parseStatTicks(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseAuxv(t *testing.T) {
	for _, word := range []int{4, 8} {
		var b []byte
		for _, v := range []uint64{6, 4096, atClkTck, 100, 0, 0} {
			if word == 4 {
				b = binary.NativeEndian.AppendUint32(b, uint32(v))
			} else {
				b = binary.NativeEndian.AppendUint64(b, v)
			}
		}
		if got, err := parseAuxv(b, word); err != nil || got != 100 {
			t.Errorf("word %d: got %d, %v; want 100", word, got, err)
		}
		if _, err := parseAuxv(b[:2*word], word); err == nil {
			t.Errorf("word %d: no AT_CLKTCK, no error", word)
		}
	}
}

// TestSelf reads this process: its memory grows with a buffer it touches,
// and its CPU time is the kernel's.
func TestSelf(t *testing.T) {
	rss0, err := residentBytes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Mapped for this test, not from Go's heap, which may hold pages of
	// its own from before.
	buf, err := syscall.Mmap(-1, 0, 64<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(buf)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	rss1, err := residentBytes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if rss1-rss0 < 32<<20 {
		t.Errorf("resident %d, then %d after touching 64 MiB", rss0, rss1)
	}
	// The CPU time read in /proc against the kernel's own account of it
	// (getrusage), read before and after: within a clock tick each way
	// (10 ms at Linux's usual 100 Hz; 20 allowed), after at least 100 ms
	// of CPU spent, so that a count that stays 0 fails.
	for rusage(t) < 100*time.Millisecond {
	}
	before := rusage(t)
	cpu, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	after := rusage(t)
	if cpu < before-20*time.Millisecond || cpu > after+20*time.Millisecond {
		t.Errorf("CPU time %v in /proc; getrusage said %v before, %v after", cpu, before, after)
	}
	if _, err := residentBytes(1 << 30); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a process that does not exist: %v", err)
	}
}

// TestRunMeasured runs the load against a server in this process, which
// it reads as the server and, as under Wine, as the wineserver too, or,
// as for a native server, alone: then the wineserver's figure is left
// out, not 0.
func TestRunMeasured(t *testing.T) {
	for _, ws := range []int{os.Getpid(), 0} {
		c := config{addrs: []string{server(t, func([]byte) {})}, conns: 50, active: 10, duration: 200 * time.Millisecond,
			block: 200 * time.Millisecond, size: 64, parallel: 8, pids: []int{os.Getpid()}, wineserver: ws}
		var out strings.Builder
		if err := run(c, strings.NewReader(""), &out); err != nil {
			t.Fatal(err)
		}
		f := fields(t, out.String())
		for _, k := range []string{"mem-B/conn", "server-us/msg", "load-cpu", "wineserver-us/msg"} {
			if _, ok := f[k]; ok != (k != "wineserver-us/msg" || ws != 0) {
				t.Errorf("-wineserver %d: %s present: %v: %s", ws, k, ok, out.String())
			}
		}
		// A share of the CPUs this process may use: above it, a unit is
		// wrong.
		if l := f["load-cpu"]; l < 0 || l > float64(runtime.NumCPU())+0.5 {
			t.Errorf("load-cpu %v with %d CPUs: %s", l, runtime.NumCPU(), out.String())
		}
		if ws == 0 {
			continue
		}
		// The same process read twice, a moment apart: at most a clock
		// tick (10 ms at Linux's usual 100 Hz; 20 allowed) apart in all.
		if d := math.Abs(f["server-us/msg"]-f["wineserver-us/msg"]) * f["msgs"]; f["server-us/msg"] < 0 || d > 20_000 {
			t.Errorf("the same process read twice: server %v, wineserver %v ms a message over %v messages",
				f["server-us/msg"], f["wineserver-us/msg"], f["msgs"])
		}
	}
}

// rusage returns this process's CPU time, user and system, by getrusage.
func rusage(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

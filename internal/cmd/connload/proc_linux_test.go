// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"math"
	"os"
	"os/exec"
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
	// The CPU clock against the kernel's own account of the time
	// (getrusage, which gives the same total), read before and after,
	// after at least 100 ms of CPU spent, so that a count that stays 0
	// fails.
	for rusage(t) < 100*time.Millisecond {
	}
	before := rusage(t)
	cpu, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	after := rusage(t)
	if cpu < before-time.Millisecond || cpu > after+time.Millisecond {
		t.Errorf("CPU time %v by the CPU clock; getrusage said %v before, %v after", cpu, before, after)
	}
	if _, err := residentBytes(1 << 30); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a process that does not exist: %v", err)
	}
}

// TestOtherProcess reads the CPU clock of another process, a shell that
// counts: at least 100 ms, and at most what wait4 says it spent in all.
func TestOtherProcess(t *testing.T) {
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var cpu time.Duration
	for cpu < 100*time.Millisecond {
		var err error
		if cpu, err = cpuTime(cmd.Process.Pid); err != nil {
			t.Fatal(err) // not reaped before Wait: its clock stays readable
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if all := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); cpu > all+time.Millisecond {
		t.Errorf("CPU clock %v, more than the %v that wait4 reported at its end", cpu, all)
	}
	if _, err := cpuTime(cmd.Process.Pid); err == nil {
		t.Error("the clock of a process reaped: no error")
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
		// The same process read twice, a moment apart: at most 20 ms
		// apart in all (a thread running when read counts up to its last
		// tick, 4 ms at 250 Hz; a loaded machine may run others between
		// the reads) over every echo, which msgs (those within the echo's
		// time) undercounts by -active.
		if d := math.Abs(f["server-us/msg"]-f["wineserver-us/msg"]) * (f["msgs"] + float64(c.active)); f["server-us/msg"] <= 0 || d > 20_000 {
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

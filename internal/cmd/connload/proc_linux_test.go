// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
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
// and its CPU time with a loop.
func TestSelf(t *testing.T) {
	before, err := residentBytes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1
	}
	after, err := residentBytes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 32<<20 {
		t.Errorf("resident %d, then %d after touching 64 MiB", before, after)
	}
	cpu0, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; {
	}
	cpu1, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := cpu1 - cpu0; d < 50*time.Millisecond || d > 10*time.Second {
		t.Errorf("CPU time grew by %v over a 100 ms loop", d)
	}
	if _, err := residentBytes(1 << 30); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a process that does not exist: %v", err)
	}
	_ = buf[len(buf)-1]
}

// TestRunMeasured runs the load against a server in this process, which
// it reads as the server and as the wineserver.
func TestRunMeasured(t *testing.T) {
	c := config{addr: server(t, func([]byte) {}), conns: 50, active: 10, duration: 200 * time.Millisecond,
		size: 64, parallel: 8, pid: os.Getpid(), wineserver: os.Getpid()}
	var out strings.Builder
	if err := run(c, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	f := fields(t, out.String())
	for _, k := range []string{"mem-B/conn", "server-us/msg", "wineserver-us/msg"} {
		if _, ok := f[k]; !ok {
			t.Errorf("no %s: %s", k, out.String())
		}
	}
	// The same process read twice, a moment apart: at most a clock tick
	// (10 ms at Linux's usual 100 Hz; 20 allowed) apart in all.
	if d := math.Abs(f["server-us/msg"]-f["wineserver-us/msg"]) * f["msgs"]; f["server-us/msg"] < 0 || d > 20_000 {
		t.Errorf("the same process read twice: server %v, wineserver %v ms a message over %v messages",
			f["server-us/msg"], f["wineserver-us/msg"], f["msgs"])
	}
}

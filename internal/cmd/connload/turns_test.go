// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain runs this test binary as connload when runTurns starts it as a
// copy of itself (-turn).
func TestMain(m *testing.M) {
	if slices.Contains(os.Args[1:], "-turn") {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunTurns has two copies take turns on two servers, which log who
// read each message: the log must hold the set-ups, one after the other,
// then one run of reads a turn, never the two servers at once.
func TestRunTurns(t *testing.T) {
	var (
		mu  sync.Mutex
		log []byte // 'a' or 'b' a read
	)
	logAs := func(who byte) func([]byte) {
		return func([]byte) {
			mu.Lock()
			log = append(log, who)
			mu.Unlock()
		}
	}
	a, b := server(t, logAs('a')), server(t, logAs('b'))
	c := config{addrs: []string{a, b}, conns: 20, active: 4, duration: 300 * time.Millisecond,
		block: 50 * time.Millisecond, size: 64, parallel: 4, pids: []int{os.Getpid(), os.Getpid()}}
	var out strings.Builder
	if err := runTurns(c, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines for 2 servers: %q", len(lines), out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	// A server reads each message whole (64 bytes, one in flight a
	// connection): its reads are the 20 set-up messages and every echo,
	// which the line counts but for those in flight at a turn's end, one
	// a connection a turn: 4 times 6.
	for i, l := range lines {
		f := fields(t, l)
		echoes := float64(bytes.Count(log, []byte{"ab"[i]}) - 20)
		if f["conns"] != 20 || f["msgs"] != echoes-4*6 || f["msgs"] < 1 ||
			f["msgs/s"] != math.Round(f["msgs"]/0.3) || f["server-us/msg"] <= 0 {
			t.Errorf("implausible figures for %d echoes: %s", int(echoes), l)
		}
	}
	// The set-ups, a then b; then 6 turns each, the first server of a
	// round rotating: ab, ba, ab... A run of reads a turn, but where a
	// round ends on the server that begins the next (ab|ba) the two turns
	// make one run.
	want := runsOf([]byte("ab" + "ab" + "ba" + "ab" + "ba" + "ab" + "ba"))
	if got := runsOf(log); got != want {
		t.Errorf("the servers' reads, a letter a run of them: %s, want %s (%d reads)", got, want, len(log))
	}
}

// runsOf is log with each run of one letter made one letter.
func runsOf(log []byte) string {
	var b strings.Builder
	for i, c := range log {
		if i == 0 || c != log[i-1] {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestRunTurnsFailure: a copy whose server changes a byte of a message
// of the echo, not of the set-up (the first of each connection), fails in
// a turn, and so does the whole, saying why.
func TestRunTurnsFailure(t *testing.T) {
	good := server(t, func([]byte) {})
	bad := server(t, func(b []byte) {
		if len(b) >= 8 && binary.LittleEndian.Uint32(b[4:]) >= 1 { // the sequence number
			b[len(b)-1]++
		}
	})
	c := config{addrs: []string{good, bad}, conns: 10, active: 2, duration: 100 * time.Millisecond,
		block: 50 * time.Millisecond, size: 64, parallel: 4}
	err := runTurns(c, strings.NewReader(""), &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "the load on "+bad) || !strings.Contains(err.Error(), "active connection") ||
		!strings.Contains(err.Error(), "message 1 came back as") {
		t.Fatalf("a server that changes a byte of the echo: %v", err)
	}
}

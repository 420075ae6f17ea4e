// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// TestGolden runs each mode on records of testdata and compares the
// tables with the golden files there (-update rewrites them): gc and
// conns from Wine runs, wait and conns -native from native ones (no
// wineserver, cepoll the C server, the goals).
func TestGolden(t *testing.T) {
	for _, tc := range []struct{ name, mode, flag string }{
		{"gc", "gc", ""}, {"conns", "conns", ""}, {"wait", "wait", ""}, {"conns-native", "conns", "-native"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{tc.mode, filepath.Join("testdata", tc.name+".txt")}
			if tc.flag != "" {
				args = []string{tc.mode, tc.flag, args[1]}
			}
			var out strings.Builder
			if err := run(args, nil, &out); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".md")
			if *update {
				if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != string(want) {
				t.Errorf("benchtab %q wrote:\n%s\nwant (%s):\n%s", args, out.String(), golden, want)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	for _, args := range [][]string{
		nil, {"stats"}, {"gc", "-svg", "x.svg"}, {"conns", "a", "b"}, {"conns", "-nope"},
		{"wait", "-native"}, {"gc", "-caption", "x"},
	} {
		err := run(args, strings.NewReader(""), &strings.Builder{})
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("benchtab %q: %v, want a usage error", args, err)
		}
	}
	none := filepath.Join(os.TempDir(), fmt.Sprintf("benchtab-none-%d.txt", os.Getpid()))
	err := run([]string{"gc", none}, nil, &strings.Builder{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file that does not exist: %v", err)
	}
}

// TestStdin reads the records from the standard input without a file.
func TestStdin(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"gc"}, strings.NewReader("1 go echo/2 10\n1 c echo/2 20\n"), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| 2 goroutines / 2 threads | 10 | 20 | 0.50 |") {
		t.Errorf("got:\n%s", out.String())
	}
}

func TestBadRecords(t *testing.T) {
	for _, tc := range []struct{ mode, in, want string }{
		{"gc", "1 go wait/10", "3 fields"},
		{"gc", "0 go wait/10 5", `round "0"`},
		{"gc", "1 java wait/10 5", `side "java"`},
		{"gc", "1 go wait/x 5", `metric "wait/x"`},
		{"gc", "1 go mem/stack 5", `metric "mem/stack"`},
		{"gc", "1 go wait/10 NaN", `value "NaN"`},
		{"gc", "\n1 go wait/10 5\n1 c wait/10 fast\n", "line 3"},
		{"conns", "1 poller 1000", "3 fields"},
		{"conns", "1 poller 100 1000 msgs/s=5", "ACTIVE"},
		{"conns", "1 poller 1000 10 msgs/s", "not KEY=VALUE"},
		{"conns", "1 poller 1000 10 msgs/s=Inf", "msgs/s"},
		{"conns", "1 epoll 1000 10 msgs/s=5", `server "epoll"`},
		{"conns", "1 c 1000 10 msgs/s=5\n1 cepoll 1000 10 msgs/s=5", "one C server a run"},
		{"wait", "1 BenchmarkWaitEpoll/ready 10 5", "4 fields"},
		{"wait", "1 BenchmarkWaitEpoll/ready 10 5 ns/op 4", "6 fields"},
		{"wait", "x BenchmarkWaitEpoll/ready 10 5 ns/op", `round "x"`},
		{"wait", "1 BenchmarkWaitEpoll 10 5 ns/op", "not BenchmarkX/CASE"},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 0 5 ns/op", `iterations "0"`},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 10 5 ns/op 2 poller-ns/Wait", "no raw-ns/Wait"},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 10 5 ns/op 2 raw-ns/Wait", "no poller-ns/Wait"},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 10 5 ns/op NaN poller-ns/Wait 2 raw-ns/Wait", `value "NaN"`},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 10 5 ns/op 2 go-ns/Wait 2 raw-ns/Wait", `unit "go-ns/Wait"`},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 10 5 ns/op 2 raw-ns/Wait 3 raw-ns/Wait", `unit "raw-ns/Wait" twice`},
		{"wait", "1 BenchmarkWaitEpoll/ 10 5 ns/op 2 poller-ns/Wait 2 raw-ns/Wait", "not BenchmarkX/CASE"},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 ten 5 ns/op 2 poller-ns/Wait 2 raw-ns/Wait", `iterations "ten"`},
		{"wait", "1 BenchmarkWaitEpoll/ready-2 10 5 ns/op 2 poller-ns/Wait 2 raw-ns/Wait\n1 BenchmarkWaitEpoll/ready 10 5 ns/op 2 poller-ns/Wait 2 raw-ns/Wait", `case "ready" twice in round 1`},
	} {
		err := run([]string{tc.mode}, strings.NewReader(tc.in), &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want an error with %q", tc.mode, tc.in, err, tc.want)
		}
	}
}

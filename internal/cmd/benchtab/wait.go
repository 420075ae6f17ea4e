// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// waitRun is a wait run's figures, ns a Wait by side (poller or raw) and
// case, and its cases in the order they first came.
type waitRun struct {
	f     *figures
	cases []string
}

// waitSides are the sides of a wait run, in the order of the table.
var waitSides = [2]string{"poller", "raw"}

// procs is the -P suffix that go test adds to a benchmark's name when
// GOMAXPROCS is not 1.
var procs = regexp.MustCompile(`-[0-9]+$`)

// readWait reads the records of bench.sh's Wait rounds, a line each:
// "ROUND NAME ITERATIONS VALUE UNIT [VALUE UNIT]...", a line of go test
// -bench's output (poller/bench_linux_test.go's BenchmarkWaitEpoll, which
// times both sides in one run) after its round; NAME is
// "BenchmarkX/CASE[-P]", and the units must include each side's time a
// call, poller-ns/Wait and raw-ns/Wait, once each; another -ns/Wait unit,
// or a case twice in a round, is an error.
func readWait(r io.Reader) (waitRun, error) {
	run := waitRun{f: &figures{}}
	err := lines(r, func(w []string) error {
		if len(w) < 5 || len(w)%2 == 0 {
			return fmt.Errorf("%d fields, not ROUND NAME ITERATIONS and VALUE UNIT pairs", len(w))
		}
		rd, err := round(w[0])
		if err != nil {
			return err
		}
		_, c, ok := strings.Cut(procs.ReplaceAllString(w[1], ""), "/")
		if !ok || c == "" {
			return fmt.Errorf("benchmark %q: not BenchmarkX/CASE", w[1])
		}
		if x, err := value(w[2]); err != nil || x < 1 {
			return fmt.Errorf("iterations %q: not a count", w[2])
		}
		var got [len(waitSides)]float64
		var seen [len(waitSides)]bool
		for i := 3; i < len(w); i += 2 {
			side, ok := strings.CutSuffix(w[i+1], "-ns/Wait")
			if !ok {
				continue // ns/op (a call on each side), poller/raw, B/op...
			}
			k := slices.Index(waitSides[:], side)
			switch {
			case k < 0:
				return fmt.Errorf("unit %q: not poller-ns/Wait or raw-ns/Wait", w[i+1])
			case seen[k]:
				return fmt.Errorf("unit %q twice", w[i+1])
			}
			if got[k], err = value(w[i]); err != nil {
				return err
			}
			seen[k] = true
		}
		for k, side := range waitSides {
			if !seen[k] {
				return fmt.Errorf("no %s-ns/Wait", side)
			}
		}
		if _, dup := run.f.get(waitSides[0], c)[rd]; dup {
			return fmt.Errorf("case %q twice in round %d", c, rd)
		}
		if !slices.Contains(run.cases, c) {
			run.cases = append(run.cases, c)
		}
		for k, side := range waitSides {
			run.f.add(rd, side, c, got[k])
		}
		return nil
	})
	return run, err
}

// waitTables writes the table of a wait run: each case's ns a Wait on
// both sides, median (min–max), the median (min–max) of the rounds'
// poller/raw ratios and its 95% interval, and waitGoal's verdict.
func waitTables(w io.Writer, run waitRun) {
	fmt.Fprintf(w, "| Wait: ns a Wait | poller | raw epoll | poller/raw | 95%% interval of the median | goal: %s |\n| --- | --- | --- | --- | --- | --- |\n", waitGoal)
	for _, c := range run.cases {
		a, b := run.f.get("poller", c), run.f.get("raw", c)
		fmt.Fprintf(w, "| %s |", c)
		r := pairCells(w, a, b, run.f.rounds)
		fmt.Fprintf(w, " %s | %s |\n", r.intervalString(), waitGoal.verdict(r))
	}
	fmt.Fprintln(w)
}

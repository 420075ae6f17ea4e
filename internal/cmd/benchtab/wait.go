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
// "ROUND NAME ITERATIONS VALUE ns/op [VALUE UNIT]...", a line of go test
// -bench's output (poller/bench_linux_test.go's BenchmarkWaitEpoll) after
// its round; NAME is "BenchmarkX/CASE.../SIDE[-P]", SIDE poller or raw.
func readWait(r io.Reader) (waitRun, error) {
	run := waitRun{f: &figures{}}
	err := lines(r, func(w []string) error {
		if len(w) < 5 {
			return fmt.Errorf("%d fields, not at least 5 (ROUND NAME ITERATIONS VALUE ns/op)", len(w))
		}
		rd, err := round(w[0])
		if err != nil {
			return err
		}
		name := procs.ReplaceAllString(w[1], "")
		_, rest, ok1 := strings.Cut(name, "/")
		c, side, ok2 := cutLast(rest, "/")
		if !ok1 || !ok2 || c == "" || !slices.Contains(waitSides[:], side) {
			return fmt.Errorf("benchmark %q: not BenchmarkX/CASE/poller or BenchmarkX/CASE/raw", w[1])
		}
		if w[4] != "ns/op" {
			return fmt.Errorf("unit %q: ns/op", w[4])
		}
		x, err := value(w[2])
		if err != nil || x < 1 {
			return fmt.Errorf("iterations %q: not a count", w[2])
		}
		if x, err = value(w[3]); err != nil {
			return err
		}
		if !slices.Contains(run.cases, c) {
			run.cases = append(run.cases, c)
		}
		run.f.add(rd, side, c, x)
		return nil
	})
	return run, err
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// waitTables writes the table of a wait run: each case's ns a Wait on
// both sides, median (min–max), the median (min–max) of the rounds'
// poller/raw ratios, and whether that median meets waitGoal.
func waitTables(w io.Writer, run waitRun) {
	fmt.Fprintf(w, "| Wait: ns a Wait | poller | raw epoll | poller/raw | goal: %s |\n| --- | --- | --- | --- | --- |\n", waitGoal)
	for _, c := range run.cases {
		a, b := run.f.get("poller", c), run.f.get("raw", c)
		fmt.Fprintf(w, "| %s |", c)
		pairCells(w, a, b, run.f.rounds)
		fmt.Fprintf(w, " %s |\n", waitGoal.verdict(summarize(ratios(a, b))))
	}
	fmt.Fprintln(w)
}

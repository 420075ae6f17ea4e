// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Command testreport condenses "go test -json" for scripts/test.sh: it
// prints each package's result line and the whole output of every failing
// test, then a count line, and records the counts and every skipped test
// with its reason in a state file. With -summary it prints the skips and the
// totals of every run recorded in that file.
//
//	go test -json ./... | testreport -label "windows/amd64" -state FILE
//	testreport -summary FILE
//
// It exits 1 when a test or a package failed (or, with -summary, when any
// recorded run did), and 2 on bad input.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type counts struct{ passed, failed, skipped int }

func main() {
	label := flag.String("label", "tests", "name of this run in the output")
	state := flag.String("state", "", "file that collects counts and skips across runs")
	summary := flag.String("summary", "", "print the skips and totals recorded in this state file")
	verbose := flag.Bool("v", false, "echo all test output")
	flag.Parse()

	if *summary != "" {
		failed, err := printSummary(*summary, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
		if failed {
			os.Exit(1)
		}
		return
	}
	c, skips, pkgFailed, err := report(os.Stdin, os.Stdout, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	fmt.Printf("%s: %d passed, %d failed, %d skipped\n", *label, c.passed, c.failed, c.skipped)
	if *state != "" {
		if err := record(*state, *label, c, pkgFailed, skips); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
	}
	if c.failed > 0 || pkgFailed {
		os.Exit(1)
	}
}

func isResultLine(s string) bool {
	return strings.HasPrefix(s, "ok ") || strings.HasPrefix(s, "FAIL") || strings.HasPrefix(s, "?   ")
}

// skipReason picks the messages a test logged, without the framework's
// "=== RUN" and "--- SKIP" lines.
func skipReason(lines []string) string {
	var msgs []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		msgs = append(msgs, t)
	}
	if len(msgs) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msgs, " / ")
}

// The state file has one line a record, tab-separated:
//
//	count <label> <passed> <failed> <skipped> <package failed: 0 or 1>
//	skip <label> <package.Test> <reason>
func record(path, label string, c counts, pkgFailed bool, skips map[string]string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	pf := 0
	if pkgFailed {
		pf = 1
	}
	fmt.Fprintf(f, "count\t%s\t%d\t%d\t%d\t%d\n", label, c.passed, c.failed, c.skipped, pf)
	ids := make([]string, 0, len(skips))
	for id := range skips {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(f, "skip\t%s\t%s\t%s\n", label, id, strings.ReplaceAll(skips[id], "\t", " "))
	}
	return f.Close()
}

func printSummary(path string, w io.Writer) (failed bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var total, model counts
	var runs int // runs not against the model
	var skipLines []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for s.Scan() {
		fields := strings.Split(s.Text(), "\t")
		switch {
		case fields[0] == "count" && len(fields) == 6:
			var c counts
			var pf int
			if _, err := fmt.Sscan(strings.Join(fields[2:], " "), &c.passed, &c.failed, &c.skipped, &pf); err != nil {
				return false, fmt.Errorf("%s: %q: %w", path, s.Text(), err)
			}
			sum := &total
			if isModel(fields[1]) {
				sum = &model
			} else {
				runs++
			}
			sum.passed += c.passed
			sum.failed += c.failed
			sum.skipped += c.skipped
			failed = failed || c.failed > 0 || pf != 0
		case fields[0] == "skip" && len(fields) == 4:
			skipLines = append(skipLines, fmt.Sprintf("  [%s] %s: %s", fields[1], fields[2], fields[3]))
		default:
			return false, fmt.Errorf("%s: malformed line %q", path, s.Text())
		}
	}
	if err := s.Err(); err != nil {
		return false, err
	}
	fmt.Fprintf(w, "Skipped tests (%d); a skip is not a pass:\n", len(skipLines))
	for _, l := range skipLines {
		fmt.Fprintln(w, l)
	}
	if model != (counts{}) {
		fmt.Fprintf(w, "against the reference model of ProcessSocketNotifications (not Windows): %d passed, %d failed, %d skipped\n", model.passed, model.failed, model.skipped)
	}
	if runs > 0 || model == (counts{}) {
		fmt.Fprintf(w, "total: %d passed, %d failed, %d skipped\n", total.passed, total.failed, total.skipped)
	}
	return failed || total.failed > 0 || model.failed > 0, nil
}

// isModel reports whether a run's label names the reference model: such
// runs are totalled apart and never count as Windows passes.
func isModel(label string) bool { return strings.Contains(label, "model") }

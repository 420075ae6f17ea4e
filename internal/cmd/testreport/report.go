// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string // of a build-output event (Go 1.24 and later)
	FailedBuild string // of a package's fail event: the build that failed
}

// test names a test; name "" is its package.
type test struct{ pkg, name string }

// reporter is report's state.
type reporter struct {
	w          io.Writer
	verbose    bool
	c          counts
	skips      map[string]string
	failed     bool                 // a package failed
	output     map[test][]string    // the output so far of each test not ended
	resulted   map[test]bool        // tests whose result line came, their event not yet
	paused     map[test]bool        // parallel tests paused and not yet resumed
	pkgs       map[string]*pkgState // packages met
	buildOut   map[string][]string  // build output by ImportPath
	shownBuild map[string]bool      // builds whose failure was shown
}

type pkgState struct {
	ended      bool
	testFailed bool // a test of the package failed
	// tail is what test2json gave to the package, or to a test after its
	// result line (to the last test it saw framed, until the next): the
	// binary's last words and its runner's, a panic among them.
	tail []string
}

// report reads test2json events from r, writes package results and the
// output of failing tests to w, and returns the counts, the reason of each
// skipped test and whether a package failed outside any test. A test still
// running when its package failed (its -test.timeout panicked, or the
// binary crashed) is a failed test, and one paused then never ran. What
// came after a test's result line is not that test's, whatever test2json
// says: a panic, or what the runner said of a binary it killed, is shown
// when the package fails, also when test2json gave it to a test that
// passed. A package whose events stop before its result (go tool test2json
// reading a binary that was killed) failed. A build's failure is shown
// once.
func report(r io.Reader, w io.Writer, verbose bool) (c counts, skips map[string]string, pkgFailed bool, err error) {
	rp := reporter{w: w, verbose: verbose, skips: map[string]string{}, output: map[test][]string{},
		resulted: map[test]bool{}, paused: map[test]bool{}, pkgs: map[string]*pkgState{},
		buildOut: map[string][]string{}, shownBuild: map[string]bool{}}
	dec := json.NewDecoder(r)
	for {
		var e event
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			return rp.c, nil, false, fmt.Errorf("reading go test -json: %w", err)
		}
		rp.event(e)
	}
	var unended []string
	for name, ps := range rp.pkgs {
		if !ps.ended {
			unended = append(unended, name)
		}
	}
	sort.Strings(unended)
	for _, name := range unended {
		rp.printf("--- %s: its events stopped before its result (killed?)\n", name)
		rp.packageFailed(name, "")
	}
	return rp.c, rp.skips, rp.failed, nil
}

func (rp *reporter) printf(format string, args ...any) { fmt.Fprintf(rp.w, format, args...) }

// show writes lines that -v has not written already.
func (rp *reporter) show(lines []string) {
	if !rp.verbose {
		fmt.Fprint(rp.w, strings.Join(lines, ""))
	}
}

func (rp *reporter) event(e event) {
	if e.Action == "build-output" {
		rp.buildOut[e.ImportPath] = append(rp.buildOut[e.ImportPath], e.Output)
		if rp.verbose {
			fmt.Fprint(rp.w, e.Output)
		}
		return
	}
	if e.Package == "" {
		return // build-fail: the package's fail event names the build
	}
	ps := rp.pkgs[e.Package]
	if ps == nil {
		ps = &pkgState{}
		rp.pkgs[e.Package] = ps
	}
	id := test{e.Package, e.Test}
	switch e.Action {
	case "run":
		rp.output[id] = nil // started: not ended until its pass, skip or fail
	case "pause":
		rp.paused[id] = true
	case "cont":
		delete(rp.paused, id)
	case "output":
		if rp.verbose {
			fmt.Fprint(rp.w, e.Output)
		}
		switch {
		case e.Test == "" && isResultLine(e.Output):
			if !rp.verbose {
				fmt.Fprint(rp.w, e.Output)
			}
		case e.Test != "" && !rp.resulted[id]:
			rp.output[id] = append(rp.output[id], e.Output)
			rp.resulted[id] = result(e.Output, e.Test) != ""
		default:
			ps.tail = append(ps.tail, e.Output)
		}
	case "pass", "skip":
		switch {
		case e.Test == "":
			ps.ended, ps.tail = true, nil // a package that passed: its tail is not shown
		case e.Action == "pass":
			rp.c.passed++
		default:
			rp.c.skipped++
			rp.skips[e.Package+"."+e.Test] = skipReason(rp.output[id])
		}
		rp.end(id)
	case "fail":
		if e.Test == "" {
			rp.packageFailed(e.Package, e.FailedBuild)
			return
		}
		rp.c.failed++
		ps.testFailed = true
		rp.show(rp.output[id])
		rp.end(id)
	}
}

func (rp *reporter) end(id test) {
	delete(rp.output, id)
	delete(rp.resulted, id)
	delete(rp.paused, id)
}

// packageFailed ends package pkg, which failed: its tests that had not
// ended, the build that failed, and its tail.
func (rp *reporter) packageFailed(pkg, failedBuild string) {
	ps := rp.pkgs[pkg]
	ps.ended = true
	rp.failed = true
	var unended []string
	for id := range rp.output {
		if id.pkg == pkg {
			unended = append(unended, id.name)
		}
	}
	sort.Strings(unended)
	for _, name := range unended {
		id := test{pkg, name}
		// A result line that came without its event (go tool test2json
		// at the end of its input) counts.
		switch r := resultOf(rp.output[id], name); {
		case r == "PASS":
			rp.c.passed++
		case r == "SKIP":
			rp.c.skipped++
			rp.skips[pkg+"."+name] = skipReason(rp.output[id])
		case r == "" && rp.paused[id]:
			rp.printf("--- %s did not run: paused when the package failed\n", name)
		default:
			rp.c.failed++
			ps.testFailed = true
			if r == "" {
				rp.printf("--- %s did not end: the package failed in it\n", name)
			}
			rp.show(rp.output[id])
		}
		rp.end(id)
	}
	if failedBuild != "" && !rp.shownBuild[failedBuild] {
		rp.shownBuild[failedBuild] = true
		rp.show(rp.buildOut[failedBuild])
	}
	rp.show(ps.tail)
}

// result returns PASS, FAIL or SKIP if line is test name's result line,
// else "".
func result(line, name string) string {
	t := strings.TrimLeft(line, " ")
	for _, r := range []string{"PASS", "FAIL", "SKIP"} {
		if strings.HasPrefix(t, "--- "+r+": "+name+" (") {
			return r
		}
	}
	return ""
}

// resultOf returns the result of test name that its lines give, or "".
func resultOf(lines []string, name string) string {
	for _, l := range lines {
		if r := result(l, name); r != "" {
			return r
		}
	}
	return ""
}

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
	w        io.Writer
	verbose  bool
	c        counts
	skips    map[string]string
	failed   bool                 // a package failed
	output   map[test][]string    // the output so far of each test not ended
	paused   map[test]bool        // parallel tests paused and not yet resumed
	pkgs     map[string]*pkgState // packages met
	buildOut map[string][]string  // build output by ImportPath
}

type pkgState struct {
	ended      bool
	testFailed bool     // a test of the package failed
	panic      []string // its output from the line that began a panic
}

// report reads test2json events from r, writes package results and the
// output of failing tests to w, and returns the counts, the reason of each
// skipped test and whether a package failed outside any test. A test still
// running when its package failed (its -test.timeout panicked, or the
// binary crashed) is a failed test, and one paused then never ran. A panic
// is shown once, whichever test test2json gave its lines to (to the last
// one that started or resumed, which may be one that passed, its result
// held back until then), and so is a build's failure. A package whose
// events stop before its result (go tool test2json reading a binary that
// was killed) failed.
func report(r io.Reader, w io.Writer, verbose bool) (c counts, skips map[string]string, pkgFailed bool, err error) {
	rp := reporter{w: w, verbose: verbose, skips: map[string]string{}, output: map[test][]string{},
		paused: map[test]bool{}, pkgs: map[string]*pkgState{}, buildOut: map[string][]string{}}
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
		} else if e.Test == "" && isResultLine(e.Output) {
			fmt.Fprint(rp.w, e.Output)
		}
		if ps.panic != nil || strings.HasPrefix(e.Output, "panic: ") || strings.HasPrefix(e.Output, "fatal error: ") {
			ps.panic = append(ps.panic, e.Output) // the rest of the package's output is the panic's
			return
		}
		// Build errors (before Go 1.24) and output outside tests belong
		// to the package.
		rp.output[id] = append(rp.output[id], e.Output)
	case "pass", "skip":
		switch {
		case e.Test == "":
			ps.ended = true
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
	delete(rp.paused, id)
}

// packageFailed ends package pkg, which failed: its tests that had not
// ended, the build that failed, its panic, or else its own output.
func (rp *reporter) packageFailed(pkg, failedBuild string) {
	ps := rp.pkgs[pkg]
	ps.ended = true
	rp.failed = true
	var unended []string
	for id := range rp.output {
		if id.pkg == pkg && id.name != "" {
			unended = append(unended, id.name)
		}
	}
	sort.Strings(unended)
	for _, name := range unended {
		id := test{pkg, name}
		// A result line that came without its event (go tool test2json
		// at the end of its input) counts.
		if hasLine(rp.output[id], "--- PASS: "+name+" (") {
			rp.c.passed++
		} else if hasLine(rp.output[id], "--- SKIP: "+name+" (") {
			rp.c.skipped++
			rp.skips[pkg+"."+name] = skipReason(rp.output[id])
		} else if rp.paused[id] {
			rp.printf("--- %s did not run: paused when the package failed\n", name)
		} else {
			rp.c.failed++
			ps.testFailed = true
			rp.printf("--- %s did not end: the package failed in it\n", name)
			rp.show(rp.output[id])
		}
		rp.end(id)
	}
	if failedBuild != "" {
		rp.show(rp.buildOut[failedBuild])
	}
	rp.show(ps.panic)
	if !ps.testFailed && ps.panic == nil {
		rp.show(rp.output[test{pkg, ""}]) // a build error, or output outside any test
	}
	rp.end(test{pkg, ""})
}

// hasLine reports whether one of lines begins with prefix.
func hasLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

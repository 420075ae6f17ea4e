// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: needs build 20348; this is 19045\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"run","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Test":"TestC","Output":"=== RUN   TestC\n"}
{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: boom\n"}
{"Action":"output","Package":"p","Test":"TestC","Output":"--- FAIL: TestC (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}
{"Action":"fail","Package":"p"}
`

func TestReport(t *testing.T) {
	var out strings.Builder
	c, skips, pkgFailed, err := report(strings.NewReader(sample), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	if c != (counts{passed: 1, failed: 1, skipped: 1}) {
		t.Errorf("counts %+v", c)
	}
	if got := skips["p.TestB"]; got != "b_test.go:9: needs build 20348; this is 19045" {
		t.Errorf("skip reason %q", got)
	}
	if !pkgFailed {
		t.Error("the package failure was missed")
	}
	for _, want := range []string{"c_test.go:3: boom", "FAIL\tp\t0.01s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "TestA") {
		t.Errorf("output of a passing test was printed:\n%s", out.String())
	}
}

func TestSummary(t *testing.T) {
	// A temporary file, not t.TempDir: under Wine 8, Go 1.26's os.RemoveAll
	// of a directory with files in it fails ("unlinkat: Invalid function").
	f, err := os.CreateTemp("", "testreport")
	if err != nil {
		t.Fatal(err)
	}
	state := f.Name()
	f.Close()
	os.Remove(state)
	t.Cleanup(func() { os.Remove(state) })
	if err := record(state, "windows/amd64", counts{3, 0, 2}, false, map[string]string{"p.TestB": "no export"}); err != nil {
		t.Fatal(err)
	}
	if err := record(state, "linux", counts{1, 0, 0}, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := record(state, "windows/amd64 model [level=change]", counts{7, 0, 0}, false, nil); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	failed, err := printSummary(state, &out)
	if err != nil || failed {
		t.Fatalf("failed=%v err=%v", failed, err)
	}
	for _, want := range []string{"[windows/amd64] p.TestB: no export", "total: 4 passed, 0 failed, 2 skipped",
		"reference model of ProcessSocketNotifications (not Windows): 7 passed, 0 failed, 0 skipped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}

	if err := record(state, "race", counts{0, 0, 0}, true, nil); err != nil {
		t.Fatal(err)
	}
	if failed, _ := printSummary(state, &out); !failed {
		t.Error("a run whose package failed did not fail the summary")
	}
	if err := os.WriteFile(state, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := printSummary(state, &out); err == nil {
		t.Error("a malformed state file was accepted")
	}
}

// TestRealStreams reads what Go 1.26 wrote (testdata/*.json, the times
// dropped; the programs are in the comments): a -timeout panic in a
// parallel subtest whose sibling passed after the panic had begun (its
// lines are the sibling's in test2json), a panic with two parallel tests
// still paused, a binary killed by its -test.timeout and read by go tool
// test2json (no result for the package; once with a skipped test whose
// result line came without its event), one killed by its runner, which
// says so after a sibling's result line, a build failure, and a passing
// test that prints "panic:".
func TestRealStreams(t *testing.T) {
	for _, c := range []struct {
		file   string
		counts counts
		failed bool
		want   []string // in the output, each once
		not    []string
		skips  map[string]string
	}{
		// TestOK; TestHang runs a (t.Parallel, sleeps an hour) and b
		// (t.Parallel, 300 ms); go test -json -timeout 2s.
		{"hang.json", counts{passed: 2, failed: 2}, true, []string{"--- TestHang/a did not end", "panic: test timed out after 2s", "\t\tTestHang/a (2s)\n", "FAIL\ttj3/hang\t"}, nil, nil},
		// The same, go test -json -exec wrap.sh, which kills the binary
		// after 2 s and says so on stderr, as go_windows_amd64_exec does.
		{"wrapkilled.json", counts{passed: 2, failed: 2}, true, []string{"--- TestHang/a did not end", "exited with status 137", "  before the kill: "}, nil, nil},
		// TestP1, TestP2 (t.Parallel), TestBoom (panics); go test -json.
		{"paused.json", counts{failed: 1}, true, []string{"--- TestP1 did not run", "--- TestP2 did not run", "panic: boom", "FAIL\ttj3/paused\t"}, []string{"did not end"}, nil},
		// hang.test -test.v=test2json -test.timeout=2s | go tool test2json -p tj3/hang.
		{"killed.json", counts{passed: 2, failed: 2}, true, []string{"tj3/hang: its events stopped before its result", "panic: test timed out after 2s"}, nil, nil},
		// TestHang runs a (t.Parallel, sleeps an hour) and s (t.Parallel,
		// skips after 300 ms); skip.test -test.v=test2json
		// -test.timeout=2s | go tool test2json -p tj3/skip.
		{"skipkilled.json", counts{failed: 2, skipped: 1}, true, []string{"--- TestHang/a did not end", "panic: test timed out after 2s"}, []string{"TestHang/s did not end"}, nil},
		// x := 1, unused; go test -json.
		{"build.json", counts{}, true, []string{"declared and not used: x"}, nil, nil},
		// TestRecover prints "panic: caught" (fmt.Println of what it
		// recovered); TestSkip skips; go test -json.
		{"printed.json", counts{passed: 1, skipped: 1}, false, []string{"ok  \ttj3/printed"}, []string{"panic"}, map[string]string{"tj3/printed.TestSkip": "a_test.go:4: needs build 20348"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out strings.Builder
			got, skips, pkgFailed, err := report(f, &out, false)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.counts || pkgFailed != c.failed {
				t.Errorf("counts %+v, package failed %v; want %+v, %v", got, pkgFailed, c.counts, c.failed)
			}
			for _, w := range c.want {
				if n := strings.Count(out.String(), w); n != 1 {
					t.Errorf("%q %d times in the output, want once:\n%s", w, n, out.String())
				}
			}
			for _, w := range c.not {
				if strings.Contains(out.String(), w) {
					t.Errorf("%q in the output:\n%s", w, out.String())
				}
			}
			for id, want := range c.skips {
				if skips[id] != want {
					t.Errorf("skip reason of %s: %q, want %q", id, skips[id], want)
				}
			}
		})
	}
}

// TestBuildShownOnce: two test packages that import one that does not
// build (their fail events name its build) show its errors once.
func TestBuildShownOnce(t *testing.T) {
	in := `{"ImportPath":"pb/c","Action":"build-output","Output":"# pb/c\n"}
{"ImportPath":"pb/c","Action":"build-output","Output":"c/c.go:3:2: declared and not used: x\n"}
{"ImportPath":"pb/c","Action":"build-fail"}
{"Action":"start","Package":"pb/d"}
{"Action":"output","Package":"pb/d","Output":"FAIL\tpb/d [build failed]\n"}
{"Action":"fail","Package":"pb/d","FailedBuild":"pb/c"}
{"Action":"start","Package":"pb/e"}
{"Action":"output","Package":"pb/e","Output":"FAIL\tpb/e [build failed]\n"}
{"Action":"fail","Package":"pb/e","FailedBuild":"pb/c"}
`
	var out strings.Builder
	if _, _, _, err := report(strings.NewReader(in), &out, false); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "declared and not used"); n != 1 {
		t.Errorf("the build error %d times, want once:\n%s", n, out.String())
	}
}

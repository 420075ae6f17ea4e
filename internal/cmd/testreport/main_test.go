// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"os"
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

func TestBuildFailureIsAFailure(t *testing.T) {
	in := `{"Action":"output","Package":"p","Output":"# p\n./a.go:1:1: syntax error\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}
{"Action":"fail","Package":"p"}
`
	var out strings.Builder
	c, _, pkgFailed, err := report(strings.NewReader(in), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	if !pkgFailed || c.passed != 0 {
		t.Errorf("pkgFailed=%v counts=%+v", pkgFailed, c)
	}
	if !strings.Contains(out.String(), "syntax error") {
		t.Errorf("the build error was not shown:\n%s", out.String())
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

// TestTimeoutIsAFailure: go test -json as Go 1.26 writes a -timeout panic
// in a parallel subtest. The tests that never ended are failures, and the
// panic, which test2json gives to the test it ran in, is shown.
func TestTimeoutIsAFailure(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"run","Package":"p","Test":"TestHang/sub"}
{"Action":"output","Package":"p","Test":"TestHang/sub","Output":"=== RUN   TestHang/sub\n"}
{"Action":"pause","Package":"p","Test":"TestHang/sub"}
{"Action":"cont","Package":"p","Test":"TestHang/sub"}
{"Action":"output","Package":"p","Test":"TestHang/sub","Output":"panic: test timed out after 2s\n"}
{"Action":"output","Package":"p","Test":"TestHang/sub","Output":"\trunning tests:\n\t\tTestHang/sub (2s)\n"}
{"Action":"output","Package":"p","Test":"TestHang/sub","Output":"FAIL\tp\t2.006s\n"}
{"Action":"output","Package":"p","Output":"FAIL\n"}
{"Action":"fail","Package":"p"}
{"Action":"start","Package":"q"}
{"Action":"output","Package":"q","Output":"panic: init\n"}
{"Action":"output","Package":"q","Output":"FAIL\tq\t0.01s\n"}
{"Action":"fail","Package":"q"}
`
	var out strings.Builder
	c, _, pkgFailed, err := report(strings.NewReader(in), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	if !pkgFailed || c != (counts{passed: 1, failed: 2}) {
		t.Errorf("pkgFailed=%v counts=%+v, want the 2 tests that never ended failed", pkgFailed, c)
	}
	for _, want := range []string{"--- TestHang/sub did not end", "panic: test timed out", "TestHang/sub (2s)", "panic: init"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

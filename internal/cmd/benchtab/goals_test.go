// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import "testing"

// TestVerdict: a median at the bound meets it, either way; no figures is
// neither met nor missed.
func TestVerdict(t *testing.T) {
	most, least := goal{true, 1.05, "1.05"}, goal{false, 0.9, "0.90"}
	for _, tc := range []struct {
		g    goal
		xs   []float64
		want string
	}{
		{most, []float64{1.05}, "met"},
		{most, []float64{1, 1.2, 1.06}, "missed"},
		{least, []float64{0.9}, "met"},
		{least, []float64{0.95, 0.5, 0.8}, "missed"},
		{least, nil, "no figures"},
	} {
		if got := tc.g.verdict(summarize(tc.xs)); got != tc.want {
			t.Errorf("%v of %v: %s, want %s", tc.g, tc.xs, got, tc.want)
		}
	}
	if most.String() != "at most 1.05" || least.String() != "at least 0.90" {
		t.Errorf("goals written %q and %q", most, least)
	}
}

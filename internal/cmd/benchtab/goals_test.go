// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import "testing"

// TestVerdict: from 6 rounds the whole interval of the median meets the
// goal, or none of it does, or it is not settled; a bound at the interval's
// near end meets it, at its far end it is not settled. Under 6 rounds, the median alone decides, and says so. No
// figures is neither met nor missed.
func TestVerdict(t *testing.T) {
	most, least := goal{true, 1.05, "1.05"}, goal{false, 0.9, "0.90"}
	six := func(lo, mid, hi float64) []float64 { return []float64{mid, hi, mid, lo, mid, mid} }
	for _, tc := range []struct {
		g    goal
		xs   []float64
		want string
	}{
		{most, six(0.9, 1, 1.05), "met"},
		{most, six(1.06, 1.1, 1.2), "missed"},
		{most, six(0.9, 1, 1.06), "not settled"},
		{most, six(1.05, 1.1, 1.2), "not settled"},
		{least, six(0.9, 1, 1.2), "met"},
		{least, six(0.5, 0.6, 0.89), "missed"},
		{least, six(0.8, 1, 1.2), "not settled"},
		{least, six(0.5, 0.7, 0.9), "not settled"},
		{most, []float64{1.05}, "met by the median (under 6 rounds)"},
		{most, []float64{1, 1.2, 1.06}, "missed by the median (under 6 rounds)"},
		{least, []float64{0.85, 0.5, 0.8, 1, 1}, "missed by the median (under 6 rounds)"},
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

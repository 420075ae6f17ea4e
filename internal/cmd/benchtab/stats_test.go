// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"slices"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want spread
		text string
	}{
		{nil, spread{}, "-"},
		{[]float64{7}, spread{median: 7, min: 7, max: 7, n: 1}, "7"},
		{[]float64{3, 1, 2}, spread{median: 2, min: 1, max: 3, n: 3}, "2 (1–3)"},
		{[]float64{4, 1, 3, 2}, spread{median: 2.5, min: 1, max: 4, n: 4}, "2.5 (1–4)"},
		{[]float64{25000, 24000, 26000}, spread{median: 25000, min: 24000, max: 26000, n: 3}, "25,000 (24,000–26,000)"},
		// From 6 values, an interval: the least and the greatest at 6,
		// the 2nd and the 9th at 10.
		{[]float64{6, 1, 5, 2, 4, 3}, spread{median: 3.5, min: 1, max: 6, n: 6, lo: 1, hi: 6, interval: true}, "3.5 (1–6)"},
		{[]float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, spread{median: 5.5, min: 1, max: 10, n: 10, lo: 2, hi: 9, interval: true}, "5.5 (1–10)"},
	} {
		in := slices.Clone(tc.in)
		got := summarize(tc.in)
		if got != tc.want || got.String() != tc.text {
			t.Errorf("summarize(%v) = %+v %q, want %+v %q", tc.in, got, got, tc.want, tc.text)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("summarize(%v) reordered its argument", in)
		}
	}
}

// TestMedianRank: the ranks of the distribution-free 95% interval of a
// median, as the binomial (n, 1/2) gives them (1 - 2 P(B < r) at least
// 0.95, r the greatest): none under 6 values.
func TestMedianRank(t *testing.T) {
	for n, want := range map[int]int{1: 0, 5: 0, 6: 1, 7: 1, 9: 2, 10: 2, 15: 4, 20: 6, 30: 10, 100: 40} {
		if got := medianRank(n); got != want {
			t.Errorf("medianRank(%d) = %d, want %d", n, got, want)
		}
	}
	if got := summarize([]float64{1.234, 1, 1.1, 0.9, 1.05, 1.2}).intervalString(); got != "0.90–1.23" {
		t.Errorf("interval of 6: %q", got)
	}
	if got := summarize([]float64{1, 2, 3, 4, 5}).intervalString(); got != "-" {
		t.Errorf("interval of 5: %q", got)
	}
}

func TestRatios(t *testing.T) {
	a := map[int]float64{1: 10, 2: 30, 3: 5, 5: 9}
	b := map[int]float64{1: 20, 2: 10, 3: 0, 4: 1}
	// Rounds 1 and 2; 3 has b at 0, 4 no a, 5 no b.
	if got := ratios(a, b); !slices.Equal(got, []float64{0.5, 3}) {
		t.Errorf("ratios = %v", got)
	}
	if got := summarize(ratios(a, b)).ratioString(5); got != "1.75 (0.50–3.00), 2 of 5 rounds" {
		t.Errorf("ratioString = %q", got)
	}
	if got := summarize([]float64{1.234}).ratioString(1); got != "1.23" {
		t.Errorf("one round: %q", got)
	}
	if got := summarize(nil).ratioString(3); got != "-" {
		t.Errorf("no round: %q", got)
	}
}

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 0.01234: "0.0123", 1.5: "1.5", 99.94: "99.9", 100.4: "100", 999.5: "1,000",
		12345.6: "12,346", 1234567: "1,234,567", -2500: "-2,500", -150: "-150",
	} {
		if got := num(x); got != want {
			t.Errorf("num(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestWorkloadTitle(t *testing.T) {
	for w, want := range map[workload]string{
		{1000, 1000}:  "1,000 connections, all echoing",
		{10000, 100}:  "10,000 connections, 1% echoing",
		{200, 2}:      "200 connections, 1% echoing",
		{10000, 1234}: "10,000 connections, 1,234 echoing",
	} {
		if got := w.String(); got != want {
			t.Errorf("%+v: %q, want %q", w, got, want)
		}
	}
}

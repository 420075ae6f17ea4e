// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
)

// spread is a median with the least and the greatest of its values and,
// from 6 values up, an interval that holds the median of the values'
// distribution with a chance of 95% or more (see medianRank).
type spread struct {
	median, min, max float64
	n                int // values; 0: none, and the rest is meaningless

	lo, hi   float64 // the interval, if there is one
	interval bool
}

// summarize returns the spread of xs.
func summarize(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	m := s[n/2]
	if n%2 == 0 {
		m = (s[n/2-1] + s[n/2]) / 2
	}
	sp := spread{median: m, min: s[0], max: s[n-1], n: n}
	if r := medianRank(n); r > 0 {
		sp.lo, sp.hi, sp.interval = s[r-1], s[n-r], true
	}
	return sp
}

// medianRank returns r such that, for n values sorted, x(r) to x(n+1-r)
// (ranks from 1) is the narrowest interval of that form that holds the
// median of their distribution with a chance of at least 95%, whatever
// the distribution, if the values are independent: each falls below the
// median with chance 1/2, so the interval misses it with chance 2 P(B <
// r), B binomial (n, 1/2). It returns 0 below 6 values, where even the
// least and the greatest miss it with a chance over 5% (2/2^n).
func medianRank(n int) int {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x)); return v }
	below := 0.0 // P(B < r)
	for r := 0; r < n; r++ {
		below += math.Exp(lg(n+1) - lg(r+1) - lg(n-r+1) - float64(n)*math.Ln2) // P(B = r)
		if 2*below > 0.05 {
			return r
		}
	}
	return 0
}

// String is "median (min–max)", or "-" for no values; one value alone
// is itself.
func (s spread) String() string {
	switch {
	case s.n == 0:
		return "-"
	case s.n == 1:
		return num(s.median)
	}
	return fmt.Sprintf("%s (%s–%s)", num(s.median), num(s.min), num(s.max))
}

// ratioString is the spread of ratios, at two decimals (three
// significant digits if the median is below 0.1, where two decimals
// would say little: 1/30 is 0.03): "median (min–max)", and the rounds
// they are if fewer than all.
func (s spread) ratioString(rounds int) string {
	if s.n == 0 {
		return "-"
	}
	f := s.ratioFormat()
	out := f(s.median)
	if s.n > 1 {
		out += fmt.Sprintf(" (%s–%s)", f(s.min), f(s.max))
	}
	if s.n < rounds {
		out += fmt.Sprintf(", %d of %d rounds", s.n, rounds)
	}
	return out
}

// intervalString is the interval of ratios, "lo–hi" at ratioString's
// precision, or "-" if there is none.
func (s spread) intervalString() string {
	if !s.interval {
		return "-"
	}
	f := s.ratioFormat()
	return f(s.lo) + "–" + f(s.hi)
}

// ratioFormat formats a ratio of s as ratioString says.
func (s spread) ratioFormat() func(float64) string {
	if math.Abs(s.median) < 0.1 && s.median != 0 {
		return func(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
	}
	return func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
}

// num formats a figure: whole from 100 up (with commas from 1,000),
// else three significant digits.
func num(x float64) string {
	switch r := math.Round(x); {
	case r >= 1000 || r <= -1000:
		return thousands(int(r))
	case x >= 100 || x <= -100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// ratios returns a[r]/b[r] for each round r that both have, b[r] not 0.
func ratios(a, b map[int]float64) []float64 {
	var rs []float64
	for _, r := range slices.Sorted(maps.Keys(b)) {
		x, ok := a[r]
		if ok && b[r] != 0 {
			rs = append(rs, x/b[r])
		}
	}
	return rs
}

// values returns m's values in the order of its keys.
func values(m map[int]float64) []float64 {
	var xs []float64
	for _, k := range slices.Sorted(maps.Keys(m)) {
		xs = append(xs, m[k])
	}
	return xs
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// figures holds a run's values: by series (a column of the tables: a
// side, Go or C, or a server), then by metric, then by round.
type figures struct {
	v      map[string]map[string]map[int]float64
	rounds int // the highest round
}

func (f *figures) add(round int, series, metric string, x float64) {
	if f.v == nil {
		f.v = map[string]map[string]map[int]float64{}
	}
	if f.v[series] == nil {
		f.v[series] = map[string]map[int]float64{}
	}
	if f.v[series][metric] == nil {
		f.v[series][metric] = map[int]float64{}
	}
	f.v[series][metric][round] = x
	f.rounds = max(f.rounds, round)
}

// get returns the values of a series' metric by round (nil if none).
func (f *figures) get(series, metric string) map[int]float64 { return f.v[series][metric] }

// lines calls fn with the fields of each line of r that is not empty,
// and says which line an error of fn's is on.
func lines(r io.Reader, fn func(fields []string) error) error {
	s := bufio.NewScanner(r)
	for n := 1; s.Scan(); n++ {
		f := strings.Fields(s.Text())
		if len(f) == 0 {
			continue
		}
		if err := fn(f); err != nil {
			return fmt.Errorf("line %d, %q: %w", n, s.Text(), err)
		}
	}
	return s.Err()
}

// round parses a round's number, 1 or more.
func round(s string) (int, error) {
	r, err := strconv.Atoi(s)
	if err != nil || r < 1 {
		return 0, fmt.Errorf("round %q: not a number from 1", s)
	}
	return r, nil
}

// value parses a figure, which must be finite.
func value(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("value %q: not a finite number", s)
	}
	return x, nil
}

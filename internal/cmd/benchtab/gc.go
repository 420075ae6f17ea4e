// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// readGC reads the records of bench.sh's Go against C rounds, a line
// each: "ROUND SIDE METRIC VALUE", SIDE go or c, METRIC one of wait/N
// (ns a Wait, 1 ready among N idle sockets), echo/N (messages/s, the
// server on N goroutines or threads), mem/ws (bytes of working set a
// registered socket) and mem/heap (bytes of Go heap a registered socket).
func readGC(r io.Reader) (*figures, error) {
	f := &figures{}
	err := lines(r, func(w []string) error {
		if len(w) != 4 {
			return fmt.Errorf("%d fields, not 4 (ROUND SIDE METRIC VALUE)", len(w))
		}
		rd, err := round(w[0])
		if err != nil {
			return err
		}
		if w[1] != "go" && w[1] != "c" {
			return fmt.Errorf("side %q: go or c", w[1])
		}
		if _, _, err := gcMetric(w[2]); err != nil {
			return err
		}
		x, err := value(w[3])
		if err != nil {
			return err
		}
		f.add(rd, w[1], w[2], x)
		return nil
	})
	return f, err
}

// gcMetric splits a metric into its kind and its parameter.
func gcMetric(m string) (kind string, n int, err error) {
	kind, arg, _ := strings.Cut(m, "/")
	switch kind {
	case "wait", "echo":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return "", 0, fmt.Errorf("metric %q: %s/N, N a number from 1", m, kind)
		}
		return kind, n, nil
	case "mem":
		if arg == "ws" || arg == "heap" {
			return kind, 0, nil
		}
	}
	return "", 0, fmt.Errorf("metric %q: wait/N, echo/N, mem/ws or mem/heap", m)
}

// gcTables writes the Go against C tables: for each metric, Go's and C's
// median (min–max) over the rounds, and the median (min–max) of the
// rounds' Go/C ratios.
func gcTables(w io.Writer, f *figures) {
	metrics := map[string][]string{}
	for _, side := range []string{"go", "c"} {
		for m := range f.v[side] {
			kind, _, _ := gcMetric(m)
			if !slices.Contains(metrics[kind], m) {
				metrics[kind] = append(metrics[kind], m)
			}
		}
	}
	tables := []struct{ kind, title string }{
		{"wait", "Wait, 1 ready among N idle sockets: ns a Wait"},
		{"echo", "Echo: messages/s"},
		{"mem", "Memory of registered sockets: bytes a socket"},
	}
	for _, t := range tables {
		ms := metrics[t.kind]
		if len(ms) == 0 {
			continue
		}
		slices.SortFunc(ms, func(a, b string) int {
			_, na, _ := gcMetric(a)
			_, nb, _ := gcMetric(b)
			return cmp.Or(cmp.Compare(na, nb), -cmp.Compare(a, b)) // mem/ws before mem/heap
		})
		fmt.Fprintf(w, "| %s | Go | C | Go/C |\n| --- | --- | --- | --- |\n", t.title)
		for _, m := range ms {
			g, c := f.get("go", m), f.get("c", m)
			fmt.Fprintf(w, "| %s |", gcRowTitle(m))
			pairCells(w, g, c, f.rounds)
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
}

// pairCells writes the cells of a row that compares series a with series
// b: the median (min–max) of each and the median (min–max) of the rounds'
// a/b ratios, whose spread it returns.
func pairCells(w io.Writer, a, b map[int]float64, rounds int) spread {
	r := summarize(ratios(a, b))
	fmt.Fprintf(w, " %s | %s | %s |", summarize(values(a)), summarize(values(b)), r.ratioString(rounds))
	return r
}

// gcRowTitle names a metric's row.
func gcRowTitle(m string) string {
	kind, n, _ := gcMetric(m)
	switch {
	case kind == "wait":
		return "N = " + thousands(n)
	case kind == "echo" && n == 1:
		return "1 goroutine / 1 thread"
	case kind == "echo":
		return fmt.Sprintf("%d goroutines / %d threads", n, n)
	case m == "mem/ws":
		return "working set"
	}
	return "Go heap"
}

// thousands formats n with commas: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

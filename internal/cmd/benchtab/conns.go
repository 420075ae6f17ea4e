// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// workload is a connection-scale workload: conns connections, active of
// them echoing.
type workload struct{ conns, active int }

func (w workload) String() string {
	switch {
	case w.active == w.conns:
		return thousands(w.conns) + " connections, all echoing"
	case w.active*100%w.conns == 0:
		return fmt.Sprintf("%s connections, %d%% echoing", thousands(w.conns), w.active*100/w.conns)
	}
	return fmt.Sprintf("%s connections, %s echoing", thousands(w.conns), thousands(w.active))
}

// connsRun is a conns run's figures, by workload.
type connsRun map[workload]*figures

// workloads returns the run's workloads, fewest connections first.
func (c connsRun) workloads() []workload {
	return slices.SortedFunc(maps.Keys(c), func(a, b workload) int {
		return cmp.Or(cmp.Compare(a.conns, b.conns), cmp.Compare(a.active, b.active))
	})
}

// readConns reads the records of bench.sh's conns rounds, a line each:
// "ROUND SERVER CONNS ACTIVE KEY=VALUE...", the KEY=VALUE pairs those of
// internal/cmd/connload's line.
func readConns(r io.Reader) (connsRun, error) {
	run := connsRun{}
	err := lines(r, func(f []string) error {
		if len(f) < 5 {
			return fmt.Errorf("%d fields, not at least 5 (ROUND SERVER CONNS ACTIVE KEY=VALUE...)", len(f))
		}
		rd, err := round(f[0])
		if err != nil {
			return err
		}
		conns, err1 := strconv.Atoi(f[2])
		active, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || conns < 1 || active < 1 || active > conns {
			return fmt.Errorf("CONNS %q and ACTIVE %q: numbers, 1 <= ACTIVE <= CONNS", f[2], f[3])
		}
		w := workload{conns, active}
		if run[w] == nil {
			run[w] = &figures{}
		}
		for _, kv := range f[4:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return fmt.Errorf("%q: not KEY=VALUE", kv)
			}
			x, err := value(v)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			run[w].add(rd, f[1], k, x)
		}
		return nil
	})
	return run, err
}

// connsRows are the rows of the tables of figures: connload's key and
// the row's title.
var connsRows = [][2]string{
	{"msgs/s", "messages/s"},
	{"p50-us", "round trip p50, µs"},
	{"p99-us", "round trip p99, µs"},
	{"setup-s", "set-up, s"},
	{"refused", "connections refused"},
	{"mem-B/conn", "memory a connection, B"},
	{"server-us/msg", "server CPU a message, µs"},
	{"wineserver-us/msg", "wineserver CPU a message, µs"},
	{"load-cpu", "connload's CPU use, share of a CPU"},
}

// connsRatio is a row of the tables against the reference server: its
// title (REF the reference), connload's key, and whether the reference's
// value is the numerator (a time: the row is a speed).
type connsRatio struct {
	titled, key string
	inverse     bool
}

// connsRatios are the rows of the tables against the reference server.
var connsRatios = []connsRatio{
	{"messages/s, this / REF", "msgs/s", false},
	{"set-up speed, time of REF / time of this", "setup-s", true},
	{"server CPU a message, this / REF", "server-us/msg", false},
	{"wineserver CPU a message, this / REF", "wineserver-us/msg", false},
	{"memory a connection, this / REF", "mem-B/conn", false},
}

// ratioRow returns the row of connsRatios for key.
func ratioRow(key string) connsRatio {
	i := slices.IndexFunc(connsRatios, func(r connsRatio) bool { return r.key == key })
	return connsRatios[i]
}

// title is the row's title against ref.
func (r connsRatio) title(ref server) string { return strings.ReplaceAll(r.titled, "REF", ref.title) }

// of returns the ratios of server s's figures to ref's, a round at a time.
func (r connsRatio) of(f *figures, s, ref server) []float64 {
	a, b := f.get(s.name, r.key), f.get(ref.name, r.key)
	if r.inverse {
		a, b = b, a
	}
	return ratios(a, b)
}

// connsTables writes, for each workload, a table of each server's
// figures, median (min–max) over the rounds, then one of their ratios to
// server ref's, a round at a time (whose servers ran one after another):
// the median (min–max) of the rounds' ratios, then, for a native run, the
// goals (goalsTable). A row that no server has a figure for is left out.
func connsTables(w io.Writer, run connsRun, servers []server, ref server, native bool) {
	for _, wl := range run.workloads() {
		f := run[wl]
		header(w, wl.String(), servers)
		for _, row := range connsRows {
			if !slices.ContainsFunc(servers, func(s server) bool { return len(f.get(s.name, row[0])) > 0 }) {
				continue
			}
			fmt.Fprintf(w, "| %s |", row[1])
			for _, s := range servers {
				fmt.Fprintf(w, " %s |", summarize(values(f.get(s.name, row[0]))))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
		var others []server
		for _, s := range servers {
			if s != ref {
				others = append(others, s)
			}
		}
		if f.v[ref.name] != nil && len(others) > 0 {
			header(w, wl.String()+": against "+ref.title, others)
			for _, row := range connsRatios {
				rs := make([]spread, len(others))
				for i, s := range others {
					rs[i] = summarize(row.of(f, s, ref))
				}
				if !slices.ContainsFunc(rs, func(r spread) bool { return r.n > 0 }) {
					continue
				}
				fmt.Fprintf(w, "| %s |", row.title(ref))
				for _, r := range rs {
					fmt.Fprintf(w, " %s |", r.ratioString(f.rounds))
				}
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w)
		}
		if native {
			goalsTable(w, wl, f, servers)
		}
	}
}

// header writes a table's header: first, then the servers' titles.
func header(w io.Writer, first string, servers []server) {
	fmt.Fprintf(w, "| %s |", first)
	for _, s := range servers {
		fmt.Fprintf(w, " %s |", s.title)
	}
	fmt.Fprint(w, "\n|"+strings.Repeat(" --- |", len(servers)+1)+"\n")
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// goal is a bound on the median of the rounds' ratios: at most or at
// least bound, which text says (a fraction, say).
type goal struct {
	atMost bool
	bound  float64
	text   string
}

func (g goal) String() string {
	if g.atMost {
		return "at most " + g.text
	}
	return "at least " + g.text
}

// verdict says whether the ratios of s meet the goal: "met" if the whole
// interval of their median does (see spread), "missed" if none of it
// does, "not settled" if the bound lies within it. Without an interval
// (fewer than 6 rounds), the median alone decides, and the verdict says
// so.
func (g goal) verdict(s spread) string {
	meets := func(x float64) bool {
		if g.atMost {
			return x <= g.bound
		}
		return x >= g.bound
	}
	switch {
	case s.n == 0:
		return "no figures"
	case !s.interval && meets(s.median):
		return "met by the median (under 6 rounds)"
	case !s.interval:
		return "missed by the median (under 6 rounds)"
	case meets(s.lo) && meets(s.hi):
		return "met"
	case !meets(s.lo) && !meets(s.hi):
		return "missed"
	}
	return "not settled"
}

// waitGoal is issue 39's goal for a Wait against raw epoll: the poller's
// time at most 1.05 times the raw loop's.
var waitGoal = goal{atMost: true, bound: 1.05, text: "1.05"}

// connsGoal is a goal of issue 39 for the native echo servers: on the
// ratio row key of connsRatios, server against ref.
type connsGoal struct {
	server, ref, key string
	goal
	someIdle bool // only at a workload where not all connections echo
}

// connsGoals are issue 39's goals for the poller's echo server natively:
// at least 0.9 of C's throughput and set-up speed, at most 1.1 times its
// server CPU a message; at most 1/30 of Go net's memory a connection and,
// where most connections stay idle, at least its throughput.
var connsGoals = []connsGoal{
	{"poller", "cepoll", "msgs/s", goal{false, 0.9, "0.90"}, false},
	{"poller", "cepoll", "setup-s", goal{false, 0.9, "0.90"}, false},
	{"poller", "cepoll", "server-us/msg", goal{true, 1.1, "1.10"}, false},
	{"poller", "net", "mem-B/conn", goal{true, 1.0 / 30, "1/30 (0.033)"}, false},
	{"poller", "net", "msgs/s", goal{false, 1, "1.00"}, true},
}

// goalsTable writes the table of the goals of connsGoals that workload
// wl's figures f have both servers for, if any: the median (min–max) of
// the rounds' ratios, its 95% interval, the goal, and the verdict.
func goalsTable(w io.Writer, wl workload, f *figures, servers []server) {
	byName := func(name string) (server, bool) {
		i := slices.IndexFunc(servers, func(s server) bool { return s.name == name })
		if i < 0 || f.v[name] == nil {
			return server{}, false
		}
		return servers[i], true
	}
	wrote := false
	for _, g := range connsGoals {
		s, ok1 := byName(g.server)
		ref, ok2 := byName(g.ref)
		if !ok1 || !ok2 || (g.someIdle && wl.active == wl.conns) {
			continue
		}
		if !wrote {
			fmt.Fprintf(w, "| %s: goals (issue 39) | median (min–max) | 95%% interval of the median | goal | |\n| --- | --- | --- | --- | --- |\n", wl)
			wrote = true
		}
		row := ratioRow(g.key)
		r := summarize(row.of(f, s, ref))
		title := strings.ReplaceAll(row.title(ref), "this", s.title)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", title, r.ratioString(f.rounds), r.intervalString(), g.goal, g.verdict(r))
	}
	if wrote {
		fmt.Fprintln(w)
	}
}

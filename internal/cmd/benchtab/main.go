// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Command benchtab makes the tables, and the chart, of scripts/bench.sh's
// runs from the records its rounds wrote: medians with their min and max
// over the rounds, and ratios taken a round at a time.
//
//	benchtab gc [FILE]                     Go against C under Wine: Wait, echo, memory
//	benchtab wait [FILE]                   the poller's Wait against raw epoll (native)
//	benchtab conns [-native] [-svg OUT] [-caption TEXT] [FILE]
//	                                       echo servers at many connections
//
// It reads FILE, or its standard input, and writes Markdown tables to its
// standard output. The records of gc are lines "ROUND SIDE METRIC VALUE"
// (see readGC); those of wait, "ROUND BENCHMARK-LINE", a line of go test
// -bench's output after its round (see readWait); those of conns, "ROUND
// SERVER CONNS ACTIVE KEY=VALUE...", the pairs those of
// internal/cmd/connload's line. conns's servers are poller, c (cloop,
// under Wine), cepoll (natively) and net, in that order in the tables,
// and each is compared with the C server of the run, c or cepoll; a row
// that no server has a figure for (the wineserver's, natively) is left
// out. -native says that the servers ran natively on Linux, not under
// Wine. wait's tables, and with -native conns's, end with the goals of
// issue 39 (for native figures) that the run's servers have figures for:
// the median of the rounds' ratios, the interval that holds the median of
// their distribution with a chance of at least 95% (from 6 rounds;
// distribution-free, from the ranks of the ratios), and the verdict: met if the whole
// interval meets the goal, missed if none of it does, not settled if it
// straddles the bound (under 6 rounds, the median decides, and the
// verdict says so). With -svg, conns
// also draws the throughput and the memory a connection of each server
// and workload into OUT, an SVG file, titled as native or Wine's, with
// TEXT under them (the command that made the run). A bad record exits
// with status 1 and names its line; bad arguments with status 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
)

// server is a server of the conns mode, as the tables and the chart name
// it.
type server struct{ name, title, color string }

// servers are the known servers, in the order of the tables.
var servers = []server{
	{"poller", "poller", "#3366cc"},
	{"c", "C (cloop)", "#ee8800"},
	{"cepoll", "C (cepoll)", "#ee8800"},
	{"net", "Go net", "#339933"},
}

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is an error in the arguments.
type usageError struct{ error }

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 || (args[0] != "gc" && args[0] != "wait" && args[0] != "conns") {
		return usageError{errors.New("usage: benchtab gc [FILE] | benchtab wait [FILE] | benchtab conns [-native] [-svg OUT] [-caption TEXT] [FILE]")}
	}
	fs := flag.NewFlagSet("benchtab "+args[0], flag.ContinueOnError)
	svg := fs.String("svg", "", "conns: draw the chart into this SVG file")
	caption := fs.String("caption", "", "conns: the text under the chart (the run's command)")
	native := fs.Bool("native", false, "conns: the servers ran natively on Linux, not under Wine (the goals, the chart's title)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err}
	}
	if args[0] != "conns" && (*svg != "" || *caption != "" || *native) {
		return usageError{fmt.Errorf("%s: no -svg, no -caption, no -native", args[0])}
	}
	in := stdin
	switch fs.NArg() {
	case 0:
	case 1:
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	default:
		return usageError{fmt.Errorf("one file at most, not %q", fs.Args())}
	}
	switch args[0] {
	case "gc":
		f, err := readGC(in)
		if err != nil {
			return err
		}
		gcTables(stdout, f)
		return nil
	case "wait":
		w, err := readWait(in)
		if err != nil {
			return err
		}
		waitTables(stdout, w)
		return nil
	}
	c, err := readConns(in)
	if err != nil {
		return err
	}
	present, err := serversOf(c)
	if err != nil {
		return err
	}
	ref, err := reference(present)
	if err != nil {
		return err
	}
	connsTables(stdout, c, present, ref, *native)
	if *svg == "" {
		return nil
	}
	out, err := os.Create(*svg)
	if err != nil {
		return err
	}
	return errors.Join(chart(out, c, present, *caption, *native), out.Close())
}

// reference returns the C server among servers, which the others are
// compared with: c or cepoll, not both (a run is under Wine or native);
// none is the zero server.
func reference(servers []server) (server, error) {
	var ref server
	for _, s := range servers {
		if s.name != "c" && s.name != "cepoll" {
			continue
		}
		if ref.name != "" {
			return server{}, fmt.Errorf("servers %s and %s: one C server a run", ref.name, s.name)
		}
		ref = s
	}
	return ref, nil
}

// serversOf returns the known servers that the run has, in their order;
// a server it does not know is an error.
func serversOf(c connsRun) ([]server, error) {
	var present []server
	for _, f := range c {
		for name := range f.v {
			i := slices.IndexFunc(servers, func(s server) bool { return s.name == name })
			if i < 0 {
				return nil, fmt.Errorf("server %q: poller, c, cepoll or net", name)
			}
			if !slices.Contains(present, servers[i]) {
				present = append(present, servers[i])
			}
		}
	}
	slices.SortFunc(present, func(a, b server) int {
		return slices.Index(servers, a) - slices.Index(servers, b)
	})
	return present, nil
}

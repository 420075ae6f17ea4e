// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Command benchtab makes the tables, and the chart, of scripts/bench.sh's
// runs from the records its rounds wrote: medians with their min and max
// over the rounds, and ratios taken a round at a time.
//
//	benchtab gc [FILE]                     Go against C: Wait, echo, memory
//	benchtab conns [-svg OUT] [-caption TEXT] [FILE]
//	                                       echo servers at many connections
//
// It reads FILE, or its standard input, and writes Markdown tables to its
// standard output. The records of gc are lines "ROUND SIDE METRIC VALUE"
// (see readGC); those of conns, "ROUND SERVER CONNS ACTIVE KEY=VALUE...",
// the pairs those of internal/cmd/connload's line. conns's servers are
// poller, c and net, in that order in the tables, and each is compared
// with c; with -svg it also draws the throughput and the memory a
// connection of each server and workload into OUT, an SVG file, with
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
	if len(args) == 0 || (args[0] != "gc" && args[0] != "conns") {
		return usageError{errors.New("usage: benchtab gc [FILE] | benchtab conns [-svg OUT] [-caption TEXT] [FILE]")}
	}
	fs := flag.NewFlagSet("benchtab "+args[0], flag.ContinueOnError)
	svg := fs.String("svg", "", "conns: draw the chart into this SVG file")
	caption := fs.String("caption", "", "conns: the text under the chart (the run's command)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err}
	}
	if args[0] == "gc" && (*svg != "" || *caption != "") {
		return usageError{errors.New("gc: no -svg, no -caption")}
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
	if args[0] == "gc" {
		f, err := readGC(in)
		if err != nil {
			return err
		}
		gcTables(stdout, f)
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
	connsTables(stdout, c, present, servers[1])
	if *svg == "" {
		return nil
	}
	out, err := os.Create(*svg)
	if err != nil {
		return err
	}
	return errors.Join(chart(out, c, present, *caption), out.Close())
}

// serversOf returns the known servers that the run has, in their order;
// a server it does not know is an error.
func serversOf(c connsRun) ([]server, error) {
	var present []server
	for _, f := range c {
		for name := range f.v {
			i := slices.IndexFunc(servers, func(s server) bool { return s.name == name })
			if i < 0 {
				return nil, fmt.Errorf("server %q: poller, c or net", name)
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

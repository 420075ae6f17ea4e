// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

// Command connload is the load generator and the meter of
// "scripts/bench.sh conns" (servers under Wine, whose sockets are host
// sockets) and "scripts/bench.sh linux" (native servers): it runs natively
// on Linux against echo servers on the loopback, opens many connections,
// checks every byte that comes back, and reads what each server process
// (and, under Wine, its wineserver) spent: its memory in Linux's /proc,
// its CPU time by its CPU clock, in nanoseconds.
//
//	connload -addr 127.0.0.1:PORT[,127.0.0.1:PORT...] -conns N -active K -duration D [-block B] [-size S] [-pid P[,P...]] [-wineserver W]
//
// First it opens N connections to the server, at most -parallel dials at
// a time, and echoes one message on each: the set-up. Then K of the
// connections, spread evenly over the N, each send a message of S bytes
// (at most 4 KiB, which a socket's send buffer takes whole), wait for it
// to come back and send the next, for D, while the rest stay idle; then it
// waits for the messages still in flight and checks them too. One thread
// waits on epoll for all K: the load costs about what a C epoll server
// does a message, not a goroutine a connection (L below says whether it
// bounded the throughput). It prints one line,
//
//	conns=N refused=R setup-s=S msgs=M msgs/s=X p50-us=A p99-us=B mem-B/conn=C server-us/msg=T load-cpu=L wineserver-us/msg=U
//
// where R counts the connections that the system or the server did not
// take (no descriptor or port left, refused, or closed before the first
// echo: what a server at its descriptor limit does), S is the set-up's
// time, M counts the echoes that came back within D (not those in flight
// at its end), X is M over the time it echoed (D; with several servers,
// whole turns of B), and A and B are the round-trip percentiles
// of every echo. With -pid, the server's process: C is the growth of its
// resident memory (VmRSS) over the set-up's last nine tenths divided by
// their connections (the first tenth pays for what a server allocates
// once: threads, about 1 MB each under Wine, buffers, its first
// allocations), T is its CPU time (user and system) during the echo, the
// wait for the last messages included, over every echoed message, in µs,
// and L is the share of one CPU that connload itself used then (near 1
// when pinned to one CPU, it is the load, not the server, that bounds the
// throughput). With -wineserver, U is that process's CPU time a message;
// without it (a native server) U is left out, not 0.
//
// With several servers (-addr and -pid lists of one length), connload
// runs a copy of itself for each (a process holds at most one server's
// 10,000 connections under a limit of 20,000 descriptors, this VM's hard
// limit), makes their set-ups one after another, and then has them take
// turns: each echoes for B at a time, then waits for its messages in
// flight, in an order that rotates, until each has echoed for D. A
// machine's speed that drifts from second to second then weighs on every
// server alike. It prints a line for each server, in the order of -addr.
//
// Then it holds the connections open until its standard input ends, so
// that the script can end the servers first: connections closed at once
// from this side make Wine's server spin on every socket that has its end
// of stream until the server under test has closed it, which takes
// minutes at 10,000. A connection that fails, or a byte that comes back
// wrong, ends it with status 1; bad flags with status 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is the flags.
type config struct {
	addrs           []string
	conns, active   int
	duration, block time.Duration
	size, parallel  int
	pids            []int // none: not measured
	wineserver      int   // 0: not measured
	turn            bool  // a copy that takes turns, driven by its standard input
}

func main() {
	var c config
	var addrs, pids string
	flag.StringVar(&addrs, "addr", "", "the echo servers, on the loopback: 127.0.0.1:PORT, several separated by commas")
	flag.IntVar(&c.conns, "conns", 1000, "connections to open to each server (10 to 100000)")
	flag.IntVar(&c.active, "active", 1000, "connections that echo (1 to -conns)")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "length of each server's echo (at most 10m)")
	flag.DurationVar(&c.block, "block", 200*time.Millisecond, "length of a turn, with several servers (10ms to -duration)")
	flag.IntVar(&c.size, "size", 64, "bytes a message (16 to 4096)")
	flag.IntVar(&c.parallel, "parallel", 100, "dials in flight at once (1 to 1000)")
	flag.StringVar(&pids, "pid", "", "the servers' processes, whose memory and CPU are read, in the order of -addr (none: not read)")
	flag.IntVar(&c.wineserver, "wineserver", 0, "the wineserver's process, whose CPU is read, with one server (0: none)")
	flag.BoolVar(&c.turn, "turn", false, "internal: a copy for one server among several, which takes turns")
	flag.Parse()
	err := c.parse(addrs, pids)
	if err == nil {
		err = c.check(flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "connload:", err)
		flag.Usage()
		os.Exit(2)
	}
	switch {
	case c.turn:
		err = runTurn(c, os.Stdin, os.Stdout)
	case len(c.addrs) > 1:
		err = runTurns(c, os.Stdin, os.Stdout)
	default:
		err = run(c, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "connload:", err)
		os.Exit(1)
	}
}

// parse reads the lists of -addr and -pid.
func (c *config) parse(addrs, pids string) error {
	c.addrs = strings.Split(addrs, ",")
	if pids == "" {
		return nil
	}
	for p := range strings.SplitSeq(pids, ",") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("-pid %q: process IDs separated by commas", pids)
		}
		c.pids = append(c.pids, n)
	}
	return nil
}

func (c config) check(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments: %q", args)
	}
	for _, a := range c.addrs {
		host, _, err := net.SplitHostPort(a)
		switch {
		case err != nil:
			return fmt.Errorf("-addr %q: %w", a, err)
		case !net.ParseIP(host).IsLoopback():
			return fmt.Errorf("-addr %q: only a loopback address", a)
		}
	}
	switch {
	case c.conns < 10 || c.conns > 100_000:
		return fmt.Errorf("-conns %d: 10 to 100000", c.conns)
	case c.active < 1 || c.active > c.conns:
		return fmt.Errorf("-active %d: 1 to -conns (%d)", c.active, c.conns)
	case c.duration <= 0 || c.duration > 10*time.Minute:
		return fmt.Errorf("-duration %v: more than 0, at most 10m", c.duration)
	case (len(c.addrs) > 1 || c.turn) && (c.block < 10*time.Millisecond || c.block > c.duration):
		return fmt.Errorf("-block %v: 10ms to -duration (%v)", c.block, c.duration)
	case c.size < 16 || c.size > 4096:
		return fmt.Errorf("-size %d: 16 to 4096", c.size)
	case c.parallel < 1 || c.parallel > 1000:
		return fmt.Errorf("-parallel %d: 1 to 1000", c.parallel)
	case len(c.pids) != 0 && len(c.pids) != len(c.addrs):
		return fmt.Errorf("-pid: %d processes for %d servers", len(c.pids), len(c.addrs))
	case c.wineserver < 0:
		return fmt.Errorf("-wineserver %d: a process ID, or 0", c.wineserver)
	case c.wineserver != 0 && len(c.addrs) > 1:
		return errors.New("-wineserver: with one server only")
	case c.turn && len(c.addrs) > 1:
		return errors.New("-turn: one server")
	}
	for _, p := range c.pids {
		if p <= 0 {
			return fmt.Errorf("-pid %d: a process ID", p)
		}
	}
	return nil
}

// run makes the load on one server, writes its line to out, and holds the
// connections until in ends.
func run(c config, in io.Reader, out io.Writer) error {
	s, err := prepare(c)
	if err != nil {
		return err
	}
	defer s.close()
	if err := s.echo(c.duration); err != nil {
		return err
	}
	line, err := s.line()
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(out, line); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, in)
	return err
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Command connload is the load generator and the meter of
// "scripts/bench.sh conns" (servers under Wine, whose sockets are host
// sockets) and "scripts/bench.sh linux" (native servers): it runs natively
// against an echo server on the loopback, opens many connections, checks
// every byte that comes back, and reads what the server process (and,
// under Wine, its wineserver) spent in Linux's /proc.
//
//	connload -addr 127.0.0.1:PORT -conns N -active K -duration D [-pid P] [-wineserver W]
//
// First it opens N connections, at most -parallel dials at a time, and
// echoes one message on each: the set-up. Then K of the connections,
// spread evenly over the N, each send a message, wait for it to come back
// and send the next, for D, while the rest stay idle. It prints one line,
//
//	conns=N refused=R setup-s=S msgs=M msgs/s=X p50-us=A p99-us=B mem-B/conn=C server-us/msg=T load-cpu=L wineserver-us/msg=U
//
// where R counts the connections that the system or the server did not
// take (no descriptor or port left, refused, or closed before the first
// echo: what a server at its descriptor limit does), S is the set-up's
// time and A and B are the round-trip percentiles of the echo. With -pid,
// the server's process: C is the growth of its resident memory (VmRSS)
// over the set-up's last nine tenths divided by their connections (the
// first tenth pays for what a server allocates once: threads, about 1 MB
// each under Wine, buffers, its first allocations), T is its CPU time
// (user and system) during the echo a message, in µs, and L is the share
// of one CPU that connload itself used during the echo (near 1 when
// pinned to one CPU, it is the load, not the server, that bounds the
// throughput). With -wineserver, U is that process's CPU time a message;
// without it (a native server) U is left out, not 0.
//
// Then it holds the connections open until its standard input ends, so
// that the script can end the server first: connections closed at once
// from this side make Wine's server spin on every socket that has its end
// of stream until the server under test has closed it, which takes
// minutes at 10,000. A connection that fails, or a byte that comes back
// wrong, ends it with status 1; bad flags with status 2. Each connection
// is a goroutine, not a thread.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// config is the flags.
type config struct {
	addr            string
	conns, active   int
	duration        time.Duration
	size, parallel  int
	pid, wineserver int // 0: not measured
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "", "the echo server, on the loopback: 127.0.0.1:PORT")
	flag.IntVar(&c.conns, "conns", 1000, "connections to open (10 to 100000)")
	flag.IntVar(&c.active, "active", 1000, "connections that echo (1 to -conns)")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "length of the echo (at most 10m)")
	flag.IntVar(&c.size, "size", 64, "bytes a message (16 to 65536)")
	flag.IntVar(&c.parallel, "parallel", 100, "dials in flight at once (1 to 1000)")
	flag.IntVar(&c.pid, "pid", 0, "the server's process, whose memory and CPU are read (0: none)")
	flag.IntVar(&c.wineserver, "wineserver", 0, "the wineserver's process, whose CPU is read (0: none)")
	flag.Parse()
	if err := c.check(flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "connload:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "connload:", err)
		os.Exit(1)
	}
}

func (c config) check(args []string) error {
	host, _, err := net.SplitHostPort(c.addr)
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments: %q", args)
	case err != nil:
		return fmt.Errorf("-addr %q: %w", c.addr, err)
	case !net.ParseIP(host).IsLoopback():
		return fmt.Errorf("-addr %q: only a loopback address", c.addr)
	case c.conns < 10 || c.conns > 100_000:
		return fmt.Errorf("-conns %d: 10 to 100000", c.conns)
	case c.active < 1 || c.active > c.conns:
		return fmt.Errorf("-active %d: 1 to -conns (%d)", c.active, c.conns)
	case c.duration <= 0 || c.duration > 10*time.Minute:
		return fmt.Errorf("-duration %v: more than 0, at most 10m", c.duration)
	case c.size < 16 || c.size > 65536:
		return fmt.Errorf("-size %d: 16 to 65536", c.size)
	case c.parallel < 1 || c.parallel > 1000:
		return fmt.Errorf("-parallel %d: 1 to 1000", c.parallel)
	case c.pid < 0 || c.wineserver < 0:
		return fmt.Errorf("-pid %d, -wineserver %d: process IDs, or 0", c.pid, c.wineserver)
	}
	return nil
}

// run makes the load, writes its line to out, and holds the connections
// until in ends.
func run(c config, in io.Reader, out io.Writer) error {
	var cs []net.Conn
	defer func() {
		for _, conn := range cs {
			conn.Close()
		}
	}()
	var (
		line    []string
		refused int
		took    time.Duration // the set-up's time, without the readings
		rss     [2]int64      // the server's, after the first tenth and at the end of the set-up
		base    int           // connections after the first tenth
	)
	tenth := c.conns / 10
	for i, st := range [][2]int{{0, tenth}, {tenth, c.conns}} {
		start := time.Now()
		more, r, err := setup(c.addr, st[0], st[1], c.size, c.parallel)
		took += time.Since(start)
		cs, refused = append(cs, more...), refused+r
		if err != nil {
			return err
		}
		if i == 0 {
			base = len(cs)
		}
		if c.pid != 0 {
			if rss[i], err = residentBytes(c.pid); err != nil {
				return err
			}
		}
	}
	line = append(line, fmt.Sprintf("conns=%d refused=%d setup-s=%.4f", len(cs), refused, took.Seconds()))
	if c.active > len(cs) {
		return fmt.Errorf("-active %d: only %d connections were made", c.active, len(cs))
	}
	self := 0 // connload's own CPU is read with the server's
	if c.pid != 0 {
		self = os.Getpid()
	}
	before, err := cpuTimes(c.pid, c.wineserver, self)
	if err != nil {
		return err
	}
	e, err := echoPhase(cs, c.active, c.duration, c.size)
	if err != nil {
		return err
	}
	after, err := cpuTimes(c.pid, c.wineserver, self)
	if err != nil {
		return err
	}
	line = append(line, e.String())
	if c.pid != 0 {
		if len(cs) == base {
			return errors.New("no connection was made after the first tenth: no memory a connection")
		}
		line = append(line, fmt.Sprintf("mem-B/conn=%.0f server-us/msg=%.2f load-cpu=%.2f",
			float64(rss[1]-rss[0])/float64(len(cs)-base), perMessage(after[0]-before[0], e.msgs),
			float64(after[2]-before[2])/float64(e.elapsed)))
	}
	if c.wineserver != 0 {
		line = append(line, fmt.Sprintf("wineserver-us/msg=%.2f", perMessage(after[1]-before[1], e.msgs)))
	}
	if _, err := fmt.Fprintln(out, strings.Join(line, " ")); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, in)
	return err
}

// perMessage is d over msgs, in microseconds.
func perMessage(d time.Duration, msgs int) float64 {
	return float64(d) / float64(time.Microsecond) / float64(msgs)
}

// cpuTimes returns the CPU time of the processes pid, ws and self so far,
// 0 for a process not asked for (0).
func cpuTimes(pid, ws, self int) ([3]time.Duration, error) {
	var t [3]time.Duration
	for i, p := range [3]int{pid, ws, self} {
		if p == 0 {
			continue
		}
		var err error
		if t[i], err = cpuTime(p); err != nil {
			return t, err
		}
	}
	return t, nil
}

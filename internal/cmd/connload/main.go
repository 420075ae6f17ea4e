// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Command connload is the load generator of "scripts/bench.sh conns": it
// runs natively (Wine sockets are host sockets) against an echo server on
// the loopback, opens many connections, and checks every byte that comes
// back.
//
//	connload -addr 127.0.0.1:PORT -conns N -base B -active K -duration D
//
// First it opens N connections, at most -parallel dials at a time, and
// echoes one message on each (the set-up). With -base B it stops after the
// first B of them, prints
//
//	base conns=B refused=R
//
// and waits for a line on its standard input before it opens the rest: the
// script reads the server's memory there, so that what a server pays once
// (threads, buffers, its first allocations) is behind that reading, and
// what it grows by from there to "ready" is the connections' cost. Then it
// prints
//
//	setup conns=N refused=R seconds=S
//
// where R counts the connections that the system or the server did not
// take (no descriptor or port left, refused, or closed before the first
// echo: what a server at its descriptor limit does), then "ready", and waits for a line on
// its standard input (the script reads the server's memory meanwhile).
// Then K of the connections, spread evenly over the N, each send a
// message, wait for it to come back and send the next, for D, while the
// rest stay idle; it prints
//
//	active msgs=M seconds=S msgs/s=X p50-us=A p99-us=B
//
// with the round-trip percentiles of every message, and holds the
// connections open until its standard input ends. A connection that
// fails, or a byte that comes back wrong, ends it with status 1. Each
// connection is a goroutine, not a thread.
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "", "the echo server, on the loopback: 127.0.0.1:PORT")
	conns := flag.Int("conns", 1000, "connections to open (1 to 100000)")
	base := flag.Int("base", 0, "connections to open before a pause for a line on standard input (0 to -conns - 1; 0: no pause)")
	active := flag.Int("active", 0, "connections that echo in the active phase (0 to -conns)")
	duration := flag.Duration("duration", 10*time.Second, "length of the active phase (at most 10m)")
	size := flag.Int("size", 64, "bytes a message (16 to 65536)")
	parallel := flag.Int("parallel", 100, "dials in flight at once (1 to 1000)")
	flag.Parse()
	if err := run(*addr, *conns, *base, *active, *duration, *size, *parallel); err != nil {
		fmt.Fprintln(os.Stderr, "connload:", err)
		os.Exit(1)
	}
}

func run(addr string, conns, base, active int, duration time.Duration, size, parallel int) error {
	host, _, err := net.SplitHostPort(addr)
	switch {
	case err != nil:
		return fmt.Errorf("-addr %q: %w", addr, err)
	case !net.ParseIP(host).IsLoopback():
		return fmt.Errorf("-addr %q: only a loopback address", addr)
	case conns < 1 || conns > 100_000:
		return fmt.Errorf("-conns %d: 1 to 100000", conns)
	case base < 0 || base >= conns:
		return fmt.Errorf("-base %d: 0 to -conns - 1 (%d)", base, conns-1)
	case active < 0 || active > conns:
		return fmt.Errorf("-active %d: 0 to -conns (%d)", active, conns)
	case duration <= 0 || duration > 10*time.Minute:
		return fmt.Errorf("-duration %v: more than 0, at most 10m", duration)
	case size < 16 || size > 65536:
		return fmt.Errorf("-size %d: 16 to 65536", size)
	case parallel < 1 || parallel > 1000:
		return fmt.Errorf("-parallel %d: 1 to 1000", parallel)
	}

	var cs []net.Conn
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	in := bufio.NewReader(os.Stdin)
	refused := 0
	var took time.Duration // the set-up's time, without the pause
	stages := [][2]int{{0, conns}}
	if base > 0 {
		stages = [][2]int{{0, base}, {base, conns}}
	}
	for _, st := range stages {
		from, to := st[0], st[1]
		start := time.Now()
		more, r, err := setup(addr, from, to, size, parallel)
		took += time.Since(start)
		cs, refused = append(cs, more...), refused+r
		if err != nil {
			return err
		}
		if to < conns {
			fmt.Printf("base conns=%d refused=%d\n", len(cs), refused)
			if _, err := in.ReadString('\n'); err != nil {
				return fmt.Errorf("waiting for the line after the base: %w", err)
			}
		}
	}
	fmt.Printf("setup conns=%d refused=%d seconds=%.4f\nready\n", len(cs), refused, took.Seconds())
	if _, err := in.ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the line that starts the active phase: %w", err)
	}
	if active > len(cs) {
		return fmt.Errorf("-active %d: only %d connections were made", active, len(cs))
	}
	if active > 0 {
		if err := echoPhase(cs, active, duration, size); err != nil {
			return err
		}
	}
	// Hold the connections until the standard input ends, so that the
	// script can end the server first: N connections closed at once from
	// this side make Wine's server spin on every socket that has its end
	// of stream until the server under test has closed it, which takes
	// minutes at 10,000 (README, "Connection scale").
	_, err = io.Copy(io.Discard, in)
	return err
}

// setup dials connections from to to-1 and echoes one message on each; a
// dial the system refuses for want of descriptors or ports is counted, any
// other failure ends it.
func setup(addr string, from, to, size, parallel int) ([]net.Conn, int, error) {
	var (
		mu      sync.Mutex
		cs      []net.Conn
		refused int
		first   error
		wg      sync.WaitGroup
	)
	sem := make(chan struct{}, parallel)
	for i := from; i < to; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := net.Dial("tcp", addr)
			if err == nil {
				err = echo(c, make([]byte, size), make([]byte, size), uint32(i), 0)
				if err != nil {
					c.Close()
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				cs = append(cs, c)
			case outOfResources(err):
				refused++
			case first == nil:
				first = fmt.Errorf("connection %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	return cs, refused, first
}

// outOfResources reports whether err is this machine's or the server's
// limit rather than a fault: no descriptor, no port, the backlog full.
func outOfResources(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)
}

// echo sends one message that names connection id and its sequence number
// seq, and checks that it comes back byte for byte.
func echo(c net.Conn, out, in []byte, id, seq uint32) error {
	for i := range out {
		out[i] = byte(i) ^ byte(id) ^ byte(seq)
	}
	binary.LittleEndian.PutUint32(out, id)
	binary.LittleEndian.PutUint32(out[4:], seq)
	if _, err := c.Write(out); err != nil {
		return err
	}
	if _, err := io.ReadFull(c, in); err != nil {
		return err
	}
	if string(in) != string(out) {
		return fmt.Errorf("message %d came back as %x, not %x", seq, in, out)
	}
	return nil
}

// echoPhase runs active of the connections, spread evenly over cs, for d,
// and prints the count, the rate and the round-trip percentiles.
func echoPhase(cs []net.Conn, active int, d time.Duration, size int) error {
	var (
		wg    sync.WaitGroup
		stop  atomic.Bool
		mu    sync.Mutex
		rtts  []time.Duration
		first error
	)
	start := time.Now()
	for k := range active {
		c := cs[k*len(cs)/active]
		wg.Go(func() {
			out, in := make([]byte, size), make([]byte, size)
			var mine []time.Duration
			var err error
			for seq := uint32(1); !stop.Load(); seq++ {
				t := time.Now()
				if err = echo(c, out, in, uint32(k), seq); err != nil {
					break
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			defer mu.Unlock()
			rtts = append(rtts, mine...)
			if err != nil && first == nil {
				first = fmt.Errorf("active connection %d: %w", k, err)
			}
		})
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)
	if first != nil {
		return first
	}
	if len(rtts) == 0 {
		return errors.New("no message came back in the active phase")
	}
	slices.Sort(rtts)
	pct := func(p float64) int64 { return rtts[int(p*float64(len(rtts)-1))].Microseconds() }
	fmt.Printf("active msgs=%d seconds=%.2f msgs/s=%.0f p50-us=%d p99-us=%d\n",
		len(rtts), elapsed.Seconds(), float64(len(rtts))/elapsed.Seconds(), pct(0.50), pct(0.99))
	return nil
}

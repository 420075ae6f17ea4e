// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

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

// echoed is what the echo phase measured.
type echoed struct {
	msgs     int
	elapsed  time.Duration
	p50, p99 time.Duration // round trips
}

func (e echoed) String() string {
	return fmt.Sprintf("msgs=%d msgs/s=%.0f p50-us=%d p99-us=%d",
		e.msgs, float64(e.msgs)/e.elapsed.Seconds(), e.p50.Microseconds(), e.p99.Microseconds())
}

// echoPhase runs active of the connections, spread evenly over cs, for d.
func echoPhase(cs []net.Conn, active int, d time.Duration, size int) (echoed, error) {
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
		return echoed{}, first
	}
	if len(rtts) == 0 {
		return echoed{}, errors.New("no message came back in the echo")
	}
	slices.Sort(rtts)
	pct := func(p float64) time.Duration { return rtts[int(p*float64(len(rtts)-1))] }
	return echoed{msgs: len(rtts), elapsed: elapsed, p50: pct(0.50), p99: pct(0.99)}, nil
}

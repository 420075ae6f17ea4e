// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package echo

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sockstate/sockstate/poller"
)

// Load is what Run sends: Clients connections at once, each sending
// Messages messages of Size bytes, one at a time, each read back before the
// next is sent.
type Load struct {
	Clients, Messages, Size int
	// Done, if set, counts the messages echoed so far.
	Done *atomic.Int64
}

// Result is what Run measured. The counts are of what the clients saw:
// connections made, and messages and bytes that came back whole.
type Result struct {
	Connections int
	Messages    int
	Bytes       int64
	Elapsed     time.Duration
	Latencies   []time.Duration // one a message that came back, sorted
}

// tally is what one client saw.
type tally struct {
	connected bool
	bytes     int64
	latencies []time.Duration
}

// Percentile returns the latency below which the fraction q of the
// messages stayed.
func (r Result) Percentile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	i := int(q * float64(len(r.Latencies)-1))
	return r.Latencies[i]
}

// Run drives the load against the echo server at addr and checks that every
// byte of every message came back, in order. It returns the first
// mismatch or socket error.
func Run(addr netip.AddrPort, load Load) (Result, error) {
	if load.Clients < 1 || load.Messages < 1 || load.Size < 1 {
		return Result{}, fmt.Errorf("echo: %d clients, %d messages of %d bytes: each must be at least 1", load.Clients, load.Messages, load.Size)
	}
	tallies := make([]tally, load.Clients)
	errs := make([]error, load.Clients)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range load.Clients {
		wg.Go(func() { tallies[i], errs[i] = client(addr, i, load) })
	}
	wg.Wait()
	r := Result{Elapsed: time.Since(start)}
	for _, c := range tallies {
		if c.connected {
			r.Connections++
		}
		r.Bytes += c.bytes
		r.Latencies = append(r.Latencies, c.latencies...)
	}
	r.Messages = len(r.Latencies)
	slices.Sort(r.Latencies)
	return r, errors.Join(errs...)
}

func client(addr netip.AddrPort, id int, load Load) (tally, error) {
	var c tally
	s, err := dial(addr)
	if err != nil {
		return c, fmt.Errorf("client %d: %w", id, err)
	}
	defer closeSocket(s)
	c.connected = true
	msg := make([]byte, load.Size)
	back := make([]byte, load.Size)
	c.latencies = make([]time.Duration, 0, load.Messages)
	for m := range load.Messages {
		for k := range msg { // every message its own bytes
			msg[k] = byte(id*31 + m*7 + k)
		}
		t0 := time.Now()
		if err := sendAll(s, msg, send); err != nil {
			return c, fmt.Errorf("client %d, message %d: %w", id, m, err)
		}
		if err := recvFull(s, back); err != nil {
			return c, fmt.Errorf("client %d, message %d: %w", id, m, err)
		}
		latency := time.Since(t0)
		if !bytes.Equal(back, msg) {
			return c, fmt.Errorf("client %d, message %d: the echo differs", id, m)
		}
		c.latencies = append(c.latencies, latency)
		c.bytes += int64(len(back))
		if load.Done != nil {
			load.Done.Add(1)
		}
	}
	return c, shutdownWrite(s)
}

// Hold opens a connection to the echo server at addr in each element of
// conns, and echoes one byte on each, so that the server holds every one
// of them registered and idle. The caller gives the slice, so that Hold
// allocates nothing a connection. release closes the connections that Hold
// opened, after an error too; call it once.
func Hold(addr netip.AddrPort, conns []poller.Socket) (release func(), err error) {
	opened := 0
	release = func() {
		for _, c := range conns[:opened] {
			closeSocket(c)
		}
	}
	b := []byte{0}
	for i := range conns {
		c, err := dial(addr)
		if err != nil {
			return release, fmt.Errorf("echo: connection %d of %d: %w", i+1, len(conns), err)
		}
		conns[i] = c
		opened++
		if err := echoByte(c, b, byte(i)); err != nil {
			return release, fmt.Errorf("echo: connection %d of %d: %w", i+1, len(conns), err)
		}
	}
	return release, nil
}

// echoByte sends the byte v on c through b and reads it back.
func echoByte(c poller.Socket, b []byte, v byte) error {
	b[0] = v
	if err := sendAll(c, b, send); err != nil {
		return err
	}
	if err := recvFull(c, b); err != nil {
		return err
	}
	if b[0] != v {
		return errors.New("the echo differs")
	}
	return nil
}

// recvFull fills b from the blocking socket s.
func recvFull(s poller.Socket, b []byte) error {
	for len(b) > 0 {
		n, err := recv(s, b)
		if err != nil {
			return fmt.Errorf("recv: %w", err)
		}
		if n == 0 {
			return errors.New("recv: the server closed the connection")
		}
		b = b[n:]
	}
	return nil
}

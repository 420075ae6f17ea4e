// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
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
// seq, and checks that it comes back byte for byte, within 10 s. The
// deadline stays: c is not read or written through its net.Conn again.
func echo(c net.Conn, out, in []byte, id, seq uint32) error {
	fill(out, id, seq)
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return err
	}
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

// fill makes out the message that names connection id and its sequence
// number seq.
func fill(out []byte, id, seq uint32) {
	for i := range out {
		out[i] = byte(i) ^ byte(id) ^ byte(seq)
	}
	binary.LittleEndian.PutUint32(out, id)
	binary.LittleEndian.PutUint32(out[4:], seq)
}

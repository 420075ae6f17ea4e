// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

// session is the load on one server: its connections, what the set-up
// measured, and the echo's figures so far.
type session struct {
	c       config
	pid     int // the server's, 0: not measured
	cs      []net.Conn
	refused int
	took    time.Duration // the set-up's time, without the readings
	rss     [2]int64      // the server's, after the first tenth and at the end of the set-up
	base    int           // connections after the first tenth
	e       *echoer
	cpu     [3]time.Duration // the server's, the wineserver's and connload's, during the echo
}

// prepare makes the set-up of c's one server.
func prepare(c config) (*session, error) {
	s := &session{c: c}
	if len(c.pids) > 0 {
		s.pid = c.pids[0]
	}
	tenth := c.conns / 10
	for i, st := range [][2]int{{0, tenth}, {tenth, c.conns}} {
		start := time.Now()
		more, r, err := setup(c.addrs[0], st[0], st[1], c.size, c.parallel)
		s.took += time.Since(start)
		s.cs, s.refused = append(s.cs, more...), s.refused+r
		if err != nil {
			s.close()
			return nil, err
		}
		if i == 0 {
			s.base = len(s.cs)
		}
		if s.pid != 0 {
			if s.rss[i], err = residentBytes(s.pid); err != nil {
				s.close()
				return nil, err
			}
		}
	}
	if c.active > len(s.cs) {
		s.close()
		return nil, fmt.Errorf("-active %d: only %d connections were made", c.active, len(s.cs))
	}
	if s.pid != 0 && len(s.cs) == s.base {
		s.close()
		return nil, errors.New("no connection was made after the first tenth: no memory a connection")
	}
	var err error
	if s.e, err = newEchoer(s.cs, c.active, c.size); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// echo runs the echo for d, and adds the CPU time that it took.
func (s *session) echo(d time.Duration) error {
	self := 0 // connload's own CPU is read with the server's
	if s.pid != 0 {
		self = os.Getpid()
	}
	before, err := cpuTimes(s.pid, s.c.wineserver, self)
	if err != nil {
		return err
	}
	if err := s.e.block(d); err != nil {
		return err
	}
	after, err := cpuTimes(s.pid, s.c.wineserver, self)
	for i := range s.cpu {
		s.cpu[i] += after[i] - before[i]
	}
	return err
}

// line is the session's line of figures.
func (s *session) line() (string, error) {
	e, err := s.e.result()
	if err != nil {
		return "", err
	}
	line := []string{fmt.Sprintf("conns=%d refused=%d setup-s=%.4f", len(s.cs), s.refused, s.took.Seconds()), e.String()}
	if s.pid != 0 {
		line = append(line, fmt.Sprintf("mem-B/conn=%.0f server-us/msg=%.2f load-cpu=%.2f",
			float64(s.rss[1]-s.rss[0])/float64(len(s.cs)-s.base), perMessage(s.cpu[0], e.all),
			float64(s.cpu[2])/float64(e.took)))
	}
	if s.c.wineserver != 0 {
		line = append(line, fmt.Sprintf("wineserver-us/msg=%.2f", perMessage(s.cpu[1], e.all)))
	}
	return strings.Join(line, " "), nil
}

// close closes the session's connections.
func (s *session) close() {
	if s.e != nil {
		s.e.close()
	}
	for _, c := range s.cs {
		c.Close()
	}
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

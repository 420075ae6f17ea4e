// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// echoer runs the echo phase: its connections, each with one message in
// flight at a time, on one epoll descriptor that one thread waits on, so
// that the load costs the system calls a message and no scheduling of
// goroutines (a goroutine a connection, until eba4b80, used 0.85 to 1.01
// of connload's CPU: doc/runs/linux-8ddbc30-records/conns.results).
type echoer struct {
	ep     int
	cs     []echoConn
	events []unix.EpollEvent
	size   int
	rtts   []time.Duration // of every echo
	msgs   int             // the echoes that came back within the blocks
	within time.Duration   // the blocks' time
	took   time.Duration   // the blocks' time, each until its last echo
}

// echoConn is a connection of the echo phase: a descriptor of connload's
// own (a dup, the net.Conn closed, so that Go's poller does not watch it
// too), the message in flight and how much of its echo has come back.
type echoConn struct {
	fd       int
	id, seq  uint32
	sent     time.Time
	out, in  []byte
	received int
}

// newEchoer takes active of the connections, spread evenly over cs, out
// of Go's poller and onto an epoll descriptor of its own.
func newEchoer(cs []net.Conn, active, size int) (*echoer, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	e := &echoer{ep: ep, events: make([]unix.EpollEvent, 64), size: size}
	for k := range active {
		c := cs[k*len(cs)/active]
		fd, err := dupOf(c)
		if err != nil {
			e.close()
			return nil, fmt.Errorf("active connection %d: %w", k, err)
		}
		c.Close()
		e.cs = append(e.cs, echoConn{fd: fd, id: uint32(k), out: make([]byte, size), in: make([]byte, size)})
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(k)} // Fd holds the index
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			e.close()
			return nil, fmt.Errorf("epoll_ctl: %w", err)
		}
	}
	return e, nil
}

// dupOf returns a duplicate of c's descriptor; it shares c's open file,
// which is non-blocking.
func dupOf(c net.Conn) (int, error) {
	sc, ok := c.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return -1, fmt.Errorf("%T has no descriptor", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := rc.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	return fd, errors.Join(cerr, err)
}

func (e *echoer) close() {
	for _, c := range e.cs {
		unix.Close(c.fd)
	}
	unix.Close(e.ep)
}

// block sends a message on every connection and, as each echo comes back,
// the next, until d has passed; then it waits for the echoes in flight,
// which it checks but does not count as within the block. It runs on a
// thread of its own.
func (e *echoer) block(d time.Duration) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	for i := range e.cs {
		if err := send(&e.cs[i], time.Now()); err != nil {
			return err
		}
	}
	for inFlight := len(e.cs); inFlight > 0; {
		n, err := unix.EpollWait(e.ep, e.events, 10_000)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("epoll_wait: %w", err)
		case n == 0:
			return fmt.Errorf("no echo for 10 s, %d messages in flight", inFlight)
		}
		for _, ev := range e.events[:n] {
			c := &e.cs[ev.Fd]
			done, err := receive(c)
			if err != nil {
				return fmt.Errorf("active connection %d: %w", c.id, err)
			}
			if !done {
				continue
			}
			now := time.Now()
			e.rtts = append(e.rtts, now.Sub(c.sent))
			if now.Sub(start) < d {
				e.msgs++
				err = send(c, now)
			} else {
				inFlight--
			}
			if err != nil {
				return fmt.Errorf("active connection %d: %w", c.id, err)
			}
		}
	}
	e.within += d
	e.took += time.Since(start)
	return nil
}

// send writes c's next message, which names c and its sequence number.
// With one message in flight, of at most 4 KiB (-size), the socket's send
// buffer takes it whole: a short write is an error.
func send(c *echoConn, now time.Time) error {
	c.seq++
	fill(c.out, c.id, c.seq)
	c.sent = now
	n, err := unix.Write(c.fd, c.out)
	if err == nil && n < len(c.out) {
		err = fmt.Errorf("write took %d of %d bytes", n, len(c.out))
	}
	return err
}

// receive reads what c's echo has; done once all of it has come back,
// byte for byte.
func receive(c *echoConn) (done bool, err error) {
	n, err := unix.Read(c.fd, c.in[c.received:])
	switch {
	case errors.Is(err, unix.EAGAIN):
		return false, nil
	case err != nil:
		return false, err
	case n == 0:
		return false, errors.New("the server closed it")
	}
	if c.received += n; c.received < len(c.in) {
		return false, nil
	}
	c.received = 0
	if string(c.in) != string(c.out) {
		return false, fmt.Errorf("message %d came back as %x, not %x", c.seq, c.in, c.out)
	}
	return true, nil
}

// result is what the blocks measured.
func (e *echoer) result() (echoed, error) {
	if e.msgs == 0 {
		return echoed{}, errors.New("no message came back within the echo")
	}
	rtts := slices.Sorted(slices.Values(e.rtts))
	pct := func(p float64) time.Duration { return rtts[int(p*float64(len(rtts)-1))] }
	return echoed{msgs: e.msgs, all: len(rtts), within: e.within, took: e.took, p50: pct(0.50), p99: pct(0.99)}, nil
}

// echoed is what the echo phase measured.
type echoed struct {
	msgs     int           // the echoes within the blocks
	all      int           // every echo, those after a block's end too
	within   time.Duration // the blocks' time
	took     time.Duration // the blocks' time, each until its last echo
	p50, p99 time.Duration // round trips, of every echo
}

func (e echoed) String() string {
	return fmt.Sprintf("msgs=%d msgs/s=%.0f p50-us=%d p99-us=%d",
		e.msgs, float64(e.msgs)/e.within.Seconds(), e.p50.Microseconds(), e.p99.Microseconds())
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockettest

import (
	"errors"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// end is one socket of a Pair, open until Close or the test's end.
type end struct {
	fd     int
	closed bool
}

// ends are the Pair sockets that are open, by descriptor: Close finds its
// socket's end here, and the cleanup of the Pair that made it leaves it. A
// number given again to another socket names another end.
var ends = struct {
	sync.Mutex
	m map[int]*end
}{m: make(map[int]*end)}

// Pair returns a connected loopback TCP pair whose server end is
// non-blocking. Each end is closed once: by Close, or when the test ends.
func Pair(t testing.TB) (client, server int) {
	t.Helper()
	client, server, err := pair()
	if err != nil {
		t.Fatalf("loopback TCP pair: %v", err)
	}
	c, s := &end{fd: client}, &end{fd: server}
	ends.Lock()
	ends.m[client], ends.m[server] = c, s
	ends.Unlock()
	t.Cleanup(func() {
		ends.Lock()
		defer ends.Unlock()
		for _, e := range []*end{c, s} {
			if !e.closed {
				delete(ends.m, e.fd)
				unix.Close(e.fd)
			}
		}
	})
	return client, server
}

// pair connects a blocking client to a non-blocking server over loopback.
func pair() (client, server int, err error) {
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	defer unix.Close(l)
	if err := unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return -1, -1, err
	}
	if err := unix.Listen(l, 1); err != nil {
		return -1, -1, err
	}
	addr, err := unix.Getsockname(l)
	if err != nil {
		return -1, -1, err
	}
	client, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	if err := unix.Connect(client, addr); err != nil {
		unix.Close(client)
		return -1, -1, err
	}
	server, _, err = unix.Accept4(l, unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
	if err != nil {
		unix.Close(client)
		return -1, -1, err
	}
	return client, server, nil
}

// Close closes s, an end of a Pair, now; the test's cleanup then leaves
// it (its number may be another socket's by then).
func Close(t testing.TB, s int) {
	t.Helper()
	ends.Lock()
	e, ok := ends.m[s]
	if ok {
		e.closed = true
		delete(ends.m, s)
	}
	ends.Unlock()
	if !ok {
		t.Fatalf("sockettest.Close: descriptor %d is not an open end of a Pair", s)
	}
	if err := unix.Close(s); err != nil {
		t.Fatalf("close %d: %v", s, err)
	}
}

// Send sends all of msg on s.
func Send(t testing.TB, s int, msg string) {
	t.Helper()
	if n, err := unix.Write(s, []byte(msg)); err != nil || n != len(msg) {
		t.Fatalf("send %q: n=%d err=%v", msg, n, err)
	}
}

// Drain reads the non-blocking socket s until EAGAIN or the end of the
// stream, and returns what it read.
func Drain(t testing.TB, s int) string {
	t.Helper()
	var got []byte
	buf := make([]byte, 512)
	for {
		n, err := unix.Read(s, buf)
		if errors.Is(err, unix.EAGAIN) || (err == nil && n == 0) {
			return string(got)
		}
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		got = append(got, buf[:n]...)
	}
}

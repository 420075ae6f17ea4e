// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package sockettest holds the loopback socket helpers that the tests of
// several packages of this module share.
package sockettest

import (
	"errors"
	"sync"
	"testing"

	"golang.org/x/sys/windows"

	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

// Pair returns a connected loopback TCP pair whose server end is
// non-blocking. Each end is closed once: by Close, or when the test ends.
func Pair(t testing.TB) (client, server windows.Handle) {
	t.Helper()
	client, server, err := iwinsock.Pair()
	if err != nil {
		t.Fatalf("loopback TCP pair: %v", err)
	}
	for _, s := range []windows.Handle{client, server} {
		o := own(s)
		t.Cleanup(func() { o.close() })
	}
	if err := winsock.SetNonblock(server, true); err != nil {
		t.Fatal(err)
	}
	return client, server
}

// Close closes s, an end of a Pair, now; the test's cleanup then leaves
// it. Windows gives a closed socket's handle value to the next socket at
// once, so a second closesocket of it could close another test's socket.
func Close(t testing.TB, s windows.Handle) {
	t.Helper()
	owned.Lock()
	o := owned.by[s]
	owned.Unlock()
	if o == nil {
		t.Fatalf("sockettest.Close: socket %#x is not an open end of a Pair", uintptr(s))
	}
	if err := o.close(); err != nil {
		t.Fatalf("closesocket %#x: %v", uintptr(s), err)
	}
}

// owned maps the open ends of Pairs to their owners: a handle value names
// one owner at a time, and an owner closes its socket once.
var owned = struct {
	sync.Mutex
	by map[windows.Handle]*owner
}{by: make(map[windows.Handle]*owner)}

type owner struct {
	s    windows.Handle
	once sync.Once
}

func own(s windows.Handle) *owner {
	o := &owner{s: s}
	owned.Lock()
	owned.by[s] = o
	owned.Unlock()
	return o
}

// close closes o's socket the first time only, and unmaps it before, so
// that the handle value, once free, maps to its next owner alone.
func (o *owner) close() (err error) {
	o.once.Do(func() {
		owned.Lock()
		if owned.by[o.s] == o {
			delete(owned.by, o.s)
		}
		owned.Unlock()
		err = windows.Closesocket(o.s)
	})
	return err
}

// Send sends all of msg on s.
func Send(t testing.TB, s windows.Handle, msg string) {
	t.Helper()
	if n, err := winsock.Send(s, []byte(msg), 0); err != nil || n != len(msg) {
		t.Fatalf("send %q: n=%d err=%v", msg, n, err)
	}
}

// Drain reads the non-blocking socket s until WSAEWOULDBLOCK or the end of
// the stream, and returns what it read.
func Drain(t testing.TB, s windows.Handle) string {
	t.Helper()
	var got []byte
	buf := make([]byte, 512)
	for {
		n, err := winsock.Recv(s, buf, 0)
		if errors.Is(err, windows.WSAEWOULDBLOCK) || (err == nil && n == 0) {
			return string(got)
		}
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		got = append(got, buf[:n]...)
	}
}

// UnderWine reports whether the test runs under Wine: only Wine's ntdll.dll
// has the wine_get_version export.
func UnderWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package sockettest holds the loopback socket helpers that the tests of
// several packages of this module share.
package sockettest

import (
	"errors"
	"testing"

	"golang.org/x/sys/windows"

	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

// Pair returns a connected loopback TCP pair whose server end is
// non-blocking; both are closed when the test ends.
func Pair(t testing.TB) (client, server windows.Handle) {
	t.Helper()
	client, server, err := iwinsock.Pair()
	if err != nil {
		t.Fatalf("loopback TCP pair: %v", err)
	}
	t.Cleanup(func() { windows.Closesocket(client); windows.Closesocket(server) })
	if err := winsock.SetNonblock(server, true); err != nil {
		t.Fatal(err)
	}
	return client, server
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

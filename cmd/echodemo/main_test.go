// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package main

import (
	"errors"
	"testing"

	"github.com/sockstate/sockstate/examples/echo"
	"github.com/sockstate/sockstate/poller"
)

// TestCheck: flags out of their documented ranges are refused, and the
// limits themselves are accepted (10,000 clients, or what this system
// runs: 3,000 under Wine, half of RLIMIT_NOFILE on Linux; 1,000,000
// messages; 10,000,000 messages in all; idle connections as many as
// clients).
func TestCheck(t *testing.T) {
	most, why := connLimit()
	t.Logf("at most %d connections here (%s)", most, why)
	type flags struct {
		clients, messages, size, goroutines, idle int
		backend                                   string
	}
	for _, f := range []flags{
		{0, 1, 64, 1, 0, "auto"},
		{most + 1, 1, 64, 1, 0, "auto"},
		{1, 0, 64, 1, 0, "auto"},
		{1, maxMessages + 1, 64, 1, 0, "auto"},
		{100, maxTotal/100 + 1, 64, 1, 0, "auto"},
		{1, 1, 0, 1, 0, "auto"},
		{1, 1, 65537, 1, 0, "auto"},
		{1, 1, 64, 0, 0, "auto"},
		{1, 1, 64, 257, 0, "auto"},
		{1, 1, 64, 1, -1, "auto"},
		{1, 1, 64, 1, maxClients + 1, "auto"},
		{1, 1, 64, 1, most + 1, "auto"},
		{1, 1, 64, 1, 0, "iocp"},
		{1, 1, 64, 1, 0, "Epoll "},
	} {
		if _, err := check(f.clients, f.messages, f.size, f.goroutines, f.idle, f.backend); err == nil {
			t.Errorf("%+v accepted", f)
		} else {
			t.Logf("%+v: %v", f, err)
		}
	}
	for _, f := range []flags{
		{most, 1, 64, 1, most, "afd"},
		{1, maxMessages, 65536, 256, 0, "SocketNotifications"},
		{10, maxTotal / 10, 1, 1, min(1000, most), "auto"},
		{1, 1, 1, 1, 0, "epoll"},
	} {
		if _, err := check(f.clients, f.messages, f.size, f.goroutines, f.idle, f.backend); err != nil {
			t.Errorf("%+v refused: %v", f, err)
		}
	}
}

// TestMissingBackend: a run on a backend this system lacks fails with an
// error that exits 3; any other error exits 1.
func TestMissingBackend(t *testing.T) {
	if exitCode(errors.New("echo: the echo differs")) != 1 {
		t.Error("another error does not exit 1")
	}
	missing := missingBackends()
	if len(missing) == 0 {
		t.Skip("ProcessSocketNotifications is here: no missing backend to try")
	}
	for _, b := range missing {
		err := run(b, 1, 0, echo.Load{Clients: 1, Messages: 1, Size: 1})
		if code := exitCode(err); code != 3 {
			t.Errorf("run on the missing backend %v: %v, exit code %d, want 3", b, err, code)
		}
	}
}

// TestMemory: the server's memory an idle connection is measured from
// connections that it really holds (each echoed a byte), and it is what a
// poller registration costs: more than nothing, and far less than a
// connection's buffer of 64 KiB would be.
func TestMemory(t *testing.T) {
	srv, err := echo.Listen(poller.Auto, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	perConn, err := memory(srv, 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.0f bytes an idle connection on %v", perConn, srv.Backend())
	if perConn <= 0 || perConn > 16<<10 {
		t.Errorf("%.0f bytes an idle connection: want more than 0 and at most 16 KiB", perConn)
	}
}

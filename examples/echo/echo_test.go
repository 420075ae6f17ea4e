// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package echo

import (
	"flag"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/poller"
)

var stress = flag.Bool("stress", false, "run the stress tests (10,000 sockets; 1,000,000 messages)")

func backends() []poller.Backend {
	if sockstate.Supported() {
		return []poller.Backend{poller.AFD, poller.SocketNotifications}
	}
	return []poller.Backend{poller.AFD}
}

func TestEcho(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			srv, err := Listen(b, 4)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(srv.Addr(), Load{Clients: 20, Messages: 50, Size: 300})
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
			if r.Messages != 1000 || r.Bytes != 300_000 || len(r.Latencies) != 1000 {
				t.Fatalf("result %d messages, %d bytes, %d latencies", r.Messages, r.Bytes, len(r.Latencies))
			}
		})
	}
}

// TestStressMessages pushes 1,000,000 messages through the echo server and
// checks that every one comes back once, in order. Run with -stress.
func TestStressMessages(t *testing.T) {
	if !*stress {
		t.Skip("a stress test: run with -stress")
	}
	const clients, each = 100, 10_000
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			srv, err := Listen(b, 4)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Stream(srv.Addr(), clients, each)
			if cerr := srv.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != clients*each {
				t.Fatalf("%d of %d messages came back", got, clients*each)
			}
			t.Logf("%d messages echoed and checked", got)
		})
	}
}

// TestStressSockets registers 10,000 sockets on one poller at once, makes
// every one readable, and checks that each is reported exactly once. Run
// with -stress.
func TestStressSockets(t *testing.T) {
	if !*stress {
		t.Skip("a stress test: run with -stress")
	}
	const n = 10_000
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			p, err := poller.New(poller.WithBackend(b))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			socks := make([]windows.Handle, n)
			addrs := make([]*windows.SockaddrInet4, n)
			defer func() {
				for _, s := range socks {
					if s != 0 {
						windows.Closesocket(s)
					}
				}
			}()
			for i := range socks {
				if socks[i], addrs[i], err = winsock.UDP(); err != nil {
					t.Fatalf("socket %d: %v", i, err)
				}
				if err := p.Add(socks[i], uint64(i), poller.Readable, poller.OneShotLevel); err != nil {
					t.Fatalf("Add %d: %v", i, err)
				}
			}
			sender, _, err := winsock.UDP()
			if err != nil {
				t.Fatal(err)
			}
			defer windows.Closesocket(sender)
			for i := range socks {
				if err := windows.Sendto(sender, []byte{1}, 0, addrs[i]); err != nil {
					t.Fatal(err)
				}
			}
			seen := make([]bool, n)
			events := make([]poller.Event, 256)
			for count := 0; count < n; {
				k, err := p.Wait(events, 10_000_000_000) // 10 s
				if err != nil || k == 0 {
					t.Fatalf("after %d of %d sockets: %d events, %v", count, n, k, err)
				}
				for _, e := range events[:k] {
					if e.Key >= n || seen[e.Key] || e.Events&poller.Readable == 0 {
						t.Fatalf("event %+v", e)
					}
					seen[e.Key] = true
					count++
				}
			}
			for i, s := range socks {
				if err := p.Delete(s); err != nil {
					t.Fatalf("Delete %d: %v", i, err)
				}
			}
		})
	}
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package echo

import (
	"errors"
	"flag"
	"net/netip"
	"testing"

	"github.com/sockstate/sockstate/poller"
)

var (
	stress        = flag.Bool("stress", false, "run the stress tests (10,000 sockets; 1,000,000 messages)")
	stressSockets = flag.Int("stress.sockets", 10_000, "sockets on one poller in TestStressSockets")
)

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
			// Counted by the clients: what came back whole.
			if r.Connections != 20 || r.Messages != 1000 || r.Bytes != 300_000 {
				t.Fatalf("result %d connections, %d messages, %d bytes came back, want 20, 1000, 300,000", r.Connections, r.Messages, r.Bytes)
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

// TestStressSockets registers 10,000 sockets (-stress.sockets) on one
// poller at once, makes every one readable, and checks that each is
// reported exactly once. Run with -stress.
func TestStressSockets(t *testing.T) {
	if !*stress {
		t.Skip("a stress test: run with -stress")
	}
	n := *stressSockets
	if n < 1 {
		t.Fatalf("-stress.sockets %d: need at least one socket", n)
	}
	reserveDescriptors(t, n+64) // the sockets, the sender, the poller's own and the test's
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			p, err := poller.New(poller.WithBackend(b))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			socks := make([]poller.Socket, 0, n)
			addrs := make([]netip.AddrPort, n)
			defer func() {
				for _, s := range socks {
					closeSocket(s)
				}
			}()
			for i := range n {
				s, addr, err := udpSocket()
				if err != nil {
					t.Fatalf("socket %d: %v", i, err)
				}
				socks, addrs[i] = append(socks, s), addr
				if err := p.Add(s, uint64(i), poller.Readable, poller.OneShotLevel); err != nil {
					t.Fatalf("Add %d: %v", i, err)
				}
			}
			sender, _, err := udpSocket()
			if err != nil {
				t.Fatal(err)
			}
			defer closeSocket(sender)
			for i := range socks {
				if err := sendTo(sender, []byte{1}, addrs[i]); err != nil {
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
					if e.Key >= uint64(n) || seen[e.Key] || e.Events&poller.Readable == 0 {
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

// TestResetMidEcho: while 20 clients x 50 messages run, 20 other clients
// connect, send part of a message (and 10 of them read one echo first) and
// reset the connection (SO_LINGER 0, then close). Every message of the
// well-behaved clients comes back, and the server's Close reports no error:
// a reset is the peer's doing, not the server's.
func TestResetMidEcho(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			srv, err := Listen(b, 4)
			if err != nil {
				t.Fatal(err)
			}
			resets := make(chan error, 20)
			for i := range 20 {
				go func() { resets <- resetMidway(srv.Addr(), i%2 == 0) }()
			}
			r, err := Run(srv.Addr(), Load{Clients: 20, Messages: 50, Size: 300})
			for range 20 {
				if rerr := <-resets; rerr != nil {
					t.Errorf("resetting client: %v", rerr)
				}
			}
			if cerr := srv.Close(); cerr != nil {
				t.Errorf("server after 20 resets: %v", cerr)
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Messages != 1000 {
				t.Errorf("%d messages echoed, want 1000", r.Messages)
			}
		})
	}
}

// resetMidway connects to addr, sends 100 bytes (after one echoed message
// if echoFirst), and resets the connection.
func resetMidway(addr netip.AddrPort, echoFirst bool) error {
	s, err := dial(addr)
	if err != nil {
		return err
	}
	if echoFirst {
		msg := []byte("ping")
		if err = sendAll(s, msg, send); err == nil {
			err = recvFull(s, msg)
		}
	}
	if err == nil {
		_, err = send(s, make([]byte, 100))
	}
	return errors.Join(err, resetConn(s))
}

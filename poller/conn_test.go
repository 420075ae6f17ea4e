// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// rawConn returns the syscall.RawConn of c.
func rawConn(t *testing.T, c syscall.Conn) syscall.RawConn {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// TestConn: the sockets of Go's net package, registered through their
// RawConn: a listener, a TCP connection (after its Close, the calls fail
// with an error matching net.ErrClosed), a UDP socket.
func TestConn(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		lrc := rawConn(t, l.(*net.TCPListener))
		if err := p.AddConn(lrc, 1, Readable, Level); err != nil {
			if p.Backend() == SocketNotifications {
				t.Skipf("ProcessSocketNotifications refuses a socket of Go's net package: %v", err)
			}
			t.Fatal(err)
		}
		client, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		expect(t, p, 1, Readable)
		server, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer server.Close()
		if err := p.DeleteConn(lrc); err != nil {
			t.Fatal(err)
		}

		src := rawConn(t, server.(*net.TCPConn))
		if err := p.AddConn(src, 2, Readable, Level); err != nil {
			t.Fatal(err)
		}
		expectQuiet(t, p, 2, quiet)
		if _, err := client.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 2, Readable)
		buf := make([]byte, 8)
		if n, err := server.Read(buf); err != nil || string(buf[:n]) != "ping" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
		if err := p.ModifyConn(src, 3, Writable, Level); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 3, Writable)
		if err := p.DeleteConn(src); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Write([]byte("pong")); err != nil {
			t.Fatal(err)
		}
		expectQuiet(t, p, 3, quiet)

		server.Close()
		for name, err := range map[string]error{
			"AddConn":    p.AddConn(src, 5, Readable, Level),
			"ModifyConn": p.ModifyConn(src, 5, Readable, Level),
			"DeleteConn": p.DeleteConn(src),
		} {
			if !errors.Is(err, net.ErrClosed) {
				t.Errorf("%s of a closed connection: %v, want an error matching net.ErrClosed", name, err)
			}
		}
		if err := p.AddConn(nil, 6, Readable, Level); err == nil {
			t.Error("AddConn of a nil RawConn: no error")
		}

		udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Skipf("no UDP socket of Go's net package here: %v", err) // Wine 8.0: WSAEOPNOTSUPP
		}
		defer udp.Close()
		urc := rawConn(t, udp)
		if err := p.AddConn(urc, 4, Readable, Edge); err != nil {
			t.Fatal(err)
		}
		sender, err := net.DialUDP("udp", nil, udp.LocalAddr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		defer sender.Close()
		if _, err := sender.Write([]byte("datagram")); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 4, Readable)
		if err := p.DeleteConn(urc); err != nil {
			t.Fatal(err)
		}
	})
}

// TestConnAllocs: ModifyConn, and DeleteConn then AddConn, allocate
// nothing: re-arming the one-shot registration of a net connection is an
// event loop's steady state.
func TestConnAllocs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.AddConn(rc, 1, Readable, OneShotLevel); err != nil {
			if p.Backend() == SocketNotifications {
				t.Skipf("ProcessSocketNotifications refuses a socket of Go's net package: %v", err)
			}
			t.Fatal(err)
		}
		k := uint64(1)
		if n := testing.AllocsPerRun(100, func() {
			k++
			if err := p.ModifyConn(rc, k, Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%.1f allocations a ModifyConn", n)
		}
		if n := testing.AllocsPerRun(100, func() {
			if err := p.DeleteConn(rc); err != nil {
				t.Fatal(err)
			}
			if err := p.AddConn(rc, 1, Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%.1f allocations a DeleteConn and an AddConn", n)
		}
	})
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package echo

import (
	"errors"
	"net"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/windows"

	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/poller"
	"github.com/sockstate/sockstate/winsock"
)

// BenchmarkEcho compares echo throughput, with the same clients (10, each
// sending 64-byte messages one at a time), for these servers:
//
//   - poller-<backend>: the poller's server on 2 goroutines, in this process,
//     beside the clients;
//   - wsapoll: a WSAPoll loop on one goroutine, in this process;
//   - net: Go's net package, a goroutine a connection, in this process;
//   - go-1goroutine, go-2goroutines: the poller's server (AFD backend) on 1
//     and on 2 goroutines, in a process of its own (internal/cmd/echoserver;
//     skipped unless SOCKSTATE_ECHOSERVER names the program);
//   - c-1thread, c-2threads: the C reference loop (testdata/cloop) on 1 and
//     on 2 threads, in a process of its own, started the same way; skipped
//     unless SOCKSTATE_CLOOP names the program.
//
// go-N and c-N are the pairs to compare (scripts/bench.sh gc): the same
// syscalls, the same protocol, each server alone in its process. One op
// is one message echoed; msgs/s and the 99th percentile latency are
// reported as well.
func BenchmarkEcho(b *testing.B) {
	const clients = 10
	type server struct {
		name  string
		start func(b *testing.B) (*windows.SockaddrInet4, func())
	}
	var servers []server
	for _, backend := range backends() {
		servers = append(servers, server{"poller-" + backend.String(), pollerServer(backend)})
	}
	servers = append(servers, server{"wsapoll", wsapollServer}, server{"net", netServer},
		server{"go-1goroutine", programServer("SOCKSTATE_ECHOSERVER", "-server", "poller", "-goroutines", "1")},
		server{"go-2goroutines", programServer("SOCKSTATE_ECHOSERVER", "-server", "poller", "-goroutines", "2")},
		server{"c-1thread", programServer("SOCKSTATE_CLOOP", "echo", "1")},
		server{"c-2threads", programServer("SOCKSTATE_CLOOP", "echo", "2")})
	for _, srv := range servers {
		b.Run(srv.name, func(b *testing.B) {
			addr, stop := srv.start(b)
			defer stop()
			b.ResetTimer() // ns/op without the server's start, a process's for some
			r, err := Run(addr, Load{Clients: clients, Messages: max(1, b.N/clients), Size: 64})
			b.StopTimer() // and without its stop
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(r.Messages)/r.Elapsed.Seconds(), "msgs/s")
			b.ReportMetric(float64(r.Percentile(0.99).Microseconds()), "p99-µs")
		})
	}
}

func pollerServer(backend poller.Backend) func(b *testing.B) (*windows.SockaddrInet4, func()) {
	return func(b *testing.B) (*windows.SockaddrInet4, func()) {
		s, err := Listen(backend, 2)
		if err != nil {
			b.Fatal(err)
		}
		return s.Addr(), func() {
			if err := s.Close(); err != nil {
				b.Error(err)
			}
		}
	}
}

// wsapollServer is the classic loop: one goroutine, WSAPoll over the
// listener and every connection.
func wsapollServer(b *testing.B) (*windows.SockaddrInet4, func()) {
	l, addr, err := iwinsock.Listen()
	if err != nil {
		b.Fatal(err)
	}
	if err := winsock.SetNonblock(l, true); err != nil {
		b.Fatal(err)
	}
	var stopped atomic.Bool
	done := make(chan error, 1)
	go func() {
		fds := []iwinsock.PollFd{{Fd: l, Events: iwinsock.POLLRDNORM}}
		var next []iwinsock.PollFd
		buf := make([]byte, 64<<10)
		for !stopped.Load() {
			if _, err := iwinsock.Poll(fds, 50); err != nil {
				done <- err
				return
			}
			next = append(next[:0], fds[0])
			for _, fd := range fds[1:] {
				if fd.REvents == 0 {
					next = append(next, fd)
					continue
				}
				n, err := winsock.Recv(fd.Fd, buf, 0)
				switch {
				case errors.Is(err, windows.WSAEWOULDBLOCK):
					next = append(next, fd)
				case err != nil || n == 0 || sendAll(fd.Fd, buf[:n]) != nil:
					windows.Closesocket(fd.Fd) // gone: drop it
				default:
					next = append(next, fd)
				}
			}
			if fds[0].REvents != 0 {
				for {
					c, _, err := winsock.Accept(l)
					if err != nil {
						break
					}
					winsock.SetNonblock(c, true)
					next = append(next, iwinsock.PollFd{Fd: c, Events: iwinsock.POLLRDNORM})
				}
			}
			fds, next = next, fds
		}
		for _, fd := range fds {
			windows.Closesocket(fd.Fd)
		}
		done <- nil
	}()
	return addr, func() {
		stopped.Store(true)
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}

// netServer is Go's net package: a goroutine and a 4 KiB buffer a
// connection (ServeNet), in this process.
func netServer(b *testing.B) (*windows.SockaddrInet4, func()) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { ServeNet(l); close(done) }()
	a := l.Addr().(*net.TCPAddr)
	addr := &windows.SockaddrInet4{Port: a.Port}
	copy(addr.Addr[:], a.IP.To4())
	return addr, func() { l.Close(); <-done }
}

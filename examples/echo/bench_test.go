// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package echo

import (
	"net"
	"net/netip"
	"testing"

	"github.com/sockstate/sockstate/poller"
)

// BenchmarkEcho compares echo throughput, with the same clients (10, each
// sending 64-byte messages one at a time), for these servers:
//
//   - poller-<backend>: the poller's server on 2 goroutines, in this process,
//     beside the clients;
//   - on Windows, wsapoll: a WSAPoll loop on one goroutine, in this process;
//   - net: Go's net package, a goroutine a connection, in this process;
//   - go-1goroutine, go-2goroutines: the poller's server (AFD on Windows,
//     epoll on Linux) on 1 and on 2 goroutines, in a process of its own
//     (internal/cmd/echoserver; skipped unless SOCKSTATE_ECHOSERVER names
//     the program);
//   - c-1thread, c-2threads: the C reference server (testdata/cloop on
//     Windows) on 1 and on 2 threads, in a process of its own, started the
//     same way; skipped unless SOCKSTATE_CLOOP names the program.
//
// go-N and c-N are the pairs to compare (scripts/bench.sh gc): the same
// syscalls, the same protocol, each server alone in its process. One op
// is one message echoed; msgs/s and the 99th percentile latency are
// reported as well.
func BenchmarkEcho(b *testing.B) {
	const clients = 10
	var servers []benchServer
	for _, backend := range backends() {
		servers = append(servers, benchServer{"poller-" + backend.String(), pollerServer(backend)})
	}
	servers = append(servers, osServers()...)
	servers = append(servers, benchServer{"net", netServer},
		benchServer{"go-1goroutine", programServer("SOCKSTATE_ECHOSERVER", "-server", "poller", "-goroutines", "1")},
		benchServer{"go-2goroutines", programServer("SOCKSTATE_ECHOSERVER", "-server", "poller", "-goroutines", "2")},
		benchServer{"c-1thread", programServer("SOCKSTATE_CLOOP", "echo", "1")},
		benchServer{"c-2threads", programServer("SOCKSTATE_CLOOP", "echo", "2")})
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

// benchServer is a server that BenchmarkEcho drives: start returns its
// address and a function that stops it.
type benchServer struct {
	name  string
	start func(b *testing.B) (netip.AddrPort, func())
}

func pollerServer(backend poller.Backend) func(b *testing.B) (netip.AddrPort, func()) {
	return func(b *testing.B) (netip.AddrPort, func()) {
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

// netServer is Go's net package: a goroutine and a 4 KiB buffer a
// connection (ServeNet), in this process.
func netServer(b *testing.B) (netip.AddrPort, func()) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { ServeNet(l); close(done) }()
	return l.Addr().(*net.TCPAddr).AddrPort(), func() { l.Close(); <-done }
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package echo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/poller"
)

// BenchmarkEcho compares echo throughput, with the same clients, for the
// poller's server, a WSAPoll loop on one goroutine, Go's net package with a
// goroutine a connection, and the C reference loop (testdata/cloop) on one
// and on two threads. One op is one message echoed; msgs/s is reported as
// well.
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
		server{"c-1thread", cloopServer(1)}, server{"c-2threads", cloopServer(2)})
	for _, srv := range servers {
		b.Run(srv.name, func(b *testing.B) {
			addr, stop := srv.start(b)
			defer stop()
			r, err := Run(addr, Load{Clients: clients, Messages: max(1, b.N/clients), Size: 64})
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
	l, addr, err := winsock.Listen()
	if err != nil {
		b.Fatal(err)
	}
	if err := winsock.SetNonblock(l, true); err != nil {
		b.Fatal(err)
	}
	var stopped atomic.Bool
	done := make(chan error, 1)
	go func() {
		fds := []winsock.PollFd{{Fd: l, Events: winsock.POLLRDNORM}}
		var next []winsock.PollFd
		buf := make([]byte, 64<<10)
		for !stopped.Load() {
			if _, err := winsock.Poll(fds, 50); err != nil {
				done <- err
				return
			}
			next = append(next[:0], fds[0])
			for _, fd := range fds[1:] {
				if fd.REvents == 0 {
					next = append(next, fd)
					continue
				}
				n, err := winsock.Recv(fd.Fd, buf)
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
					c, err := winsock.Accept(l)
					if err != nil {
						break
					}
					winsock.SetNonblock(c, true)
					next = append(next, winsock.PollFd{Fd: c, Events: winsock.POLLRDNORM})
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

// netServer is Go's net package: a goroutine a connection.
func netServer(b *testing.B) (*windows.SockaddrInet4, func()) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { io.Copy(c, c); c.Close() })
		}
	})
	a := l.Addr().(*net.TCPAddr)
	addr := &windows.SockaddrInet4{Port: a.Port}
	copy(addr.Addr[:], a.IP.To4())
	return addr, func() { l.Close(); wg.Wait() }
}

// cloopServer starts the echo server of the C reference loop on the given
// number of threads: the program that SOCKSTATE_CLOOP names, which
// scripts/test.sh and scripts/bench.sh build from testdata/cloop.
func cloopServer(threads int) func(b *testing.B) (*windows.SockaddrInet4, func()) {
	return func(b *testing.B) (*windows.SockaddrInet4, func()) {
		exe := os.Getenv("SOCKSTATE_CLOOP")
		if exe == "" {
			b.Skip("SOCKSTATE_CLOOP is not set: scripts/test.sh and scripts/bench.sh build testdata/cloop and set it")
		}
		cmd := exec.Command(exe, "echo", strconv.Itoa(threads))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe() // the server stops when it is closed
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		stop := func() {
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				b.Errorf("%s: %v", exe, err)
			}
		}
		var port int
		if _, err := fmt.Fscanf(bufio.NewReader(stdout), "port %d\n", &port); err != nil {
			stop()
			b.Fatalf("%s: no port: %v", exe, err)
		}
		return &windows.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}, stop
	}
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

// Command echodemo runs the echo server of this module's poller over
// loopback, on Linux (epoll) and on Windows (ProcessSocketNotifications
// where this Windows has it, else AFD): one poller, goroutines waiting on
// it (one less than GOMAXPROCS, at least one, leaving a P to the clients
// in this process), one-shot registrations, many clients each sending
// messages and checking that every byte comes back. It prints the backend,
// the connections and messages, the throughput and the latency
// percentiles, with a progress line every second on long runs, and at the
// end the server's memory per idle connection: -idle connections (1,000
// unless told) each echo a byte and stay open while the Go heap is read.
//
//	go run ./cmd/echodemo -clients 100 -messages 1000 -size 64
//
// Exit codes:
//
//	0  every byte of every message came back
//	1  a byte did not come back, or a socket failed during the run
//	2  bad flags (out of range, or more clients than this system can run)
//	3  the backend asked for is missing on this system: AFD and
//	   SocketNotifications on Linux; SocketNotifications before Windows 10
//	   build 20348, and under Wine
//
// Limits: -messages at most 1,000,000 and -clients x -messages at most
// 10,000,000 (the demo keeps each message's latency, 8 bytes each).
// -clients and -idle are at most 10,000, and fewer where this process
// runs short of what a connection takes: each client is a goroutine in a
// blocking recv, which holds an OS thread, and each connection, client or
// idle, is two sockets in this process (the client's and the server's).
// On Linux a socket is a descriptor: at most half of RLIMIT_NOFILE (Go
// raises the soft limit to the hard one at start), less a few. Under Wine
// each thread also takes file descriptors in the process and in the
// wineserver, and with "ulimit -n 20000" thread creation failed near 4,000
// threads (ERROR_TOO_MANY_OPEN_FILES), so under Wine -clients and -idle
// are at most 3,000 (which took 53 s for 5 messages each).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sockstate/sockstate/examples/echo"
	"github.com/sockstate/sockstate/poller"
)

func main() {
	clients := flag.Int("clients", 100, "concurrent client connections (1 to 10000, fewer where descriptors run short: see go doc)")
	messages := flag.Int("messages", 1000, "messages each client sends (1 to 1000000; clients x messages at most 10000000)")
	size := flag.Int("size", 64, "bytes a message (1 to 65536)")
	backendName := flag.String("backend", "Auto", "poller backend: Auto, Epoll (Linux), AFD or SocketNotifications (Windows); any case")
	// One less than GOMAXPROCS, at least one: the clients run in this
	// process too.
	goroutines := flag.Int("goroutines", max(1, runtime.GOMAXPROCS(0)-1), "server goroutines waiting on the poller (1 to 256)")
	idle := flag.Int("idle", 1000, "idle connections whose memory is measured at the end (0 to 10000, fewer where descriptors run short; 0: none)")
	flag.Parse()

	backend, err := check(*clients, *messages, *size, *goroutines, *idle, *backendName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echodemo:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := run(backend, *goroutines, *idle, echo.Load{Clients: *clients, Messages: *messages, Size: *size}); err != nil {
		fmt.Fprintln(os.Stderr, "echodemo:", err)
		os.Exit(exitCode(err))
	}
}

// exitCode is the exit code for an error of run: 3 for a missing backend,
// else 1.
func exitCode(err error) int {
	if missingBackend(err) {
		return 3
	}
	return 1
}

// Limits of the flags; see the package doc. connLimit (system_*.go) may
// lower maxClients.
const (
	maxClients  = 10000
	maxMessages = 1000000
	maxTotal    = 10000000
)

// backends are the names that -backend takes, each on every system:
// one that this system lacks exits 3.
var backends = map[string]poller.Backend{"Auto": poller.Auto, "Epoll": poller.Epoll, "AFD": poller.AFD, "SocketNotifications": poller.SocketNotifications}

func check(clients, messages, size, goroutines, idle int, backend string) (poller.Backend, error) {
	most, why := connLimit()
	switch {
	case flag.NArg() > 0:
		return 0, fmt.Errorf("unexpected arguments: %q", flag.Args())
	case clients < 1 || clients > maxClients:
		return 0, fmt.Errorf("-clients %d: want 1 to %d", clients, maxClients)
	case clients > most:
		return 0, fmt.Errorf("-clients %d: here at most %d: %s", clients, most, why)
	case messages < 1 || messages > maxMessages:
		return 0, fmt.Errorf("-messages %d: want 1 to %d", messages, maxMessages)
	case int64(clients)*int64(messages) > maxTotal:
		return 0, fmt.Errorf("-clients %d x -messages %d: at most %d messages in all (each one's latency is kept)", clients, messages, maxTotal)
	case size < 1 || size > 65536:
		return 0, fmt.Errorf("-size %d: want 1 to 65536", size)
	case goroutines < 1 || goroutines > 256:
		return 0, fmt.Errorf("-goroutines %d: want 1 to 256", goroutines)
	case idle < 0 || idle > maxClients:
		return 0, fmt.Errorf("-idle %d: want 0 to %d", idle, maxClients)
	case idle > most:
		return 0, fmt.Errorf("-idle %d: here at most %d: %s", idle, most, why)
	}
	for name, b := range backends {
		if strings.EqualFold(backend, name) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("-backend %q: want Auto, Epoll, AFD or SocketNotifications", backend)
}

func run(backend poller.Backend, goroutines, idle int, load echo.Load) error {
	srv, err := echo.Listen(backend, goroutines)
	if err != nil {
		return err
	}
	// Each client blocks an OS thread in recv; past 10,000 threads Go's
	// runtime stops the program.
	debug.SetMaxThreads(max(10000, load.Clients+1000))
	total := int64(load.Clients) * int64(load.Messages)
	fmt.Printf("backend %v, server goroutines in Wait: %d (GOMAXPROCS %d); %d clients x %d messages of %d bytes\n",
		srv.Backend(), goroutines, runtime.GOMAXPROCS(0), load.Clients, load.Messages, load.Size)

	var done atomic.Int64
	load.Done = &done
	stop := make(chan struct{})
	go progress(&done, total, stop)
	result, err := echo.Run(srv.Addr(), load)
	close(stop)
	var perConn float64
	if err == nil && idle > 0 {
		perConn, err = memory(srv, idle)
	}
	if serr := srv.Close(); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	secs := result.Elapsed.Seconds()
	fmt.Printf("%d connections, %d messages, %d bytes echoed and checked in %.2f s\n",
		result.Connections, result.Messages, result.Bytes, secs)
	fmt.Printf("throughput: %.0f messages/s, %.2f MB/s each way\n",
		float64(result.Messages)/secs, float64(result.Bytes)/secs/1e6)
	fmt.Printf("latency: p50 %v, p90 %v, p99 %v, max %v\n",
		result.Percentile(0.50), result.Percentile(0.90), result.Percentile(0.99), result.Percentile(1))
	if idle > 0 {
		fmt.Printf("server memory: %.0f bytes of Go heap an idle connection (%d connections held open; the kernel's socket memory is not counted)\n",
			perConn, idle)
	}
	return nil
}

// memory opens n connections to the server, each echoing one byte, and
// returns how much the process's Go heap grew per connection
// while they stay open: what the server holds for an idle connection (its
// poller registration), as the clients here hold only socket handles in a
// slice made before the first reading.
func memory(srv *echo.Server, n int) (float64, error) {
	conns := make([]poller.Socket, n)
	before := inUse()
	release, err := echo.Hold(srv.Addr(), conns)
	after := inUse()
	release()
	if err != nil {
		return 0, err
	}
	return (float64(after) - float64(before)) / float64(n), nil
}

// inUse returns the bytes of live Go heap objects after two collections
// (the second empties sync.Pool's victim cache). Goroutine stacks are not
// counted: the server has none a connection, and the collector shrinks
// stacks at will, which would blur a few hundred bytes a connection.
func inUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// progress prints a line a second until stop is closed.
func progress(done *atomic.Int64, total int64, stop <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			n := done.Load()
			fmt.Printf("  ... %d of %d messages (%.0f%%)\n", n, total, 100*float64(n)/float64(total))
		}
	}
}

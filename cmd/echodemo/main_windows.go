// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Command echodemo runs the multi-threaded echo server of this module's
// poller over loopback: one poller, several goroutines, one-shot
// registrations, many clients each sending messages and checking that every
// byte comes back. It prints the backend, the connections and messages,
// the throughput and the latency percentiles, with a progress line every
// second on long runs.
//
//	go run ./cmd/echodemo -clients 100 -messages 1000 -size 64
//
// It exits 1 if any byte did not come back, and 2 on bad flags.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sockstate/sockstate/examples/echo"
	"github.com/sockstate/sockstate/poller"
)

func main() {
	clients := flag.Int("clients", 100, "concurrent client connections (1 to 10000)")
	messages := flag.Int("messages", 1000, "messages each client sends (at least 1)")
	size := flag.Int("size", 64, "bytes a message (1 to 65536)")
	backendName := flag.String("backend", "Auto", "poller backend: Auto, AFD or SocketNotifications (any case)")
	goroutines := flag.Int("goroutines", runtime.GOMAXPROCS(0), "server goroutines waiting on the poller (1 to 256)")
	flag.Parse()

	backend, err := check(*clients, *messages, *size, *goroutines, *backendName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echodemo:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := run(backend, *goroutines, echo.Load{Clients: *clients, Messages: *messages, Size: *size}); err != nil {
		fmt.Fprintln(os.Stderr, "echodemo:", err)
		os.Exit(1)
	}
}

func check(clients, messages, size, goroutines int, backend string) (poller.Backend, error) {
	switch {
	case flag.NArg() > 0:
		return 0, fmt.Errorf("unexpected arguments: %q", flag.Args())
	case clients < 1 || clients > 10000:
		return 0, fmt.Errorf("-clients %d: want 1 to 10000", clients)
	case messages < 1:
		return 0, fmt.Errorf("-messages %d: want at least 1", messages)
	case size < 1 || size > 65536:
		return 0, fmt.Errorf("-size %d: want 1 to 65536", size)
	case goroutines < 1 || goroutines > 256:
		return 0, fmt.Errorf("-goroutines %d: want 1 to 256", goroutines)
	}
	for _, b := range []poller.Backend{poller.Auto, poller.AFD, poller.SocketNotifications} {
		if strings.EqualFold(backend, b.String()) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("-backend %q: want Auto, AFD or SocketNotifications", backend)
}

func run(backend poller.Backend, goroutines int, load echo.Load) error {
	srv, err := echo.Listen(backend, goroutines)
	if err != nil {
		return err
	}
	total := int64(load.Clients) * int64(load.Messages)
	fmt.Printf("backend %v, %d server goroutines; %d clients x %d messages of %d bytes\n",
		srv.Backend(), goroutines, load.Clients, load.Messages, load.Size)

	var done atomic.Int64
	load.Done = &done
	stop := make(chan struct{})
	go progress(&done, total, stop)
	result, err := echo.Run(srv.Addr(), load)
	close(stop)
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
	return nil
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

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

// Command echoserver is the Go side of the echo servers that
// scripts/bench.sh measures, each in a process of its own, with the same
// flags on Windows and on Linux:
//
//	echoserver -server poller -goroutines 2   the poller's (examples/echo: AFD on Windows, epoll on Linux)
//	echoserver -server net                    Go's net package (echo.ServeNet)
//
// It speaks the protocol of the C reference loop's server (testdata/cloop,
// "cloop echo THREADS"): it prints "port N", serves on 127.0.0.1:N until
// its standard input ends, and exits with status 0, or 1 with the error
// the server met; bad flags exit with status 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"

	"github.com/sockstate/sockstate/examples/echo"
	"github.com/sockstate/sockstate/poller"
)

func main() {
	server := flag.String("server", "poller", "the server: poller (examples/echo: AFD on Windows, epoll on Linux) or net (Go's net package)")
	goroutines := flag.Int("goroutines", 2, "the poller's server: goroutines waiting on the poller (1 to 256)")
	flag.Parse()
	if err := check(*server, *goroutines, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "echoserver:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*server, *goroutines, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "echoserver:", err)
		os.Exit(1)
	}
}

func check(server string, goroutines int, args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments: %q", args)
	case server != "poller" && server != "net":
		return fmt.Errorf("-server %q: poller or net", server)
	case goroutines < 1 || goroutines > 256:
		return fmt.Errorf("-goroutines %d: 1 to 256", goroutines)
	}
	return nil
}

// run starts the server, writes its port line to out, serves until in
// ends, and stops the server.
func run(server string, goroutines int, in io.Reader, out io.Writer) error {
	var port int
	var stop func() error
	if server == "net" {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return err
		}
		go echo.ServeNet(l)
		port = l.Addr().(*net.TCPAddr).Port
		// Closing the listener ends the accepts; the connections end
		// with their peers, or with the process: the script ends the
		// server while its load generator still holds them.
		stop = l.Close
	} else {
		srv, err := echo.Listen(pollerBackend(), goroutines)
		if err != nil {
			return err
		}
		port, stop = int(srv.Addr().Port()), srv.Close
	}
	if _, err := fmt.Fprintf(out, "port %d\n", port); err != nil {
		return errors.Join(err, stop())
	}
	_, err := io.Copy(io.Discard, in)
	if err != nil {
		err = fmt.Errorf("standard input: %w", err)
	}
	return errors.Join(err, stop())
}

// pollerBackend is the poller's backend: AFD on Windows, as the C
// reference loop (testdata/cloop) polls, also where this Windows has
// ProcessSocketNotifications; epoll on Linux.
func pollerBackend() poller.Backend {
	if runtime.GOOS == "windows" {
		return poller.AFD
	}
	return poller.Epoll
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package echo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/poller"
)

// serverEnv, set to a number of goroutines, makes this test binary the
// poller's echo server (AFD backend) on that many goroutines instead of
// running its tests, and set to "net", an echo server on Go's net package
// (serveNet): see TestMain.
const serverEnv = "SOCKSTATE_ECHO_SERVER"

// traceEnv, set to a file's path beside serverEnv, makes the server write
// an execution trace (runtime/trace) into it from the first line of its
// standard input to the end of it: "scripts/bench.sh conns" traces the
// echo phase so.
const traceEnv = "SOCKSTATE_ECHO_TRACE"

// lockedEnv, set to 1 beside serverEnv, makes the poller's echo server lock
// its goroutines to their threads (lockThreads).
const lockedEnv = "SOCKSTATE_ECHO_LOCKED"

// TestMain runs the tests, or, with serverEnv set, an echo server in a
// process of its own, for BenchmarkEcho/go-*, which runs this test binary
// again, and for "scripts/bench.sh conns". The server speaks the protocol of the C server (cloop
// echo): it prints "port N", serves until its standard input ends, and
// exits with status 1 if the server met an error.
func TestMain(m *testing.M) {
	if arg := os.Getenv(serverEnv); arg != "" {
		if err := serveProcess(arg); err != nil {
			fmt.Fprintln(os.Stderr, "echo server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveProcess(arg string) error {
	var port int
	var closeServer func() error
	if arg == "net" {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return err
		}
		go serveNet(l)
		port = l.Addr().(*net.TCPAddr).Port
		// The connections end with the process, as the poller server's
		// do: "bench.sh conns" ends the server while its load generator
		// still holds them.
		closeServer = l.Close
	} else {
		goroutines, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("%s=%q: a number of goroutines or \"net\": %w", serverEnv, arg, err)
		}
		lockThreads = os.Getenv(lockedEnv) == "1"
		srv, err := Listen(poller.AFD, goroutines)
		if err != nil {
			return err
		}
		port, closeServer = srv.Addr().Port, srv.Close
	}
	fmt.Printf("port %d\n", port)
	err := readStdin(os.Getenv(traceEnv))
	if cerr := closeServer(); cerr != nil {
		return cerr
	}
	return err
}

// readStdin reads the standard input to its end. With a path given
// (traceEnv), a line read starts an execution trace (runtime/trace) of
// the process into that file, which it then says with a line "tracing" on
// its standard output, and the end of the input stops it.
func readStdin(path string) error {
	if path == "" {
		if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
			return fmt.Errorf("standard input: %w", err)
		}
		return nil
	}
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		if err == io.EOF {
			return fmt.Errorf("%s is set, and the standard input ended before the line that starts the trace", traceEnv)
		}
		return fmt.Errorf("standard input: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return err
	}
	fmt.Println("tracing")
	_, err = io.Copy(io.Discard, in)
	trace.Stop()
	if err != nil {
		err = fmt.Errorf("standard input: %w", err)
	}
	return errors.Join(err, f.Close())
}

// serveNet echoes on every connection l accepts, with a goroutine and a
// 4 KiB buffer a connection, until l is closed; it returns once every
// connection has ended.
func serveNet(l net.Listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		wg.Go(func() {
			defer c.Close()
			buf := make([]byte, 4096) // io.Copy would take 32 KiB (TCPConn's ReadFrom)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		})
	}
}

// goServer starts the poller's echo server (AFD backend) on the given
// number of goroutines in a process of its own: this test binary, as
// TestMain runs it with serverEnv set.
func goServer(goroutines int) func(b *testing.B) (*windows.SockaddrInet4, func()) {
	return func(b *testing.B) (*windows.SockaddrInet4, func()) {
		exe, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		return startServer(b, exe, nil, serverEnv+"="+strconv.Itoa(goroutines))
	}
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
		return startServer(b, exe, []string{"echo", strconv.Itoa(threads)})
	}
}

// startServer runs exe with args, and env added to the environment, as an
// echo server in a process of its own: the program prints "port N" on its
// standard output, serves on 127.0.0.1:N until its standard input ends, and
// exits with status 0 unless it met an error. startServer returns the
// address and a function that stops the server and waits for it. The rest
// of the program's standard output is shown only if it fails; its
// standard error is this process's.
func startServer(b *testing.B, exe string, args []string, env ...string) (*windows.SockaddrInet4, func()) {
	name := strings.Join(append([]string{exe}, args...), " ")
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
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
	out := bufio.NewReader(stdout)
	first, readErr := out.ReadString('\n')
	var rest bytes.Buffer
	drained := make(chan struct{})
	go func() { io.Copy(&rest, out); close(drained) }()
	stop := func() (string, error) {
		stdin.Close()
		<-drained // the pipe is read to its end before Wait
		err := cmd.Wait()
		return rest.String(), err
	}
	var port int
	if _, err := fmt.Sscanf(first, "port %d", &port); err != nil {
		more, werr := stop()
		b.Fatalf("%s: no port line (%v, %v) but %q, then %q; exit: %v", name, readErr, err, first, more, werr)
	}
	return &windows.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}, func() {
		if more, err := stop(); err != nil {
			b.Errorf("%s: %v; after the port line it printed:\n%s", name, err, more)
		}
	}
}

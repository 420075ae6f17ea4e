// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package echo

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// programServer starts the echo server that the program named by the
// environment variable env runs with args, in a process of its own (see
// startServer). The benchmark is skipped unless env is set: scripts/test.sh
// and scripts/bench.sh build the programs and set SOCKSTATE_ECHOSERVER
// (internal/cmd/echoserver, the poller's server) and SOCKSTATE_CLOOP (the
// C reference server: testdata/cloop on Windows).
func programServer(env string, args ...string) func(b *testing.B) (netip.AddrPort, func()) {
	return func(b *testing.B) (netip.AddrPort, func()) {
		exe := os.Getenv(env)
		if exe == "" {
			b.Skipf("%s is not set: scripts/test.sh and scripts/bench.sh build the program and set it", env)
		}
		return startServer(b, exe, args)
	}
}

// startServer runs exe with args as an echo server in a process of its
// own: the program prints "port N" on its standard output, serves on
// 127.0.0.1:N until its standard input ends, and exits with status 0
// unless it met an error. startServer returns the
// address and a function that stops the server and waits for it. The rest
// of the program's standard output is shown only if it fails; its
// standard error is this process's.
func startServer(b *testing.B, exe string, args []string) (netip.AddrPort, func()) {
	name := strings.Join(append([]string{exe}, args...), " ")
	cmd := exec.Command(exe, args...)
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
	var port uint16
	if _, err := fmt.Sscanf(first, "port %d", &port); err != nil {
		more, werr := stop()
		b.Fatalf("%s: no port line (%v, %v) but %q, then %q; exit: %v", name, readErr, err, first, more, werr)
	}
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), port), func() {
		if more, err := stop(); err != nil {
			b.Errorf("%s: %v; after the port line it printed:\n%s", name, err, more)
		}
	}
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

func TestServers(t *testing.T) {
	for _, server := range []string{"poller", "net"} {
		t.Run(server, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- run(server, 2, inR, outW); outW.Close() }()
			line, err := bufio.NewReader(outR).ReadString('\n')
			if err != nil {
				t.Fatalf("no port line: %v (run: %v)", err, <-done)
			}
			var port int
			if _, err := fmt.Sscanf(line, "port %d\n", &port); err != nil {
				t.Fatalf("port line %q: %v", line, err)
			}
			c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			msg := bytes.Repeat([]byte("echo"), 16)
			for i := range 3 {
				msg[0] = byte(i)
				if _, err := c.Write(msg); err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(msg))
				if _, err := io.ReadFull(c, got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, msg) {
					t.Fatalf("message %d came back as %q", i, got)
				}
			}
			inW.Close() // the end of its standard input stops it
			if err := <-done; err != nil {
				t.Fatalf("run: %v", err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		server     string
		goroutines int
		args       []string
		want       string // "" for no error
	}{
		{"poller", 2, nil, ""},
		{"net", 1, nil, ""},
		{"epoll", 2, nil, `-server "epoll"`},
		{"poller", 0, nil, "-goroutines 0"},
		{"poller", 257, nil, "-goroutines 257"},
		{"poller", 2, []string{"x"}, "unexpected arguments"},
	} {
		err := check(tc.server, tc.goroutines, tc.args)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("check(%q, %d, %q): %v", tc.server, tc.goroutines, tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("check(%q, %d, %q): %v, want an error with %q", tc.server, tc.goroutines, tc.args, err, tc.want)
		}
	}
}

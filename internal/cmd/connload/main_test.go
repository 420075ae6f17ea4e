// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

package main

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// server starts an echo server on the loopback that passes each read
// through mangle, and returns its address.
func server(t *testing.T, mangle func([]byte)) string {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					mangle(buf[:n])
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// fields parses run's line into its keys and values.
func fields(t *testing.T, line string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			t.Fatalf("field %q of %q", f, line)
		}
		m[k] = x
	}
	return m
}

func TestRun(t *testing.T) {
	c := config{addrs: []string{server(t, func([]byte) {})}, conns: 30, active: 5, duration: 200 * time.Millisecond, block: 200 * time.Millisecond, size: 64, parallel: 8}
	var out strings.Builder
	if err := run(c, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	f := fields(t, out.String())
	if f["conns"] != 30 || f["refused"] != 0 {
		t.Errorf("conns %v, refused %v; want 30, 0 (%s)", f["conns"], f["refused"], out.String())
	}
	if f["msgs"] < 1 || f["msgs/s"] <= 0 || f["p50-us"] > f["p99-us"] || f["setup-s"] <= 0 {
		t.Errorf("implausible echo: %s", out.String())
	}
	for _, k := range []string{"mem-B/conn", "server-us/msg", "wineserver-us/msg"} {
		if _, ok := f[k]; ok {
			t.Errorf("%s without -pid and -wineserver: %s", k, out.String())
		}
	}
}

func TestRunWrongByte(t *testing.T) {
	c := config{addrs: []string{server(t, func(b []byte) { b[len(b)-1]++ })}, conns: 10, active: 1, duration: time.Second, block: time.Second, size: 64, parallel: 8}
	err := run(c, strings.NewReader(""), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "came back as") {
		t.Fatalf("run against a server that changes a byte: %v", err)
	}
}

func TestCheck(t *testing.T) {
	good := config{addrs: []string{"127.0.0.1:9"}, conns: 1000, active: 10, duration: time.Second, block: 100 * time.Millisecond, size: 64, parallel: 100}
	if err := good.check(nil); err != nil {
		t.Fatal(err)
	}
	for want, change := range map[string]func(*config){
		"only a loopback": func(c *config) { c.addrs = []string{"127.0.0.1:9", "192.0.2.1:9"} },
		"-addr":           func(c *config) { c.addrs = []string{"nowhere"} },
		"-block 5ms":      func(c *config) { c.block, c.turn = 5*time.Millisecond, true },
		"-block 2s":       func(c *config) { c.block, c.addrs = 2*time.Second, []string{"127.0.0.1:9", "127.0.0.1:10"} },
		"2 processes for": func(c *config) { c.pids = []int{1, 2} },
		"-pid 0":          func(c *config) { c.pids = []int{0} },
		"one server only": func(c *config) { c.addrs, c.wineserver = []string{"127.0.0.1:9", "127.0.0.1:10"}, 1 },
		"-turn: one":      func(c *config) { c.addrs, c.turn = []string{"127.0.0.1:9", "127.0.0.1:10"}, true },
		"-conns 9":        func(c *config) { c.conns = 9 },
		"-active 0":       func(c *config) { c.active = 0 },
		"-active 1001":    func(c *config) { c.active = 1001 },
		"-duration 0s":    func(c *config) { c.duration = 0 },
		"-size 8":         func(c *config) { c.size = 8 },
		"-size 4097":      func(c *config) { c.size = 4097 },
		"-parallel 0":     func(c *config) { c.parallel = 0 },
		"-wineserver -1":  func(c *config) { c.wineserver = -1 },
	} {
		c := good
		change(&c)
		if err := c.check(nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
	if err := good.check([]string{"x"}); err == nil {
		t.Error("an argument: no error")
	}
}

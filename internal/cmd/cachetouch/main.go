// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Command cachetouch writes a byte in every 64 (a cache line) of a buffer
// of its own, sleeps, and does it again, until it is killed:
//
//	cachetouch -kib K -every D
//
// "scripts/bench.sh conns" runs it natively, with CONNS_TOUCH=1, on the CPU
// that C's echo server shares with its wineserver: with -kib 1024 it puts
// a MiB of memory traffic through that CPU's caches every D, and with -kib
// 4 it wakes as often with next to none, to tell what the traffic costs
// Wine's server apart from what a neighbour's waking costs it. (Not the
// wake-ups of the sleep alone: Go's runtime wakes too, its monitor thread
// and its timers, the same at either size.)
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	kib := flag.Int("kib", 1024, "KiB of the buffer, each of its cache lines written on every pass")
	every := flag.Duration("every", 2*time.Millisecond, "the sleep after each pass")
	flag.Parse()
	if *kib < 1 || *every <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: cachetouch -kib K -every D (K at least 1, D positive)")
		os.Exit(2)
	}
	buf := make([]byte, *kib<<10)
	for n := byte(1); ; n++ {
		for i := 0; i < len(buf); i += 64 {
			buf[i] = n
		}
		time.Sleep(*every)
	}
}

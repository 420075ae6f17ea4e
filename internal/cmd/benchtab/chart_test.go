// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/xml"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestChart draws testdata/conns.txt and reads the picture back: a
// well-formed SVG with a bar a server and workload in each panel, whose
// heights are in the ratio of their medians, and the caption.
func TestChart(t *testing.T) {
	b := draw(t, "-caption", "scripts/bench.sh conns 3 <test>", "testdata/conns.txt")
	bars := map[string]float64{} // a bar's title: its height
	var texts []string
	d := xml.NewDecoder(strings.NewReader(string(b)))
	var inBar bool
	var height float64
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if e.Name.Local == "rect" {
				for _, a := range e.Attr {
					if a.Name.Local == "height" {
						height, _ = strconv.ParseFloat(a.Value, 64)
					}
				}
				inBar = true
			}
		case xml.EndElement:
			if e.Name.Local == "rect" {
				inBar = false
			}
		case xml.CharData:
			s := strings.TrimSpace(string(e))
			if s == "" {
				continue
			}
			if inBar {
				bars[s] = height
			}
			texts = append(texts, s)
		}
	}
	// 2 panels x 2 workloads x 3 servers.
	if len(bars) != 12 {
		t.Fatalf("%d bars, want 12: %v", len(bars), bars)
	}
	poller := bars["poller, 1,000 connections, all echoing: 25,000 (24,000–26,000)"]
	net := bars["Go net, 1,000 connections, all echoing: 15,000 (14,000–16,000)"]
	if poller == 0 || math.Abs(net/poller-0.6) > 0.01 {
		t.Errorf("throughput bars %v and %v high: not 25,000 to 15,000 (bars: %v)", poller, net, bars)
	}
	joined := strings.Join(texts, "\n")
	for _, want := range []string{"scripts/bench.sh conns 3 <test>", "Throughput, messages/s", "Memory a connection, bytes", "10,000 connections", "1% echoing"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no text %q in the chart", want)
		}
	}
}

// draw runs benchtab conns -svg with args and returns the chart.
func draw(t *testing.T, args ...string) []byte {
	t.Helper()
	// A temporary file, not t.TempDir: under Wine 8, Go 1.26's
	// os.RemoveAll of a directory with files in it fails ("unlinkat:
	// Invalid function").
	f, err := os.CreateTemp("", "conns-*.svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := f.Name()
	f.Close()
	t.Cleanup(func() { os.Remove(svg) })
	if err := run(append([]string{"conns", "-svg", svg}, args...), nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAxis(t *testing.T) {
	for _, tc := range []struct {
		hi    float64
		step  float64
		ticks int
	}{
		{26000, 5000, 6}, {32000, 5000, 7}, {3100, 500, 7}, {1, 0.2, 5}, {0, 1, 1}, {100, 20, 5}, {7, 1, 7},
	} {
		step, ticks := axis(tc.hi)
		if math.Abs(step-tc.step) > 1e-9 || ticks != tc.ticks {
			t.Errorf("axis(%v) = %v, %d; want %v, %d", tc.hi, step, ticks, tc.step, tc.ticks)
		}
		if tc.hi > 0 && (step*float64(ticks) < tc.hi || ticks < 4 || ticks > 8) {
			t.Errorf("axis(%v) = %v x %d: does not reach it in 4 to 8 steps", tc.hi, step, ticks)
		}
	}
}

// TestChartNative draws a native run: its title says so, and its bars
// are the native C server's.
func TestChartNative(t *testing.T) {
	s := string(draw(t, "-native", "testdata/conns-native.txt"))
	if !strings.Contains(s, "natively on Linux") || strings.Contains(s, "under Wine") || !strings.Contains(s, "C (cepoll), 1,000 connections") {
		t.Errorf("a native run's chart:\n%s", s)
	}
}

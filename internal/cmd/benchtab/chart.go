// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// The chart's geometry, in SVG user units (pixels).
const (
	panelW, panelH = 440, 300 // a panel's plot area
	marginL        = 70       // room for the y axis's labels
	top            = 78       // room for the title and the legend
	bottom         = 64       // room for the x axis's labels and the caption
	gap            = 40       // between the panels
	marginR        = 20
)

// chartPanels are the panels: connload's key and the panel's title.
var chartPanels = [][2]string{
	{"msgs/s", "Throughput, messages/s"},
	{"mem-B/conn", "Memory a connection, bytes"},
}

// chart writes an SVG picture of the run: a panel for each of
// chartPanels, in which each workload (its connections) is a group of
// bars, a bar a server, at its median with a line from its min to its
// max, the median written above it. caption, under the panels, names the
// run (its command); the title says whether the servers ran natively or
// under Wine.
func chart(w io.Writer, run connsRun, servers []server, caption string, native bool) error {
	wls := run.workloads()
	width := 2*(marginL+panelW) + gap + marginR
	height := top + panelH + bottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	where := "under Wine"
	if native {
		where = "natively on Linux"
	}
	fmt.Fprintf(&b, `<text x="%d" y="22" text-anchor="middle" font-size="16">Echo servers %s by connections: the poller, C and Go's net</text>`+"\n", width/2, where)
	for i, s := range servers { // the legend
		x := width/2 - 60*len(servers) + 120*i
		fmt.Fprintf(&b, `<rect x="%d" y="36" width="12" height="12" fill="%s"/><text x="%d" y="46">%s</text>`+"\n",
			x, s.color, x+18, html.EscapeString(s.title))
	}
	for p, panel := range chartPanels {
		x0 := p*(marginL+panelW+gap) + marginL
		barPanel(&b, x0, panel[1], run, wls, servers, panel[0])
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-size="11" fill="#444">%s</text>`+"\n",
		width/2, height-10, html.EscapeString(caption))
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// barPanel draws one panel, its plot area's left edge at x0.
func barPanel(b *strings.Builder, x0 int, title string, run connsRun, wls []workload, servers []server, key string) {
	hi := 0.0
	for _, wl := range wls {
		for _, s := range servers {
			if sp := summarize(values(run[wl].get(s.name, key))); sp.n > 0 {
				hi = math.Max(hi, sp.max)
			}
		}
	}
	step, ticks := axis(hi)
	// A value's height; one below 0 (memory that shrank) is drawn at 0.
	y := func(v float64) float64 { return float64(top+panelH) - math.Max(v, 0)/(step*float64(ticks))*panelH }
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" font-size="14">%s</text>`+"\n", x0+panelW/2, top-8, html.EscapeString(title))
	for t := 0; t <= ticks; t++ {
		v := step * float64(t)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			x0, x0+panelW, y(v), y(v), x0-6, y(v)+4, num(v))
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="black"/>`+"\n", x0, x0+panelW, top+panelH, top+panelH)
	group := float64(panelW) / float64(max(1, len(wls)))
	bar := group * 0.7 / float64(max(1, len(servers)))
	for g, wl := range wls {
		gx := float64(x0) + group*float64(g) + group*0.15
		conns, echoing, _ := strings.Cut(wl.String(), ", ")
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text><text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s</text>`+"\n",
			gx+group*0.35, top+panelH+18, conns, gx+group*0.35, top+panelH+33, echoing)
		for i, s := range servers {
			sp := summarize(values(run[wl].get(s.name, key)))
			if sp.n == 0 {
				continue
			}
			bx := gx + bar*float64(i)
			base := y(0)
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s</title></rect>`+"\n",
				bx+1, math.Min(y(sp.median), base), bar-2, math.Abs(base-y(sp.median)), s.color,
				html.EscapeString(s.title), wl, sp)
			mid := bx + bar/2
			fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>`+"\n", mid, mid, y(sp.min), y(sp.max))
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10">%s</text>`+"\n",
				mid, math.Min(y(sp.max), y(sp.median))-4, num(sp.median))
		}
	}
}

// axis returns a step of 1, 2 or 5 times a power of ten and the number of
// steps that reach hi: 4 to 8 of them.
func axis(hi float64) (step float64, ticks int) {
	if hi <= 0 {
		return 1, 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(hi/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if hi/step <= 8 {
			break
		}
	}
	return step, int(math.Ceil(hi / step))
}

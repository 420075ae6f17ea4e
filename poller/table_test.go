// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"math"
	"testing"
	"time"
)

// TestMillis: rounded up, never down, and bounded; a negative duration is
// 0 (no wait).
func TestMillis(t *testing.T) {
	for d, want := range map[time.Duration]int{
		-time.Second:                       0,
		0:                                  0,
		time.Nanosecond:                    1,
		time.Millisecond - 1:               1,
		time.Millisecond:                   1,
		time.Millisecond + 1:               2,
		1500 * time.Microsecond:            2,
		time.Second:                        1000,
		math.MaxInt32 * time.Millisecond:   math.MaxInt32,
		math.MaxInt32*time.Millisecond + 1: math.MaxInt32,
		math.MaxInt64:                      math.MaxInt32,
	} {
		if got := int(millis(d, math.MaxInt32)); got != want {
			t.Errorf("millis(%v) = %d, want %d", d, got, want)
		}
	}
}

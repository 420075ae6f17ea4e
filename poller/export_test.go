// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"math"
	"testing"
	"time"
)

// DisableYield keeps the poller's calls from yielding the processor
// (yieldEvery) until tb ends, for BenchmarkWaitYield. It is in a _test.go
// file: a user's build has no way to change yieldEvery.
func DisableYield(tb testing.TB) {
	old := yieldEvery
	yieldEvery = time.Duration(math.MaxInt64)
	tb.Cleanup(func() { yieldEvery = old })
}

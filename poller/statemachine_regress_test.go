// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"testing"
	"time"
)

// Sequences that TestStateMachine found failing, shrunk, as ordinary
// tests: each runs on every backend, a few times, as timing varies.

func runRegression(t *testing.T, ops []op) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			for range 3 {
				err := runSequence(b, ops, nil)
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestRegressionLevelAfterWake: a Level registration added while a Wait
// was blocked, whose event that Wait took, is reported again to a later
// Wait, also with a Wake packet queued before it (the runner's end posts
// one for the background Wait). The reference model lost it: it missed
// the dequeue of a Wait that blocked before the first registration
// (testdata/psnmodel/SPEC.md, Decisions).
func TestRegressionLevelAfterWake(t *testing.T) {
	runRegression(t, []op{
		{kind: opWaitBG, sock: 0, n: 4, timeout: 30 * time.Millisecond},
		{kind: opReadPart, sock: 1, n: 4},
		{kind: opAdd, sock: 0, interest: Writable | HangUp, mode: Level},
		{kind: opWake, sock: 0},
	})
}

// TestRegressionEdgeReadBeforeWait: data that arrives after a drain on an
// Edge registration (UDP, Writable too, so AFD's first poll has come back
// with Writable) and is read before any Wait need not be reported, as under
// epoll; the model once owed it.
func TestRegressionEdgeReadBeforeWait(t *testing.T) {
	runRegression(t, []op{
		{kind: opDrain, sock: 2},
		{kind: opAdd, sock: 2, interest: Readable | Writable | HangUp | Error, mode: Edge},
		{kind: opSend, sock: 2, n: 24},
		{kind: opDrain, sock: 2},
	})
}

// TestRegressionLevelAddedUnderWaits: a Level registration added while one
// Wait is blocked, after another timed out, is reported to a later Wait
// (the reference model lost it, as in TestRegressionLevelAfterWake).
func TestRegressionLevelAddedUnderWaits(t *testing.T) {
	runRegression(t, []op{
		{kind: opWaitBG, sock: 0, n: 8, timeout: 30 * time.Millisecond},
		{kind: opWait, sock: 1, n: 2, timeout: 10 * time.Millisecond},
		{kind: opAdd, sock: 2, interest: Readable | Writable | Error, mode: Level},
	})
}

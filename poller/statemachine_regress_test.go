// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"testing"
	"time"
)

// Sequences that TestStateMachine found failing, shrunk, as ordinary
// tests: each runs on every backend, a few times, as timing varies.

func runRegression(t *testing.T, ops []op) {
	t.Helper()
	runRegressionTimes(t, 3, ops)
}

// runRegressionTimes runs ops runs times on every backend, for a sequence
// that fails only with a rare timing.
func runRegressionTimes(t *testing.T, runs int, ops []op) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.String(), func(t *testing.T) {
			for range runs {
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

// TestRegressionOneShotModifyQueued: a one-shot registration whose packet
// (Writable) is still in the port when a Modify arms it for Readable, with
// data waiting: on ProcessSocketNotifications the stale packet, outside
// the new interest, made the poller re-arm the registration, and Readable
// was reported twice without a Modify between (TestStateMachine, seed
// 64). A one-shot registration's packets after its report, until it is
// armed again, now go.
func TestRegressionOneShotModifyQueued(t *testing.T) {
	runRegression(t, []op{
		{kind: opAdd, sock: 0, interest: Writable, mode: OneShotLevel},
		{kind: opSend, sock: 0, n: 8},
		{kind: opModify, sock: 0, interest: Readable, mode: OneShotLevel},
		{kind: opWait, sock: 0, n: 4, timeout: 100 * time.Millisecond},
		{kind: opWait, sock: 0, n: 4, timeout: 100 * time.Millisecond},
		{kind: opWait, sock: 0, n: 4, timeout: 100 * time.Millisecond},
	})
}

// TestModelReportTakesArming: the runner checks a background Wait's result
// at its next step, so it may record what a one-shot registration owes
// (data after a drain) after a Wait on another goroutine has returned with
// the registration's event, before it checks that Wait. That report took
// the arming: the model must then drop what it recorded as owed (it did
// not, and TestStateMachine failed about once in a thousand sequences
// under -race, seeds 1444 on AFD and 1540 on the model). An Edge
// registration's obligation from after such a Wait stands.
func TestModelReportTakesArming(t *testing.T) {
	for _, mode := range []Mode{OneShotEdge, Edge} {
		m := newModel()
		r := m.add(7, Readable, mode, 1, 2)
		m.owe(r, anyBits, 10, false, "data after a drain")
		w := waitResult{start: 3, end: 8, size: 4, timeout: -1, n: 1, events: []Event{{Key: 7, Events: Readable}}, background: true}
		if err := m.check(w); err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if owed := len(m.owed) != 0; owed != (mode == Edge) {
			t.Errorf("%v: owed after the report: %v", mode, m.owed)
		}
	}
}

// TestRegressionHandleReused: a socket closed without Delete, whose handle
// a new socket of another fixture is given: the runner Deletes the handle
// before it uses the new socket, as Delete's doc asks of a caller (it did
// so only for the fixture's own socket, and its Add was refused: seed
// 2338).
func TestRegressionHandleReused(t *testing.T) {
	runRegression(t, []op{
		{kind: opAdd, sock: 0, interest: Readable | Writable | HangUp, mode: OneShotLevel},
		{kind: opAdd, sock: 1, interest: Readable | Writable | HangUp | Error, mode: Level},
		{kind: opCloseNoDelete, sock: 1},
		{kind: opCloseNoDelete, sock: 0},
		{kind: opAdd, sock: 1, interest: HangUp, mode: Level},
		{kind: opCloseNoDelete, sock: 1},
		{kind: opAdd, sock: 0, interest: Readable, mode: OneShotEdge},
	})
}

// TestRegressionResetAfterData: data that arrives after a drain on an Edge
// registration, and then the peer's reset before any Wait: the reset may
// discard the data, and on AFD the event is the reset's (Error), not
// Readable; the runner owed Readable still (seed 3210).
func TestRegressionResetAfterData(t *testing.T) {
	runRegression(t, []op{
		{kind: opDrain, sock: 0},
		{kind: opAdd, sock: 0, interest: Readable | Writable, mode: Edge},
		{kind: opSend, sock: 0, n: 40},
		{kind: opReset, sock: 0},
	})
}

// TestRegressionTwiceInOneWait: a Wait that took a Level socket's packet in
// its first batch and another in a later one reported the socket twice
// when a Wait beside it (a background one here) reported the socket in
// between: that Wait's record in the slot hid the first. It failed in
// about one run in three on the reference model, before a Wait held the
// poller's lock from its first batch to its last.
func TestRegressionTwiceInOneWait(t *testing.T) {
	runRegression(t, []op{
		{kind: opWait, sock: 0, n: 6, timeout: 10 * time.Millisecond},
		{kind: opWake, sock: 1},
		{kind: opDrain, sock: 2},
		{kind: opSend, sock: 2, n: 58},
		{kind: opReadPart, sock: 2, n: 3},
		{kind: opCheck, sock: 2},
		{kind: opDelete, sock: 0},
		{kind: opWait, sock: 0, n: 1, timeout: 0},
		{kind: opWake, sock: 1},
		{kind: opSend, sock: 2, n: 39},
		{kind: opAdd, sock: 1, interest: Readable | Writable | HangUp, mode: OneShotLevel},
		{kind: opWait, sock: 0, n: 1, timeout: 1 * time.Millisecond},
		{kind: opShutdown, sock: 0},
		{kind: opCloseSock, sock: 1},
		{kind: opAdd, sock: 2, interest: HangUp, mode: Level},
		{kind: opModify, sock: 2, interest: 0, mode: OneShotEdge},
		{kind: opAdd, sock: 1, interest: Readable | Writable | Error, mode: Level},
		{kind: opCloseNoDelete, sock: 0},
		{kind: opSend, sock: 2, n: 61},
		{kind: opWait, sock: 1, n: 1, timeout: 0},
		{kind: opWait, sock: 1, n: 8, timeout: 1 * time.Millisecond},
		{kind: opSend, sock: 1, n: 13},
		{kind: opReadPart, sock: 1, n: 2},
		{kind: opCheck, sock: 0},
		{kind: opModify, sock: 1, interest: 0, mode: OneShotEdge},
		{kind: opReset, sock: 0},
		{kind: opWait, sock: 0, n: 1, timeout: 50 * time.Millisecond},
		{kind: opAdd, sock: 1, interest: Readable | Writable, mode: Edge},
		{kind: opModify, sock: 2, interest: Readable, mode: Edge},
		{kind: opCloseSock, sock: 2},
		{kind: opAdd, sock: 2, interest: Readable | HangUp, mode: OneShotEdge},
		{kind: opModify, sock: 1, interest: Readable, mode: OneShotEdge},
		{kind: opSend, sock: 2, n: 27},
		{kind: opCloseSock, sock: 0},
		{kind: opSend, sock: 1, n: 2},
		{kind: opDelete, sock: 0},
		{kind: opSend, sock: 0, n: 48},
		{kind: opCloseSock, sock: 0},
		{kind: opDrain, sock: 2},
		{kind: opWaitBG, sock: 1, n: 4, timeout: 200 * time.Millisecond},
		{kind: opWaitBG, sock: 0, n: 6, timeout: 30 * time.Millisecond},
		{kind: opDelete, sock: 2},
		{kind: opCheck, sock: 1},
		{kind: opModify, sock: 1, interest: Readable, mode: Level},
		{kind: opDelete, sock: 0},
		{kind: opDrain, sock: 2},
		{kind: opWait, sock: 1, n: 4, timeout: 10 * time.Millisecond},
		{kind: opSend, sock: 0, n: 59},
		{kind: opWaitBG, sock: 2, n: 1, timeout: 200 * time.Millisecond},
		{kind: opAdd, sock: 2, interest: Writable, mode: OneShotLevel},
	})
}

// TestRegressionTwiceInOneWaitEpoll: on epoll, a Wait whose first
// epoll_wait batch was full and held an event the poller drops (here a
// Level registration with interest 0 or Error on a reset socket whose
// error was read: a hang-up alone, which mutes it) took a second batch,
// where each Level registration of the first came again; a Wait beside it
// that reported one of them in between hid this Wait's record of it, and
// it was reported twice in one Wait (TestRegressionTwiceInOneWait's defect
// on Windows, fixed on epoll in fe69087). TestStateMachine did not reach
// it in 5,000 sequences (a full batch with a dropped event is rare there):
// this sequence is built for it, each Modify making the muted registration
// report once more. Before the fix about one run in three failed (natively,
// 2 CPUs); a run takes about a millisecond natively.
func TestRegressionTwiceInOneWaitEpoll(t *testing.T) {
	ops := []op{
		{kind: opReset, sock: 0},
		{kind: opDrain, sock: 0},
		{kind: opSend, sock: 1, n: 5},
		{kind: opSend, sock: 2, n: 5},
		{kind: opAdd, sock: 0, interest: 0, mode: Level},
		{kind: opAdd, sock: 1, interest: Readable, mode: Level},
		{kind: opAdd, sock: 2, interest: Readable, mode: Level},
	}
	for i := range 20 {
		muted := Error
		if i%2 == 1 {
			muted = 0
		}
		ops = append(ops, op{kind: opModify, sock: 0, interest: muted, mode: Level},
			op{kind: opWait, sock: 0, n: 3, timeout: 0}, op{kind: opWaitBG, sock: 0, n: 3, timeout: -1})
	}
	runRegressionTimes(t, 30, ops)
}

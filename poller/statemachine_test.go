// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// The state-machine test: random sequences of operations on a Poller and a
// few sockets (TCP pairs and UDP), run for real on each backend and checked
// against the model of the promises (promises_test.go). The generator is
// this file's own; the runner, which does each operation and tells the
// model, is statemachine_run_test.go.
//
// A failure prints its seed and the shortest sequence that still fails;
// "go test -run TestStateMachine -seed S -sequences 1" replays it, and the
// printed sequence pastes into statemachine_regress_test.go as an ordinary
// test.

var (
	smSeed      = flag.Uint64("seed", 1, "TestStateMachine: the seed of its first sequence (0: from the clock)")
	smSequences = flag.Int("sequences", 0, "TestStateMachine: sequences per backend (0: the default, 150, 20 in a model switch run; or $SOCKSTATE_SEQUENCES)")
)

// defaultSequences keeps TestStateMachine to about a minute per backend
// under -race on 2 shared cores under Wine. CONTRIBUTING.md says the number.
const defaultSequences = 150

// switchSequences is the default in a run with a switch of the reference
// model set (scripts/test.sh runs the poller's tests once per value), on
// ProcessSocketNotifications only.
const switchSequences = 20

// smEventually is how long the runner waits for what must come: generous,
// and spent only when a check fails (shrinking spends it once a try).
const smEventually = 10 * time.Second

type opKind uint8

const (
	opAdd           opKind = iota // Add with a fresh key
	opModify                      // Modify with a fresh key
	opDelete                      // Delete
	opWait                        // Wait on the test's goroutine
	opWaitBG                      // Wait on a goroutine of its own
	opWake                        // Wake
	opSend                        // the peer sends n bytes, or a datagram of n
	opDrain                       // read until it would block and all that was sent
	opReadPart                    // one recv of n bytes at most
	opShutdown                    // the TCP peer shuts down its sending side
	opReset                       // the TCP peer resets the connection
	opCloseSock                   // Delete, closesocket, a new socket in its place
	opCloseNoDelete               // closesocket without Delete (Delete later, as its doc says)
	opCheck                       // wait until everything owed has come
	opClose                       // Close the Poller
)

var opNames = [...]string{"opAdd", "opModify", "opDelete", "opWait", "opWaitBG", "opWake", "opSend", "opDrain",
	"opReadPart", "opShutdown", "opReset", "opCloseSock", "opCloseNoDelete", "opCheck", "opClose"}

// op is one operation. Its fields are intents: the runner interprets them
// against the state it is in, so that every subsequence (as shrinking
// makes) runs too.
type op struct {
	kind     opKind
	sock     int
	interest Interest
	mode     Mode
	n        int           // Wait: room for events; Send, ReadPart: bytes
	timeout  time.Duration // Wait
}

// String is the op as a Go literal, for a regression test.
func (o op) String() string {
	s := fmt.Sprintf("{kind: %s, sock: %d", opNames[o.kind], o.sock)
	switch o.kind {
	case opAdd, opModify:
		s += fmt.Sprintf(", interest: %v, mode: %v", o.interest, o.mode)
	case opWait, opWaitBG:
		t := "-1"
		if o.timeout >= 0 {
			t = fmt.Sprintf("%d * time.Millisecond", o.timeout/time.Millisecond)
		}
		s += fmt.Sprintf(", n: %d, timeout: %s", o.n, t)
	case opSend, opReadPart:
		s += fmt.Sprintf(", n: %d", o.n)
	}
	return s + "}"
}

func formatOps(ops []op) string {
	var b strings.Builder
	b.WriteString("[]op{\n")
	for _, o := range ops {
		fmt.Fprintf(&b, "\t%v,\n", o)
	}
	b.WriteString("}")
	return b.String()
}

const smSockets = 3

// smRoom is the most events a generated Wait has room for: no more than
// the sockets and the Wake can fill. A Wait whose first batch of the OS
// is full takes another without blocking, and that second batch is where
// a registration was reported twice in one Wait (TestRegressionTwiceInOneWait,
// TestRegressionTwiceInOneWaitEpoll); on epoll a room of 5 or more is never
// filled by one batch. (Even so, epoll's second batch comes only when the
// first held an event the poller drops: about once in 1,000 sequences.)
const smRoom = smSockets + 1

// weights of the generator, by opKind (opClose is placed apart).
var opWeights = [...]int{opAdd: 12, opModify: 10, opDelete: 5, opWait: 14, opWaitBG: 6, opWake: 4, opSend: 14,
	opDrain: 8, opReadPart: 4, opShutdown: 2, opReset: 2, opCloseSock: 3, opCloseNoDelete: 2, opCheck: 8}

// generate returns the sequence of seed: 20 to 60 operations; one in four
// closes the Poller and goes on with a few calls after Close.
func generate(seed uint64) []op {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	total := 0
	for _, w := range opWeights {
		total += w
	}
	length := 20 + rng.IntN(41)
	closeAt := -1
	if rng.IntN(4) == 0 {
		closeAt = length - 1 - rng.IntN(5)
	}
	ops := make([]op, 0, length)
	for i := range length {
		o := op{sock: rng.IntN(smSockets)}
		if i == closeAt {
			o.kind = opClose
		} else {
			pick := rng.IntN(total)
			for k, w := range opWeights {
				if pick < w {
					o.kind = opKind(k)
					break
				}
				pick -= w
			}
		}
		switch o.kind {
		case opAdd, opModify:
			o.interest = Interest(rng.IntN(16)) // every combination, 0 and Error alone among them
			o.mode = Mode(rng.IntN(4))
		case opWait:
			o.n = 1 + rng.IntN(smRoom)
			o.timeout = []time.Duration{0, time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond}[rng.IntN(4)]
		case opWaitBG:
			o.n = 1 + rng.IntN(smRoom)
			o.timeout = []time.Duration{-1, -1, 30 * time.Millisecond, 200 * time.Millisecond}[rng.IntN(4)]
		case opSend:
			o.n = 1 + rng.IntN(64)
		case opReadPart:
			o.n = 1 + rng.IntN(8)
		}
		ops = append(ops, o)
	}
	return ops
}

// shrink drops operations from a failing sequence while it still fails:
// halves, then quarters, down to single ones, for at most budget runs.
func shrink(ops []op, fails func([]op) error, budget int) ([]op, error) {
	err := fails(ops)
	for chunk := len(ops) / 2; chunk >= 1 && budget > 0; chunk /= 2 {
		for i := 0; i+chunk <= len(ops) && budget > 0; {
			try := append(append([]op(nil), ops[:i]...), ops[i+chunk:]...)
			budget--
			if e := fails(try); e != nil {
				ops, err = try, e
				continue // the same i, now the next chunk
			}
			i += chunk
		}
	}
	return ops, err
}

// TestStateMachine runs random sequences on each backend (see the top of
// this file).
func TestStateMachine(t *testing.T) {
	sequences := defaultSequences
	if s := os.Getenv("SOCKSTATE_SEQUENCES"); s != "" {
		fmt.Sscan(s, &sequences)
	}
	if os.Getenv("SOCKSTATE_PSN_MODEL") != "" {
		sequences = switchSequences // one run per switch value: a sample
	}
	if *smSequences > 0 {
		sequences = *smSequences
	}
	seed := *smSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seeds %d to %d (-seed %d -sequences %d replays them)", seed, seed+uint64(sequences)-1, seed, sequences)
	for _, b := range backends() {
		if os.Getenv("SOCKSTATE_PSN_MODEL") != "" && b == AFD {
			continue // a model switch run: AFD ran in the main runs
		}
		t.Run(b.String(), func(t *testing.T) {
			var stats runStats
			for i := range sequences {
				s := seed + uint64(i)
				ops := generate(s)
				err := runSequence(b, ops, &stats)
				if err != nil {
					t.Logf("seed %d failed: %v; shrinking", s, err)
					short, serr := shrink(ops, func(ops []op) error { return runSequence(b, ops, nil) }, 60)
					if serr == nil {
						short, serr = ops, err // it did not fail again: keep the whole
					}
					t.Fatalf("seed %d (-seed %d -sequences 1): %v\nshortest failing sequence (%d of %d operations):\n%s",
						s, s, serr, len(short), len(ops), formatOps(short))
				}
			}
			t.Logf("%v: %d sequences, %d operations (%d Waits, %d events, %d obligations met)",
				b, sequences, stats.ops, stats.waits, stats.events, stats.met)
		})
	}
}

// runStats counts what the sequences did.
type runStats struct {
	ops, waits, events, met int
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/windows"
)

// yieldEvery is how long, at least, a thread that calls the poller goes
// between two yields of its processor (runtime.Gosched): Add, Modify,
// Delete and Wait each yield, before their system calls, when their thread
// has not yielded for that long. It is a variable only so that
// BenchmarkWaitYield can turn the yield off (DisableYield, in a _test.go
// file); nothing else sets it.
//
// Go's runtime preempts a goroutine that has run 10 ms without passing
// through its scheduler, and a goroutine that loops on Wait and handles the
// events with system calls never passes through it. When the preemption
// finds that goroutine in a system call, the runtime takes its processor
// and hands it to another thread, and its monitor thread goes back to
// waking every 20 µs, in timers that under Wine are Wine server requests,
// kernel round trips; from then on each call the goroutine makes while it
// holds the processor without a pass can be taken again. A Gosched every
// 5 ms keeps the preemption away; with nothing else to run it costs no
// system call, and with an idle processor it wakes one thread at most.
//
// The pace is each thread's, as the runtime's is each processor's: a
// goroutine stays on its thread from one pass through the scheduler to the
// next, so a thread that has not yielded for 5 ms runs a goroutine that has
// not passed for that long at most (it may have passed meanwhile, in a way
// the poller does not see: a yield too many, never one too few). A pace
// shared by all callers would let each of two goroutines that handle
// events side by side yield only half as often.
//
// A goroutine that spends 10 ms or more between two calls of the poller,
// in system calls of its own, can still lose its processor in them: the
// poller yields in its own calls only. And with no processor idle the
// runtime takes one from any call it sees on two of its monitor's ticks,
// yields or not; the yields keep those ticks up to 10 ms apart, where each
// taking would bring them back to 20 µs.
//
// "scripts/bench.sh conns" counts, in its scheduling pass, the calls whose
// processor the runtime took and the yields, a message of its echo server
// at 10,000 connections with 1% echoing under Wine: in the run at 86a8da9
// the runtime took it in 0.013 of the goroutines' calls a message at
// GOMAXPROCS 3 (2.37 at 4571446, with Wait's one pace for all callers),
// with 0.68 yields; at GOMAXPROCS 1 in 2.65 (2.80), all with no processor
// idle. The README's "Connection scale" has what that did to the CPU.
// "scripts/bench.sh yield" runs BenchmarkWaitYield with the yield and
// without it.
var yieldEvery = 5 * time.Millisecond

// passThreads is how many threads the poller remembers a yield of: more
// than there are threads calling it at once in all but a few programs. A
// thread that is not among them is entered as one that has just yielded,
// in place of the one that yielded longest ago, so that a program with
// more such threads has some of its yields come late, never early.
const passThreads = 16

// gosched and monotonic are the processor's yield and the pace's clock
// (nanoseconds since the program started). They are variables only so that
// tests can count the yields and set the clock (export_test.go).
var (
	gosched   = runtime.Gosched
	monotonic = func() int64 { return int64(time.Since(programStart)) }
)

var programStart = time.Now()

// yields is the table of threads and when each last yielded.
type yields struct {
	mu  sync.Mutex
	tid [passThreads]uint32
	at  [passThreads]int64 // monotonic's time of the last yield
	n   int                // entries in use
}

// due reports whether thread tid has not yielded for yieldEvery at time
// now, entering it as having yielded now if it is not in the table.
func (y *yields) due(tid uint32, now int64) bool {
	y.mu.Lock()
	defer y.mu.Unlock()
	i := y.find(tid, now)
	return now-y.at[i] >= int64(yieldEvery)
}

// passed records that thread tid yielded at time now.
func (y *yields) passed(tid uint32, now int64) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.at[y.find(tid, now)] = now
}

// find returns tid's entry; for a thread not in the table, an entry that
// says it yielded at now. y.mu is held.
func (y *yields) find(tid uint32, now int64) int {
	oldest := 0
	for i := range y.n {
		if y.tid[i] == tid {
			return i
		}
		if y.at[i] < y.at[oldest] {
			oldest = i
		}
	}
	i := oldest
	if y.n < passThreads {
		i = y.n
		y.n++
	}
	y.tid[i], y.at[i] = tid, now
	return i
}

// yield yields the processor if the calling thread has not for yieldEvery
// (see there). It is called without p.mu.
func (p *Poller) yield() {
	tid := windows.GetCurrentThreadId()
	if !p.yields.due(tid, monotonic()) {
		return
	}
	gosched()
	// The goroutine may come back on another thread: both have been
	// through the scheduler.
	now := monotonic()
	p.yields.passed(tid, now)
	if after := windows.GetCurrentThreadId(); after != tid {
		p.yields.passed(after, now)
	}
}

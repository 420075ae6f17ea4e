// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname
)

// yieldEvery is how long, at least, a processor (a P of Go's runtime) on
// which the poller is called goes between two of its yields (goyield,
// below): Add, Modify, Delete and Wait each start with a yield when the P
// they run on has not been through one for that long. It is a variable
// only so that BenchmarkWaitYield can turn the yield off (DisableYield, in
// a _test.go file); nothing else sets it.
//
// Go's runtime preempts a goroutine that has run 10 ms on a P without that
// P passing through its scheduler, and a goroutine that loops on Wait and
// handles the events with system calls never passes through it. When the
// preemption finds that goroutine in a system call, the runtime takes its
// P and hands it to another thread, and its monitor thread goes back to
// waking every 20 µs, in timers that under Wine are Wine server requests,
// kernel round trips; from then on each call the goroutine makes while it
// holds the P without a pass can be taken again. A P on which the poller
// is called at least every 5 ms (10 ms less yieldEvery) passes through the
// scheduler at least every 10 ms. A yield makes no system call of its own
// and wakes no thread for an idle P, unless its goroutine is locked to its
// thread (see goyield).
//
// The pace is each P's, as the runtime's is (its monitor counts a P's runs
// of the scheduler, schedtick in runtime/proc.go), kept in one table for
// every Poller: a yield through one Poller counts for calls of another on
// that P. The P is the one the goroutine runs on when its call starts
// (procID), which it may have left by the time it enters its system call:
// a goroutine whose P the runtime has taken in a call goes on, without a
// pass, with another P, idle until then, whose time without a pass the
// runtime counts from before. Its next call of the poller finds that P
// due, unless a call on it yielded lately, and yields; in between, the
// runtime may take it again: the yields make takings rare, not
// impossible. A pace shared by all Ps would let each of two goroutines
// that handle events side by side yield only half as often.
//
// A goroutine that spends 10 ms or more between two calls of the poller,
// in system calls of its own, can still lose its P in them: the poller
// yields in its own calls only. And with no P idle the runtime takes one
// from any call it sees on two of its monitor's ticks, yields or not; the
// yields keep those ticks up to 10 ms apart, where each taking would bring
// them back to 20 µs.
//
// "scripts/bench.sh conns" counts, in its scheduling pass, the calls whose
// P the runtime took and the yields, a message of its echo server at
// 10,000 connections with 1% echoing under Wine; the README's "Connection
// scale" has one run's counts.
// "scripts/bench.sh yield" runs BenchmarkWaitYield with the yield and
// without it.
var yieldEvery = 5 * time.Millisecond

// gosched, monotonic and procID are the yield, the pace's clock
// (nanoseconds since the program started) and the ID of the P the calling
// goroutine runs on. They are variables only so that tests can count the
// yields, set the clock and say which P a call runs on (yield_test.go).
var (
	gosched   = goyield
	monotonic = func() int64 { return int64(time.Since(programStart)) }
	procID    = currentP
)

var programStart = time.Now()

// goyield is the Go runtime's runtime.goyield, which the runtime keeps, its
// signature unchanged, for the packages that link to it (go.dev/issue/67401;
// the linker lets any package pull it). Like runtime.Gosched it passes
// through the scheduler, which is all the yield is for: its P counts a new
// run (schedtick), and the runtime's monitor sees the goroutine as one that
// has not held the P for long. But it puts the goroutine at the tail of its
// own P's run queue, where that P runs it after the goroutines queued there
// (and those that the pass itself makes runnable, such as a timer's, or
// now and then one from the global queue); Gosched puts it on the global
// queue and, while a P is idle and no thread looks for work, wakes a
// thread for that P (wakep) that takes the goroutine to run it, or finds
// nothing and sleeps again: a thread woken and put to sleep a yield, each
// under Wine a wait on the Wine server, on Windows a trip through the
// kernel. A goroutine locked to its thread (runtime.LockOSThread) still
// wakes a thread a yield, as with Gosched: its thread hands the P to
// another, which finds the goroutine and hands the P back. Under Wine the
// echo server waited less a message with goyield at 10,000 connections
// with 1% echoing, and echoed less at 1,000 all echoing, where the threads
// that Gosched woke spread its two goroutines over three threads (the
// CHANGELOG has the figures). An execution trace shows the yield as a
// preemption (Running to Runnable, reason "preempted", with a frame of
// runtime.goyield), not as a Gosched.
//
//go:linkname goyield runtime.goyield
func goyield()

// procPin and procUnpin are the Go runtime's runtime.procPin, which keeps
// the calling goroutine on its P (no preemption) and returns the P's ID, 0
// to GOMAXPROCS-1, and runtime.procUnpin, which ends that. The runtime
// keeps both, their signatures unchanged, for the packages that link to
// them (go.dev/issue/67401); sync and sync/atomic use them too.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// currentP returns the ID of the P the calling goroutine runs on: that of
// the moment of the call, which the goroutine may leave as soon as it
// returns. No system call: the runtime reads it from its own state.
func currentP() int {
	id := procPin()
	procUnpin()
	return id
}

// yielded holds, for each P by its ID, when a poller's call on it last
// yielded (monotonic's time; 0, the program's start, for a P on which
// none has). It grows when GOMAXPROCS does.
var yielded paces

type paces struct {
	mu sync.Mutex // held to grow at
	at atomic.Pointer[[]atomic.Int64]
}

// of returns P id's entry.
func (y *paces) of(id int) *atomic.Int64 {
	if at := y.at.Load(); at != nil && id < len(*at) {
		return &(*at)[id]
	}
	return y.grow(id)
}

// grow makes room for P id, at least GOMAXPROCS entries, and returns its
// entry. A yield recorded in the old table while grow copies it may be
// lost: that P then yields once more than it needed, never once less.
func (y *paces) grow(id int) *atomic.Int64 {
	y.mu.Lock()
	defer y.mu.Unlock()
	var old []atomic.Int64
	if at := y.at.Load(); at != nil {
		old = *at
	}
	if id < len(old) { // grown by another meanwhile
		return &old[id]
	}
	at := make([]atomic.Int64, max(id+1, runtime.GOMAXPROCS(0), 2*len(old)))
	for i := range old {
		at[i].Store(old[i].Load())
	}
	y.at.Store(&at)
	return &at[id]
}

// yield yields the processor if the P the caller runs on has not been
// through a yield for yieldEvery (see there). The poller's calls make it
// without p.mu.
func yield() {
	id := procID()
	if monotonic()-yielded.of(id).Load() < int64(yieldEvery) {
		return
	}
	gosched()
	// The P the goroutine comes back on (mostly the one it left) has
	// run it through the scheduler. One that another P took it from may
	// have found nothing else to run and gone idle, its run count as it
	// was: a goroutine that takes it on its way out of a system call
	// finds it as overdue as before, so it stays due here too.
	yielded.of(procID()).Store(monotonic())
}

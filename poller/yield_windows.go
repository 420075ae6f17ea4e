// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"sync"
	"time"
	_ "unsafe" // for go:linkname

	"golang.org/x/sys/windows"
)

// yieldEvery is how long, at least, a thread that calls the poller goes
// between two yields of its processor (goyield, below): Add, Modify,
// Delete and Wait each start with a yield when their thread has not yielded
// for that long. It is a variable only so that BenchmarkWaitYield can turn
// the yield off (DisableYield, in a _test.go file); nothing else sets it.
//
// Go's runtime preempts a goroutine that has run 10 ms without passing
// through its scheduler, and a goroutine that loops on Wait and handles the
// events with system calls never passes through it. When the preemption
// finds that goroutine in a system call, the runtime takes its processor
// and hands it to another thread, and its monitor thread goes back to
// waking every 20 µs, in timers that under Wine are Wine server requests,
// kernel round trips; from then on each call the goroutine makes while it
// holds the processor without a pass can be taken again. A goroutine that
// calls the poller at least every 5 ms (10 ms less yieldEvery) passes
// through the scheduler at least every 10 ms. A yield makes no system
// call of its own and wakes no thread for an idle P, unless its goroutine
// is locked to its thread (see goyield).
//
// The pace is each thread's, where the runtime's is each processor's. A
// goroutine stays on its thread from one pass through the scheduler to the
// next, so a thread that has not yielded for 5 ms runs a goroutine that
// has not passed for that long at most (it may have passed meanwhile, in a
// way the poller does not see: a yield too many, never one too few). But
// when the runtime has taken the processor in a call, the goroutine may go
// on, without a pass, with another processor, idle until then, whose time
// without a pass the runtime counts from before: the yields make takings
// rare, not impossible. A pace shared by all callers would let each of two
// goroutines that handle events side by side yield only half as often.
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
// at 10,000 connections with 1% echoing under Wine; the README's
// "Connection scale" has one run's counts.
// "scripts/bench.sh yield" runs BenchmarkWaitYield with the yield and
// without it.
var yieldEvery = 5 * time.Millisecond

// staleAfter is how long a thread may go without calling the poller before
// its entry may be given to another thread. A thread that comes back after
// that is entered again as one that has just yielded: its next yield comes
// late, never early.
const staleAfter = time.Second

// gosched, monotonic and threadID are the processor's yield, the pace's
// clock (nanoseconds since the program started) and the calling thread's
// ID. They are variables only so that tests can count the yields, set the
// clock and have a goroutine come back from a yield on another thread
// (yield_test.go).
var (
	gosched   = goyield
	monotonic = func() int64 { return int64(time.Since(programStart)) }
	threadID  = windows.GetCurrentThreadId
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

// yields is the table of the threads that have called the poller lately:
// when each last yielded and last called. It grows to the threads that call
// within staleAfter of each other (an entry is reused once its thread has
// not called for that long), so that no number of threads taking turns
// pushes one another out before their yields come due; New gives it room
// for yieldRoom threads, so that it does not allocate below that.
type yields struct {
	mu      sync.Mutex
	threads []yieldThread
}

// yieldRoom is the threads the table has room for without growing.
const yieldRoom = 32

type yieldThread struct {
	tid      uint32
	yielded  int64 // monotonic's time of its last yield (or its entry)
	lastCall int64 // monotonic's time of its last call
}

// due reports whether thread tid has not yielded for yieldEvery at time
// now, entering it as having yielded now if it is not in the table.
func (y *yields) due(tid uint32, now int64) bool {
	y.mu.Lock()
	defer y.mu.Unlock()
	t := y.find(tid, now)
	return now-t.yielded >= int64(yieldEvery)
}

// passed records that threads a and b (the same, or the thread a yield left
// and the one it came back on) yielded at time now.
func (y *yields) passed(a, b uint32, now int64) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.find(a, now).yielded = now
	if b != a { // mostly the same thread: one look-up
		y.find(b, now).yielded = now
	}
}

// find returns tid's entry, marked as called at now; for a thread not in
// the table, an entry that says it yielded at now: a stale one reused, or a
// new one. y.mu is held.
func (y *yields) find(tid uint32, now int64) *yieldThread {
	stale := -1
	for i := range y.threads {
		t := &y.threads[i]
		if t.tid == tid {
			t.lastCall = now
			return t
		}
		if stale < 0 && now-t.lastCall >= int64(staleAfter) {
			stale = i
		}
	}
	if stale < 0 {
		y.threads = append(y.threads, yieldThread{})
		stale = len(y.threads) - 1
	}
	t := &y.threads[stale]
	*t = yieldThread{tid: tid, yielded: now, lastCall: now}
	return t
}

// yield yields the processor if the calling thread has not for yieldEvery
// (see there). It is called without p.mu.
func (p *Poller) yield() {
	tid := threadID()
	if !p.yields.due(tid, monotonic()) {
		return
	}
	gosched()
	// The goroutine may come back on another thread: both have been
	// through the scheduler.
	p.yields.passed(tid, threadID(), monotonic())
}

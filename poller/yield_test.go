// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// fakeYields sets, until t ends, the yields' clock to the one returned and
// counts the yields by thread, without yielding.
func fakeYields(t *testing.T) (clock *atomic.Int64, yieldsOf func(tid uint32) int) {
	clock = new(atomic.Int64)
	var mu sync.Mutex
	n := map[uint32]int{}
	oldGosched, oldMonotonic := gosched, monotonic
	gosched = func() {
		mu.Lock()
		n[windows.GetCurrentThreadId()]++
		mu.Unlock()
	}
	monotonic = clock.Load
	t.Cleanup(func() { gosched, monotonic = oldGosched, oldMonotonic })
	return clock, func(tid uint32) int {
		mu.Lock()
		defer mu.Unlock()
		return n[tid]
	}
}

// thread runs functions on one thread of its own.
type thread struct {
	run  chan func()
	done chan uint32
}

// newThread starts a thread that ends with t.
func newThread(t *testing.T) *thread {
	th := &thread{make(chan func()), make(chan uint32)}
	go func() {
		runtime.LockOSThread() // for good: the thread ends with the goroutine
		for f := range th.run {
			f()
			th.done <- windows.GetCurrentThreadId()
		}
	}()
	t.Cleanup(func() { close(th.run) })
	return th
}

// do runs f on the thread and returns the thread's ID.
func (th *thread) do(f func()) uint32 {
	th.run <- f
	return <-th.done
}

// TestYieldEachThread checks that each thread that calls the poller yields
// once every yieldEvery of its own, with another thread calling it side by
// side: under one pace for all callers (a table of one entry), the second
// thread would never yield, and the runtime would take its processor. The clock is the test's: a step is 1 ms, each
// thread calls once a step, and a thread is entered at its first call as
// one that has just yielded, so each yields at steps 6, 11 and 16 of 20.
func TestYieldEachThread(t *testing.T) {
	registered := func(t *testing.T, p *Poller, s windows.Handle) {
		if err := p.Add(s, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
	}
	calls := []struct {
		name string
		// prep makes the call possible at each step, on the test's
		// goroutine; call is the call, on the thread.
		prep func(t *testing.T, p *Poller, s windows.Handle, step int)
		call func(p *Poller, s windows.Handle) error
	}{
		{"Wait", nil, func(p *Poller, s windows.Handle) error {
			var events [1]Event
			_, err := p.Wait(events[:], 0)
			return err
		}},
		{"Modify", func(t *testing.T, p *Poller, s windows.Handle, step int) {
			if step == 1 {
				registered(t, p, s)
			}
		}, func(p *Poller, s windows.Handle) error {
			return p.Modify(s, 2, Readable, OneShotLevel) // the key only
		}},
		{"Add", func(t *testing.T, p *Poller, s windows.Handle, step int) {
			if step > 1 {
				if err := p.Delete(s); err != nil {
					t.Fatal(err)
				}
			}
		}, func(p *Poller, s windows.Handle) error {
			return p.Add(s, 1, Readable, OneShotLevel)
		}},
		{"Delete", func(t *testing.T, p *Poller, s windows.Handle, step int) {
			registered(t, p, s)
		}, func(p *Poller, s windows.Handle) error {
			return p.Delete(s)
		}},
	}
	const steps, want = 20, 3
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, p *Poller) {
				clock, yieldsOf := fakeYields(t)
				var threads [2]*thread
				var sockets [2]windows.Handle
				var tids [2]uint32
				for i := range threads {
					threads[i] = newThread(t)
					_, sockets[i] = sockettest.Pair(t)
				}
				for step := 1; step <= steps; step++ {
					clock.Store(int64(step) * int64(time.Millisecond))
					for i, th := range threads {
						if c.prep != nil {
							c.prep(t, p, sockets[i], step)
						}
						var err error
						tids[i] = th.do(func() { err = c.call(p, sockets[i]) })
						if err != nil {
							t.Fatalf("step %d, thread %d: %v", step, i, err)
						}
					}
				}
				for i, tid := range tids {
					if got := yieldsOf(tid); got != want {
						t.Errorf("thread %d yielded %d times in %d ms, want %d (every %v)", i, got, steps, want, yieldEvery)
					}
				}
			})
		})
	}
}

// TestYieldTable checks the table of threads: a thread is due yieldEvery
// after its entry or its last yield, with any number of threads taking
// turns (a table that made room by pushing the most overdue thread out and
// entering the newcomer as just yielded would let none of them yield); an
// entry goes to another thread only once its own has not called for
// staleAfter, and a thread that comes back then is entered again, as just
// yielded: late, never early.
func TestYieldTable(t *testing.T) {
	const ms = int64(time.Millisecond)
	every := int64(yieldEvery)
	y := yields{threads: make([]yieldThread, 0, yieldRoom)}
	const n = 3 * yieldRoom // more than the table has room for
	var now int64
	for round := int64(0); round <= 2*every/ms; round++ {
		now = round * ms
		for tid := range uint32(n) {
			want := round > 0 && round%(every/ms) == 0
			if got := y.due(tid, now); got != want {
				t.Fatalf("thread %d of %d at %d ms: due %v, want %v", tid, n, round, got, want)
			}
			if want {
				y.passed(tid, tid, now)
			}
		}
	}
	if len(y.threads) != n {
		t.Fatalf("%d threads in %d entries", n, len(y.threads))
	}
	// Thread 0 stops calling; the others go on. After staleAfter, a new
	// thread takes thread 0's entry, and is found there at its next call.
	later := now + int64(staleAfter)
	for tid := range uint32(n) {
		if tid > 0 {
			y.due(tid, later)
		}
	}
	if y.due(n, later) || len(y.threads) != n {
		t.Fatalf("a new thread, with thread 0 stale: due at its entry or not in its place (%d entries)", len(y.threads))
	}
	if !y.due(n, later+every) {
		t.Fatalf("the new thread not due %v after its entry", yieldEvery)
	}
	// Thread 0 comes back: entered again, not due until yieldEvery later.
	if y.due(0, later+every) {
		t.Fatal("thread 0, its entry gone, due when it comes back: it would yield early")
	}
	if !y.due(0, later+2*every) {
		t.Fatalf("thread 0, entered again, not due %v later", yieldEvery)
	}
}

// TestYieldOtherThread checks that a yield after which the goroutine comes
// back on another thread counts for both threads: each has been through
// the scheduler. Thread 2, entered at 0, would otherwise be due 4 ms after
// that yield.
func TestYieldOtherThread(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	clock, _ := fakeYields(t)
	oldThreadID := threadID
	t.Cleanup(func() { threadID = oldThreadID })
	on := func(tids ...uint32) { // the thread IDs that the next calls see
		threadID = func() uint32 {
			tid := tids[0]
			if len(tids) > 1 {
				tids = tids[1:]
			}
			return tid
		}
	}
	on(1)
	p.yield() // thread 1 entered at 0
	on(2)
	p.yield() // thread 2 entered at 0
	every := int64(yieldEvery)
	clock.Store(every)
	on(1, 2) // thread 1 yields, and the goroutine comes back on thread 2
	p.yield()
	after := every + 4*int64(time.Millisecond)
	for _, tid := range []uint32{1, 2} {
		if p.yields.due(tid, after) {
			t.Errorf("thread %d due 4 ms after the yield that left thread 1 and came back on 2: it counted for one of them only", tid)
		}
		if !p.yields.due(tid, 2*every) {
			t.Errorf("thread %d not due %v after that yield", tid, yieldEvery)
		}
	}
}

// TestGoyieldYields: the poller's yield (goyield, the runtime's) passes
// through the scheduler: at one P, a goroutine made runnable before it has
// run when it returns (the yielder goes to the tail of the P's queue). A
// goroutine that the pass itself makes runnable (a timer's) may take the
// new one's place ahead of the yielder: a second yield is allowed. A yield
// that did nothing would leave it waiting (the runtime's monitor steps in
// after 10 ms).
func TestGoyieldYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 100 {
		var ran atomic.Bool
		done := make(chan struct{})
		go func() {
			ran.Store(true)
			close(done)
		}()
		goyield()
		if !ran.Load() {
			goyield()
		}
		if !ran.Load() {
			t.Fatal("a goroutine made runnable at one P had not run when two goyields returned")
		}
		<-done
	}
}

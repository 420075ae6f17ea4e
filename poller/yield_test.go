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
// the P that the poller's calls run on to the one onP sets (0 until then),
// with an empty table of the Ps' yields, and counts the yields by that P,
// without yielding.
func fakeYields(t *testing.T) (clock *atomic.Int64, onP func(ids ...int), yieldsOf func(id int) int) {
	clock = new(atomic.Int64)
	var mu sync.Mutex
	n := map[int]int{}
	ids, cur := []int{0}, 0 // cur: the P the last call of procID returned
	oldGosched, oldMonotonic, oldProcID, oldTable := gosched, monotonic, procID, yielded.at.Load()
	// procID returns ids in turn, the last again once the others are used.
	procID = func() int {
		mu.Lock()
		defer mu.Unlock()
		cur = ids[0]
		if len(ids) > 1 {
			ids = ids[1:]
		}
		return cur
	}
	gosched = func() {
		mu.Lock()
		n[cur]++
		mu.Unlock()
	}
	monotonic = clock.Load
	yielded.at.Store(nil)
	t.Cleanup(func() {
		gosched, monotonic, procID = oldGosched, oldMonotonic, oldProcID
		yielded.at.Store(oldTable)
	})
	onP = func(next ...int) {
		mu.Lock()
		ids = next
		mu.Unlock()
	}
	return clock, onP, func(id int) int {
		mu.Lock()
		defer mu.Unlock()
		return n[id]
	}
}

// TestYieldEachP checks that each P on which the poller is called yields
// once every yieldEvery of its own, with calls on another P side by side:
// under one pace for all, the second P would never yield, and the runtime
// would take it. The clock is the test's: a step is 1 ms, the calls on
// each P once a step, and a P on which none has yielded counts from 0, so
// each yields at steps 5, 10, 15 and 20. The second P's ID is beyond
// GOMAXPROCS (as after GOMAXPROCS grows), which the table grows for.
func TestYieldEachP(t *testing.T) {
	registered := func(t *testing.T, p *Poller, s windows.Handle) {
		if err := p.Add(s, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
	}
	calls := []struct {
		name string
		// prep makes the call possible at each step, on no P the test
		// counts.
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
	const steps, want = 20, 4
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, p *Poller) {
				clock, onP, yieldsOf := fakeYields(t)
				ps := [2]int{0, runtime.GOMAXPROCS(0) + 7}
				prepP := ps[1] + 1 // the prep's calls yield on a P of their own
				var sockets [2]windows.Handle
				for i := range sockets {
					_, sockets[i] = sockettest.Pair(t)
				}
				for step := 1; step <= steps; step++ {
					clock.Store(int64(step) * int64(time.Millisecond))
					for i, id := range ps {
						if c.prep != nil {
							onP(prepP)
							c.prep(t, p, sockets[i], step)
						}
						onP(id)
						if err := c.call(p, sockets[i]); err != nil {
							t.Fatalf("step %d, P %d: %v", step, id, err)
						}
					}
				}
				for _, id := range ps {
					if got := yieldsOf(id); got != want {
						t.Errorf("P %d yielded %d times in %d ms, want %d (every %v)", id, got, steps, want, yieldEvery)
					}
				}
			})
		})
	}
}

// TestYieldTable checks the table of the Ps' yields: a P's entry starts at
// 0, grows to any P's ID and keeps what it held when it grows.
func TestYieldTable(t *testing.T) {
	var y paces
	if got := y.of(0).Load(); got != 0 {
		t.Fatalf("a new table's entry holds %d, want 0", got)
	}
	n := len(*y.at.Load())
	if n < runtime.GOMAXPROCS(0) {
		t.Fatalf("a new table has %d entries, fewer than GOMAXPROCS (%d)", n, runtime.GOMAXPROCS(0))
	}
	for id := range n {
		y.of(id).Store(int64(id) + 1)
	}
	big := 4*n + 3
	y.of(big).Store(-1)
	if got := len(*y.at.Load()); got <= big {
		t.Fatalf("the table has %d entries after P %d's", got, big)
	}
	for id := range n {
		if got := y.of(id).Load(); got != int64(id)+1 {
			t.Fatalf("P %d's entry holds %d after the table grew, want %d", id, got, id+1)
		}
	}
	if got := y.of(big).Load(); got != -1 {
		t.Fatalf("P %d's entry holds %d, want -1", big, got)
	}
}

// TestYieldOtherP checks that a yield after which the goroutine comes back
// on another P counts for that P, which ran it through the scheduler, and
// not for the P it left, which may have gone idle with its run count as it
// was. P 2, on which no call has yielded, would otherwise be due at once.
func TestYieldOtherP(t *testing.T) {
	clock, onP, yieldsOf := fakeYields(t)
	every := int64(yieldEvery)
	clock.Store(every)
	onP(1, 2) // a yield on P 1, and the goroutine comes back on P 2
	yield()
	if yieldsOf(1) != 1 {
		t.Fatalf("P 1, due at %v, yielded %d times", yieldEvery, yieldsOf(1))
	}
	// 4 ms later P 1 is due and P 2 is not; yieldEvery later P 2 is.
	for _, at := range []struct {
		clock  int64
		yields [2]int // of P 1 and P 2, after a call on each
		when   string
	}{
		{every + 4*int64(time.Millisecond), [2]int{2, 0}, "4 ms after the yield that left P 1 for P 2"},
		{2 * every, [2]int{2, 1}, yieldEvery.String() + " after the yield that came back on P 2"},
	} {
		clock.Store(at.clock)
		for i, id := range []int{1, 2} {
			onP(id)
			yield()
			if got := yieldsOf(id); got != at.yields[i] {
				t.Errorf("%s: P %d has yielded %d times, want %d", at.when, id, got, at.yields[i])
			}
		}
	}
}

// TestCurrentP checks the P's ID that currentP gives: below GOMAXPROCS,
// and, for two goroutines pinned to their Ps at once, two different IDs. A
// currentP that named no P, or always the same, fails it.
func TestCurrentP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for range 100 {
		if id := currentP(); id < 0 || id >= 2 {
			t.Fatalf("currentP() = %d at GOMAXPROCS=2", id)
		}
	}
	for try := 1; ; try++ {
		a, b, ok := pinnedPair()
		if ok {
			if a == b {
				t.Fatalf("two goroutines pinned at once on P %d and P %d: the same P", a, b)
			}
			return
		}
		if try == 5 {
			t.Fatal("two goroutines at GOMAXPROCS=2 never held a P each at once, in 5 tries of a second")
		}
	}
}

// pinnedPair starts two goroutines that meet, each pin itself (so that
// it stays on its P and nothing else runs there), read currentP and spin
// until the other has pinned too; it returns what they read, and ok if
// both held their Ps at once within a second of pinning. They meet
// unpinned first, so that neither waits pinned, which holds up the
// runtime's stops (a GC's), for the other to be scheduled.
func pinnedPair() (a, b int, ok bool) {
	var met, pinned atomic.Int32
	type got struct {
		id   int
		both bool
	}
	results := make(chan got, 2)
	for range 2 {
		go func() {
			met.Add(1)
			for met.Load() < 2 {
				runtime.Gosched()
			}
			procPin() // held while currentP pins and unpins within
			id := currentP()
			pinned.Add(1)
			for start := time.Now(); pinned.Load() < 2 && time.Since(start) < time.Second; {
			}
			both := pinned.Load() == 2
			procUnpin()
			results <- got{id, both}
		}()
	}
	x, y := <-results, <-results
	return x.id, y.id, x.both && y.both
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

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// TestOneShotGoesToOneWaiter: with several goroutines in Wait, each
// one-shot readiness is delivered exactly once: all 40 come (waiting up to
// eventually), and none comes again in the quiet window after.
func TestOneShotGoesToOneWaiter(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const sockets, waiters = 40, 4
		for i := range sockets {
			client, server := sockettest.Pair(t)
			if err := p.Add(server, uint64(i), Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
			sockettest.Send(t, client, "x")
		}
		var mu sync.Mutex
		seen := make(map[uint64]int)
		var wg sync.WaitGroup
		for range waiters {
			wg.Go(func() {
				events := make([]Event, 4)
				for {
					n, err := p.Wait(events, -1)
					if err != nil {
						return // closed
					}
					mu.Lock()
					for _, e := range events[:n] {
						seen[e.Key]++
					}
					mu.Unlock()
				}
			})
		}
		reported := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(seen)
		}
		for deadline := time.Now().Add(eventually); reported() < sockets && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(quiet) // a second delivery would come now
		p.Close()
		wg.Wait()
		if len(seen) != sockets {
			t.Errorf("%d of %d sockets reported", len(seen), sockets)
		}
		for key, n := range seen {
			if n != 1 {
				t.Errorf("key %d reported %d times", key, n)
			}
		}
	})
}

func TestWaitAllocs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x") // level: every Wait reports it
		expect(t, p, 1, Readable)
		events := make([]Event, 8)
		allocs := testing.AllocsPerRun(50, func() {
			if n, err := p.Wait(events, 5*time.Second); n == 0 || err != nil {
				t.Fatalf("Wait: %d, %v", n, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%.1f allocations a Wait that returns events", allocs)
		}
	})
}

// TestWaitNumberComesRound: 2^32 Waits after a Wait reported socket a
// first, a Wait that takes b's packet and then a's reports both, each
// under its own key. (A Wait numbered in 32 bits had the number of that
// first Wait, and added a's event to b's: b's event was lost.) The two
// packets are queued before the Wait starts, b's first; a Wait that does
// not get them so fails the test as not reaching its case.
func TestWaitNumberComesRound(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		clientA, a := sockettest.Pair(t)
		clientB, b := sockettest.Pair(t)
		for key, s := range []windows.Handle{a, b} {
			if err := p.Add(s, uint64(key), Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
		}
		sockettest.Send(t, clientA, "a")
		expect(t, p, 0, Readable) // in events[0]; a stays readable
		p.mu.Lock()
		p.waits += 1<<32 - 1 // as after 2^32 - 1 more Waits
		p.mu.Unlock()
		// b's packet, then a's, queued before the next Wait takes them.
		sockettest.Send(t, clientB, "b")
		time.Sleep(quiet)
		if err := p.Modify(a, 0, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		time.Sleep(quiet)
		events := make([]Event, 8)
		n, err := p.Wait(events, eventually)
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 || events[0].Key != 1 {
			t.Fatalf("the Wait got %v, not b's packet and then a's: the case was not reached", events[:n])
		}
		if events[0] != (Event{1, Readable}) || events[1] != (Event{0, Readable}) {
			t.Errorf("the Wait reported %v, want b's and then a's Readable, each under its own key", events[:n])
		}
	})
}

// TestOwnKeys: no slot's ID matches a key of the packets the poller posts
// itself, whose low bits are above the highest slot's on every build.
func TestOwnKeys(t *testing.T) {
	for _, key := range []uintptr{wakeKey, closeKey, afdKey} {
		if low := key & indexMask; low <= maxSlots {
			t.Errorf("key %#x: slot %d's ID has its low bits", key, low-1)
		}
	}
}

// TestSlotSize: a registration's slot stays 48 bytes on 64-bit builds
// (doc/benchmarks.md's memory figures count it).
func TestSlotSize(t *testing.T) {
	if size, want := unsafe.Sizeof(slot{}), uintptr(48); unsafe.Sizeof(uintptr(0)) == 8 && size != want {
		t.Errorf("a slot is %d bytes, want %d", size, want)
	}
}

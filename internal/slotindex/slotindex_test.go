// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package slotindex

import (
	"math/rand/v2"
	"testing"
)

// slots is a caller's slots: slot v holds key slots[v].
type slots []uintptr

func (s slots) Key(v int32) uintptr { return s[v] }

// check compares t with want (key to slot), key by key, and probes keys
// that are absent.
func check(t *testing.T, tab *Table, keys slots, want map[uintptr]int32, absent []uintptr) {
	t.Helper()
	if tab.Len() != len(want) {
		t.Fatalf("Len %d, want %d", tab.Len(), len(want))
	}
	for k, v := range want {
		if got, ok := tab.Get(k, keys); !ok || got != v {
			t.Fatalf("Get(%#x) = %d, %v; want %d", k, got, ok, v)
		}
	}
	for _, k := range absent {
		if _, in := want[k]; in {
			continue
		}
		if got, ok := tab.Get(k, keys); ok {
			t.Fatalf("Get(%#x) of an absent key = %d", k, got)
		}
	}
	if n := len(tab.buckets); n != 0 && (n < minBuckets || n&(n-1) != 0 || tab.n*4 > n*3) {
		t.Fatalf("%d buckets for %d slots", n, tab.n)
	}
}

// TestAgainstMap runs random Puts and Deletes, on keys drawn from a few
// kinds (handles: multiples of 4 from a small range, so that runs of
// neighbouring buckets form and are cut by deletes; any bits; the top of
// the range), and compares the table with a map as it goes. Each kind grows
// to hundreds or thousands of keys and is then mostly deleted, in cycles,
// so that the table grows and shrinks.
func TestAgainstMap(t *testing.T) {
	kinds := map[string]func(r *rand.Rand) uintptr{
		"handles":  func(r *rand.Rand) uintptr { return uintptr(4 * (1 + r.IntN(300))) },
		"any bits": func(r *rand.Rand) uintptr { return uintptr(r.Uint64()) },
		"high":     func(r *rand.Rand) uintptr { return ^uintptr(0) - uintptr(4*r.IntN(300)) },
	}
	for name, key := range kinds {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var tab Table
			var keys slots
			want := map[uintptr]int32{}
			var live []uintptr // want's keys, to draw one to delete
			var free []int32
			deletes, shrinks := 0, 0
			for step := range 20000 {
				deleting := step%4000 >= 2500
				switch {
				case len(live) > 0 && (deleting || r.IntN(3) == 0):
					j := r.IntN(len(live))
					k := live[j]
					live[j] = live[len(live)-1]
					live = live[:len(live)-1]
					before := len(tab.buckets)
					if !tab.Delete(k, keys) {
						t.Fatalf("step %d: Delete(%#x) found nothing", step, k)
					}
					if len(tab.buckets) < before {
						shrinks++
					}
					deletes++
					free = append(free, want[k])
					delete(want, k)
				default:
					k := key(r)
					if _, in := want[k]; in {
						continue // Put takes a key that is not in the table
					}
					if tab.Delete(k, keys) {
						t.Fatalf("step %d: Delete(%#x) of an absent key reported one", step, k)
					}
					if deleting {
						continue
					}
					var v int32
					if n := len(free); n > 0 {
						v, free = free[n-1], free[:n-1]
						keys[v] = k
					} else {
						v = int32(len(keys))
						keys = append(keys, k)
					}
					tab.Put(k, v, keys)
					want[k] = v
					live = append(live, k)
				}
				if step%97 == 0 || step%4000 == 3999 {
					check(t, &tab, keys, want, []uintptr{key(r), key(r)})
				}
			}
			check(t, &tab, keys, want, nil)
			if deletes < 1000 || shrinks < 5 {
				t.Fatalf("%d deletes, %d shrinks: the test did not exercise them", deletes, shrinks)
			}
		})
	}
}

// filled returns a table of n slots whose keys are the handles 4, 8, ...
func filled(n int) (*Table, slots) {
	tab := new(Table)
	keys := make(slots, n)
	for v := range keys {
		keys[v] = uintptr(4 * (v + 1))
		tab.Put(keys[v], int32(v), keys)
	}
	return tab, keys
}

func TestGrowAndShrink(t *testing.T) {
	tab, keys := filled(1000)
	if n := len(tab.buckets); n != 2048 {
		t.Fatalf("1,000 slots in %d buckets, want 2,048 (at most three quarters full)", n)
	}
	for v := range 990 {
		if !tab.Delete(keys[v], keys) {
			t.Fatalf("Delete(%#x) found nothing", keys[v])
		}
	}
	if n := len(tab.buckets); n != minBuckets*4 {
		t.Fatalf("10 slots left in %d buckets, want %d", n, minBuckets*4)
	}
	want := map[uintptr]int32{}
	for v := 990; v < 1000; v++ {
		want[keys[v]] = int32(v)
	}
	check(t, tab, keys, want, keys[:990])
	tab.Reset()
	check(t, tab, keys, map[uintptr]int32{}, keys)
}

func TestEmpty(t *testing.T) {
	var tab Table
	if v, ok := tab.Get(4, slots{}); ok {
		t.Fatalf("Get of an empty table: %d", v)
	}
	if tab.Delete(4, slots{}) {
		t.Fatal("Delete of an empty table reported a slot")
	}
}

func TestNoAllocations(t *testing.T) {
	tab, keys := filled(64)
	var k Keys = keys
	got := testing.AllocsPerRun(100, func() {
		tab.Delete(keys[7], k)
		tab.Put(keys[7], 7, k)
		if _, ok := tab.Get(keys[7], k); !ok {
			t.Fatal("lost")
		}
	})
	if got != 0 {
		t.Fatalf("%v allocations a Delete, Put and Get", got)
	}
}

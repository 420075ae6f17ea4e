// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package slotindex finds a slot by its key, for a caller whose slots hold
// their keys already: each bucket of its hash table is a slot number (4
// bytes), and the table asks the caller for a slot's key when it compares.
// A Go map from uintptr keys to int32 values keeps a copy of each key beside
// its value: 16 bytes a map slot and a control byte, where this table has 4.
package slotindex

// Keys gives the key that slot v holds. A slot in the table must hold its
// key until it is deleted.
type Keys interface {
	Key(v int32) uintptr
}

// Table is an open-addressing hash table of slot numbers with linear
// probing. It grows when it is three quarters full and shrinks when it is
// an eighth full. The zero value is empty. It is not safe for concurrent
// use.
type Table struct {
	buckets []int32 // a slot number plus one; 0 is an empty bucket
	n       int
	shift   uint // 64 - log2(len(buckets))
}

const minBuckets = 16

// Len is the number of slots in the table.
func (t *Table) Len() int { return t.n }

// home is the bucket where a probe for k starts. Fibonacci hashing: the
// multiplication spreads dense keys, such as handles that are multiples of
// 4, over the high bits, which it keeps.
func (t *Table) home(k uintptr) int {
	return int(uint64(k) * 0x9E3779B97F4A7C15 >> t.shift)
}

// Get returns the slot that holds k.
func (t *Table) Get(k uintptr, keys Keys) (v int32, ok bool) {
	if t.n == 0 {
		return -1, false
	}
	i, found := t.find(k, keys)
	if !found {
		return -1, false
	}
	return t.buckets[i] - 1, true
}

// find returns the bucket that holds k, or the empty bucket where its
// probe ends.
func (t *Table) find(k uintptr, keys Keys) (int, bool) {
	mask := len(t.buckets) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		b := t.buckets[i]
		if b == 0 {
			return i, false
		}
		if keys.Key(b-1) == k {
			return i, true
		}
	}
}

// Put adds slot v, which holds k. k must not be in the table: a caller
// that may hold it twice calls Get first. v must be at least 0.
func (t *Table) Put(k uintptr, v int32, keys Keys) {
	if (t.n+1)*4 > len(t.buckets)*3 {
		t.resize(max(minBuckets, 2*len(t.buckets)), keys)
	}
	i, _ := t.find(k, keys)
	t.buckets[i] = v + 1
	t.n++
}

// Delete removes the slot that holds k and reports whether there was one.
// The slot must still hold k.
func (t *Table) Delete(k uintptr, keys Keys) bool {
	if t.n == 0 {
		return false
	}
	i, found := t.find(k, keys)
	if !found {
		return false
	}
	// Backward shift: move up each later slot of the run whose probe
	// would pass the hole, so that no probe stops short of its key.
	mask := len(t.buckets) - 1
	for j := (i + 1) & mask; t.buckets[j] != 0; j = (j + 1) & mask {
		h := t.home(keys.Key(t.buckets[j] - 1))
		if (j-h)&mask >= (j-i)&mask { // h is not in (i, j]
			t.buckets[i] = t.buckets[j]
			i = j
		}
	}
	t.buckets[i] = 0
	t.n--
	if len(t.buckets) > minBuckets && t.n*8 < len(t.buckets) {
		t.resize(len(t.buckets)/2, keys)
	}
	return true
}

// Reset empties the table and lets its memory go.
func (t *Table) Reset() { *t = Table{} }

func (t *Table) resize(n int, keys Keys) {
	old := t.buckets
	t.buckets = make([]int32, n)
	t.shift = 64
	for m := n; m > 1; m >>= 1 {
		t.shift--
	}
	for _, b := range old {
		if b != 0 {
			i, _ := t.find(keys.Key(b-1), keys)
			t.buckets[i] = b
		}
	}
}

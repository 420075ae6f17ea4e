// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package blocks

import "testing"

func TestArray(t *testing.T) {
	var a Array[int64]
	if a.Len() != 0 {
		t.Fatalf("empty Len %d", a.Len())
	}
	a.Grow()
	first := a.At(0)
	*first = 7
	for range 10 {
		a.Grow()
	}
	if a.Len() != 11*Size {
		t.Fatalf("Len %d, want %d", a.Len(), 11*Size)
	}
	if a.At(0) != first || *a.At(0) != 7 {
		t.Fatal("element 0 moved or changed when the array grew")
	}
	for i := range a.Len() {
		*a.At(i) += int64(i)
	}
	for i := 1; i < a.Len(); i++ {
		if *a.At(i) != int64(i) {
			t.Fatalf("element %d is %d", i, *a.At(i))
		}
	}
}

func TestAtOutOfRange(t *testing.T) {
	var a Array[byte]
	a.Grow()
	for _, i := range []int{-1, Size} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d) of %d elements did not panic", i, a.Len())
				}
			}()
			a.At(i)
		}()
	}
}

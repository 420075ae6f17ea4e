// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package blocks is an array that grows a block at a time. Its elements
// never move, so the kernel may keep writing to one while the array grows,
// and growing leaves no garbage behind: a slice that doubled to hold N
// elements has left up to N elements' worth of old copies to the garbage
// collector, which stay in the working set, and up to N more of spare
// capacity.
package blocks

// Size is the number of elements in a block.
const Size = 128

// Array is an array of T that grows a block of Size elements at a time.
// The zero value is empty. Its elements keep their addresses for as long
// as the Array is referenced.
type Array[T any] struct {
	blocks []*[Size]T
}

// Len is the number of elements: a multiple of Size.
func (a *Array[T]) Len() int { return len(a.blocks) * Size }

// At returns element i, for 0 <= i < Len; it panics for other i, as an
// index out of range does.
func (a *Array[T]) At(i int) *T { return &a.blocks[i/Size][i%Size] }

// Grow adds a block of zero elements.
func (a *Array[T]) Grow() { a.blocks = append(a.blocks, new([Size]T)) }

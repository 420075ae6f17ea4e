// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		v    fmt.Stringer
		want string
	}{
		{Events(0), "0"},
		{Events(SOCK_NOTIFY_EVENT_IN), "IN"},
		{Events(SOCK_NOTIFY_EVENT_IN | SOCK_NOTIFY_EVENT_HANGUP), "IN|HANGUP"},
		{Events(SOCK_NOTIFY_EVENTS_ALL), "IN|OUT|HANGUP|ERR|REMOVE"},
		{Events(SOCK_NOTIFY_EVENT_REMOVE | 0x100), "REMOVE|0x100"},
		{Events(0x38), "0x38"},
		{Events(0xFFFFFFFF), "IN|OUT|HANGUP|ERR|REMOVE|0xffffff38"},
		{Op(SOCK_NOTIFY_OP_NONE), "NONE"},
		{Op(SOCK_NOTIFY_OP_ENABLE), "ENABLE"},
		{Op(SOCK_NOTIFY_OP_DISABLE), "DISABLE"},
		{Op(SOCK_NOTIFY_OP_REMOVE), "REMOVE"},
		{Op(SOCK_NOTIFY_OP_ENABLE | SOCK_NOTIFY_OP_REMOVE), "ENABLE|REMOVE"},
		{Op(0x80), "0x80"},
		{Trigger(0), "0"},
		{Trigger(SOCK_NOTIFY_TRIGGER_ONESHOT | SOCK_NOTIFY_TRIGGER_LEVEL), "ONESHOT|LEVEL"},
		{Trigger(SOCK_NOTIFY_TRIGGER_ALL), "ONESHOT|PERSISTENT|LEVEL|EDGE"},
		{Trigger(SOCK_NOTIFY_TRIGGER_EDGE | 0xF0), "EDGE|0xf0"},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf("%v", tt.v); got != tt.want {
			t.Errorf("%T(%#x): %%v gives %q, want %q", tt.v, tt.v, got, tt.want)
		}
	}
}

// parseFormat reads back what formatBits wrote, checking its shape: known
// names in table order, each once, then at most one hex number of bits that
// no name covers.
func parseFormat(s string, names []bitName, zero string) (uint64, error) {
	if s == zero {
		return 0, nil
	}
	var v uint64
	next := 0 // names before this index may not appear any more
	parts := strings.Split(s, "|")
	for i, p := range parts {
		if hex, ok := strings.CutPrefix(p, "0x"); ok {
			if i != len(parts)-1 {
				return 0, fmt.Errorf("hex %q before the end", p)
			}
			x, err := strconv.ParseUint(hex, 16, 64)
			if err != nil || x == 0 || strconv.FormatUint(x, 16) != hex {
				return 0, fmt.Errorf("bad hex %q", p)
			}
			for _, n := range names {
				if x&n.bit != 0 {
					return 0, fmt.Errorf("hex %q holds the named bit %s", p, n.name)
				}
			}
			v |= x
			continue
		}
		found := false
		for j := next; j < len(names); j++ {
			if names[j].name == p {
				v |= names[j].bit
				next, found = j+1, true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("%q is not a name, or out of order", p)
		}
	}
	return v, nil
}

func FuzzFormat(f *testing.F) {
	f.Add(uint32(0))
	f.Add(uint32(SOCK_NOTIFY_EVENTS_ALL))
	f.Fuzz(func(t *testing.T, v uint32) {
		for _, c := range []struct {
			s     string
			v     uint64
			names []bitName
			zero  string
		}{
			{Events(v).String(), uint64(v), eventNames, "0"},
			{Op(v).String(), uint64(uint8(v)), opNames, "NONE"},
			{Trigger(v >> 8).String(), uint64(uint8(v >> 8)), triggerNames, "0"},
			{Filter(v >> 16).String(), uint64(uint16(v >> 16)), filterNames, "0"},
		} {
			got, err := parseFormat(c.s, c.names, c.zero)
			if err != nil {
				t.Fatalf("%#x printed as %q: %v", c.v, c.s, err)
			}
			if got != c.v {
				t.Fatalf("%#x printed as %q, which reads back as %#x", c.v, c.s, got)
			}
		}
	})
}

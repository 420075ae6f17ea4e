// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckRegistration(t *testing.T) {
	const (
		in, out, hup       = SOCK_NOTIFY_REGISTER_EVENT_IN, SOCK_NOTIFY_REGISTER_EVENT_OUT, SOCK_NOTIFY_REGISTER_EVENT_HANGUP
		once, keep         = SOCK_NOTIFY_TRIGGER_ONESHOT, SOCK_NOTIFY_TRIGGER_PERSISTENT
		level, edge        = SOCK_NOTIFY_TRIGGER_LEVEL, SOCK_NOTIFY_TRIGGER_EDGE
		enable, off, gone  = SOCK_NOTIFY_OP_ENABLE, SOCK_NOTIFY_OP_DISABLE, SOCK_NOTIFY_OP_REMOVE
		none               = SOCK_NOTIFY_OP_NONE
		errOp, errFilter   = "operation", "event filter"
		errBits, errOnce   = "unknown bits", "ONESHOT and PERSISTENT"
		errLevel, accepted = "LEVEL and EDGE", ""
	)
	tests := []struct {
		name    string
		filter  uint16
		op      uint8
		trigger uint8
		want    string // a part of the error, or "" for none
	}{
		{"persistent level", in | hup, enable, keep | level, accepted},
		{"persistent edge", in, enable, keep | edge, accepted},
		{"oneshot level", in | out | hup, enable, once | level, accepted},
		{"oneshot edge", out, enable, once | edge, accepted},
		{"no events", 0, enable, keep | level, accepted},
		{"disable ignores triggers", in, off, 0, accepted},
		{"remove with no filter", 0, gone, 0, accepted},
		{"dequeue only", 0, none, 0, accepted},
		{"level alone, as the samples pass it", in, enable, level, errOnce},
		{"edge alone", in, enable, edge, errOnce},
		{"oneshot and persistent", in, enable, once | keep | level, errOnce},
		{"level and edge", in, enable, keep | level | edge, errLevel},
		{"no level or edge", in, enable, keep, errLevel},
		{"two operations", in, enable | gone, keep | level, errOp},
		{"unknown operation", in, 0x08, keep | level, errOp},
		{"err in the filter", in | SOCK_NOTIFY_EVENT_ERR, enable, keep | level, errFilter},
		{"remove in the filter", SOCK_NOTIFY_EVENT_REMOVE, enable, keep | level, errFilter},
		{"high filter bits", 0x8000, gone, 0, errFilter},
		{"unknown trigger bits", in, enable, keep | level | 0x10, errBits},
	}
	for _, tt := range tests {
		err := checkRegistration(tt.filter, tt.op, tt.trigger)
		switch {
		case tt.want == accepted && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != accepted && err == nil:
			t.Errorf("%s: accepted", tt.name)
		case err != nil && (!strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalidRegistration)):
			t.Errorf("%s: %v, want an ErrInvalidRegistration about %q", tt.name, err, tt.want)
		}
	}
}

// valid is the rule set spelled out as the accepted values, an oracle for
// checkRegistration written another way.
func valid(filter uint16, op, trigger uint8) bool {
	ops := map[uint8]bool{0x00: true, 0x01: true, 0x02: true, 0x04: true}
	enableTriggers := map[uint8]bool{0x05: true, 0x06: true, 0x09: true, 0x0A: true}
	switch {
	case !ops[op], filter > 0x07, trigger > 0x0F:
		return false
	case op == 0x01:
		return enableTriggers[trigger]
	}
	return true
}

func FuzzCheckRegistration(f *testing.F) {
	f.Add(uint16(SOCK_NOTIFY_REGISTER_EVENT_IN), uint8(SOCK_NOTIFY_OP_ENABLE), uint8(SOCK_NOTIFY_TRIGGER_PERSISTENT|SOCK_NOTIFY_TRIGGER_LEVEL))
	f.Fuzz(func(t *testing.T, filter uint16, op, trigger uint8) {
		err := checkRegistration(filter, op, trigger)
		if want := valid(filter, op, trigger); (err == nil) != want {
			t.Fatalf("filter %#x op %#x trigger %#x: got %v, want valid=%v", filter, op, trigger, err, want)
		}
		if err != nil && !errors.Is(err, ErrInvalidRegistration) {
			t.Fatalf("%v does not match ErrInvalidRegistration", err)
		}
	})
}

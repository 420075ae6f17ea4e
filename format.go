// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"strconv"
	"strings"
)

// Events is a set of SOCK_NOTIFY_EVENT_* bits, as
// SocketNotificationRetrieveEvents returns them (a UINT32); the
// registration's 16-bit filter is a [Filter]. It prints as names joined by
// "|" ("IN|HANGUP"), with unknown bits in hex ("IN|0x100") and no bits as
// "0":
//
//	fmt.Println(sockstate.Events(sockstate.SocketNotificationRetrieveEvents(&entry)))
type Events uint32

// Filter is a set of SOCK_NOTIFY_REGISTER_EVENT_* bits, the type of the
// 16-bit EventFilter field of a registration (UINT16 eventFilter of
// SOCK_NOTIFY_REGISTRATION). It prints as names joined by "|"
// ("IN|HANGUP"), with unknown bits in hex and no bits as "0".
type Filter uint16

// Op is a SOCK_NOTIFY_OP_* value. It prints as its name ("ENABLE"; 0 is
// "NONE"); a value with several bits prints them joined by "|", unknown bits
// in hex.
type Op uint8

// Trigger is a set of SOCK_NOTIFY_TRIGGER_* bits. It prints as names joined
// by "|" ("ONESHOT|LEVEL"), unknown bits in hex, no bits as "0".
type Trigger uint8

type bitName struct {
	bit  uint64
	name string
}

var (
	eventNames = []bitName{
		{SOCK_NOTIFY_EVENT_IN, "IN"},
		{SOCK_NOTIFY_EVENT_OUT, "OUT"},
		{SOCK_NOTIFY_EVENT_HANGUP, "HANGUP"},
		{SOCK_NOTIFY_EVENT_ERR, "ERR"},
		{SOCK_NOTIFY_EVENT_REMOVE, "REMOVE"},
	}
	filterNames = []bitName{
		{SOCK_NOTIFY_REGISTER_EVENT_IN, "IN"},
		{SOCK_NOTIFY_REGISTER_EVENT_OUT, "OUT"},
		{SOCK_NOTIFY_REGISTER_EVENT_HANGUP, "HANGUP"},
	}
	opNames = []bitName{
		{SOCK_NOTIFY_OP_ENABLE, "ENABLE"},
		{SOCK_NOTIFY_OP_DISABLE, "DISABLE"},
		{SOCK_NOTIFY_OP_REMOVE, "REMOVE"},
	}
	triggerNames = []bitName{
		{SOCK_NOTIFY_TRIGGER_ONESHOT, "ONESHOT"},
		{SOCK_NOTIFY_TRIGGER_PERSISTENT, "PERSISTENT"},
		{SOCK_NOTIFY_TRIGGER_LEVEL, "LEVEL"},
		{SOCK_NOTIFY_TRIGGER_EDGE, "EDGE"},
	}
)

func (e Events) String() string  { return formatBits(uint64(e), eventNames, "0") }
func (f Filter) String() string  { return formatBits(uint64(f), filterNames, "0") }
func (o Op) String() string      { return formatBits(uint64(o), opNames, "NONE") }
func (t Trigger) String() string { return formatBits(uint64(t), triggerNames, "0") }

// formatBits names the known bits of v in table order, then appends the
// unknown ones as one hex number.
func formatBits(v uint64, names []bitName, zero string) string {
	if v == 0 {
		return zero
	}
	var b strings.Builder
	for _, n := range names {
		if v&n.bit != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(n.name)
			v &^= n.bit
		}
	}
	if v != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x")
		b.WriteString(strconv.FormatUint(v, 16))
	}
	return b.String()
}

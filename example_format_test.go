// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate_test

import (
	"fmt"

	"github.com/sockstate/sockstate"
)

// The flag types print their bits as names, unknown bits in hex.
func ExampleEvents() {
	fmt.Println(sockstate.Events(sockstate.SOCK_NOTIFY_EVENT_IN | sockstate.SOCK_NOTIFY_EVENT_HANGUP))
	fmt.Println(sockstate.Events(sockstate.SOCK_NOTIFY_EVENT_OUT | 0x100))
	fmt.Println(sockstate.Events(0))
	fmt.Println(sockstate.Filter(sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN | sockstate.SOCK_NOTIFY_REGISTER_EVENT_OUT))
	fmt.Println(sockstate.Op(sockstate.SOCK_NOTIFY_OP_REMOVE), sockstate.Op(sockstate.SOCK_NOTIFY_OP_NONE))
	fmt.Println(sockstate.Trigger(sockstate.SOCK_NOTIFY_TRIGGER_ONESHOT | sockstate.SOCK_NOTIFY_TRIGGER_EDGE))
	// Output:
	// IN|HANGUP
	// OUT|0x100
	// 0
	// IN|OUT
	// REMOVE NONE
	// ONESHOT|EDGE
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrInvalidRegistration is matched (errors.Is) by every error of
// SockNotifyRegistration.Validate.
var ErrInvalidRegistration = errors.New("sockstate: invalid registration")

// checkRegistration applies the rules of winsock2.h and the
// SOCK_NOTIFY_REGISTRATION reference page to the fields of a registration;
// see SockNotifyRegistration.Validate.
func checkRegistration(filter uint16, op, trigger uint8) error {
	switch op {
	case SOCK_NOTIFY_OP_NONE, SOCK_NOTIFY_OP_ENABLE, SOCK_NOTIFY_OP_DISABLE, SOCK_NOTIFY_OP_REMOVE:
	default:
		return fmt.Errorf("%w: operation %v: exactly one of ENABLE, DISABLE and REMOVE, or NONE", ErrInvalidRegistration, Op(op))
	}
	if extra := filter &^ SOCK_NOTIFY_REGISTER_EVENTS_ALL; extra != 0 {
		return fmt.Errorf("%w: event filter %v: only IN, OUT and HANGUP can be registered", ErrInvalidRegistration, Events(filter))
	}
	if extra := trigger &^ SOCK_NOTIFY_TRIGGER_ALL; extra != 0 {
		return fmt.Errorf("%w: trigger flags %v: unknown bits", ErrInvalidRegistration, Trigger(trigger))
	}
	if op != SOCK_NOTIFY_OP_ENABLE {
		return nil
	}
	if bits.OnesCount8(trigger&(SOCK_NOTIFY_TRIGGER_ONESHOT|SOCK_NOTIFY_TRIGGER_PERSISTENT)) != 1 {
		return fmt.Errorf("%w: ENABLE with trigger flags %v: needs exactly one of ONESHOT and PERSISTENT", ErrInvalidRegistration, Trigger(trigger))
	}
	if bits.OnesCount8(trigger&(SOCK_NOTIFY_TRIGGER_LEVEL|SOCK_NOTIFY_TRIGGER_EDGE)) != 1 {
		return fmt.Errorf("%w: ENABLE with trigger flags %v: needs exactly one of LEVEL and EDGE", ErrInvalidRegistration, Trigger(trigger))
	}
	return nil
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

// The SOCK_NOTIFY_* constants of winsock2.h (Windows SDK 10.0.20348 and
// later), under their C names and with their C values. They carry no build
// constraint, so that portable code can name them; the functions that use
// them exist only on Windows.
//
// The constants are untyped, as in golang.org/x/sys/windows, so they fit the
// Filter, Op and Trigger fields of SockNotifyRegistration and the uint32 that
// SocketNotificationRetrieveEvents returns without conversions.

// Event filter bits for SockNotifyRegistration.EventFilter: the socket states
// a registration asks to be told about.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/ns-winsock2-sock_notify_registration
const (
	// SOCK_NOTIFY_REGISTER_EVENT_NONE asks for no notifications.
	SOCK_NOTIFY_REGISTER_EVENT_NONE = 0x00
	// SOCK_NOTIFY_REGISTER_EVENT_IN asks to be told when the socket can be
	// read (or accepted from) without blocking.
	SOCK_NOTIFY_REGISTER_EVENT_IN = 0x01
	// SOCK_NOTIFY_REGISTER_EVENT_OUT asks to be told when the socket can be
	// written without blocking.
	SOCK_NOTIFY_REGISTER_EVENT_OUT = 0x02
	// SOCK_NOTIFY_REGISTER_EVENT_HANGUP asks to be told when a stream
	// connection was closed or aborted by the peer.
	SOCK_NOTIFY_REGISTER_EVENT_HANGUP = 0x04
	// SOCK_NOTIFY_REGISTER_EVENTS_ALL is IN, OUT and HANGUP together.
	SOCK_NOTIFY_REGISTER_EVENTS_ALL = SOCK_NOTIFY_REGISTER_EVENT_IN | SOCK_NOTIFY_REGISTER_EVENT_OUT | SOCK_NOTIFY_REGISTER_EVENT_HANGUP
)

// Event bits of a notification, as SocketNotificationRetrieveEvents returns
// them. ERR and REMOVE can arrive whatever the registration's filter asked
// for; after REMOVE no more notifications come for that registration.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/nf-winsock2-socketnotificationretrieveevents
const (
	// SOCK_NOTIFY_EVENT_IN: the socket can be read without blocking.
	SOCK_NOTIFY_EVENT_IN = SOCK_NOTIFY_REGISTER_EVENT_IN
	// SOCK_NOTIFY_EVENT_OUT: the socket can be written without blocking.
	SOCK_NOTIFY_EVENT_OUT = SOCK_NOTIFY_REGISTER_EVENT_OUT
	// SOCK_NOTIFY_EVENT_HANGUP: the connection has ended.
	SOCK_NOTIFY_EVENT_HANGUP = SOCK_NOTIFY_REGISTER_EVENT_HANGUP
	// SOCK_NOTIFY_EVENT_ERR: the socket is in an error state; a
	// non-blocking receive reports which error.
	SOCK_NOTIFY_EVENT_ERR = 0x40
	// SOCK_NOTIFY_EVENT_REMOVE: the registration is gone, after a
	// SOCK_NOTIFY_OP_REMOVE. Only now may its completion key's resources be
	// freed or reused. Closing the socket removes a registration without
	// this notification.
	SOCK_NOTIFY_EVENT_REMOVE = 0x80
	// SOCK_NOTIFY_EVENTS_ALL is every event bit.
	SOCK_NOTIFY_EVENTS_ALL = SOCK_NOTIFY_REGISTER_EVENTS_ALL | SOCK_NOTIFY_EVENT_ERR | SOCK_NOTIFY_EVENT_REMOVE
)

// Operations for SockNotifyRegistration.Operation. A registration carries one
// operation at a time.
//
// The SOCK_NOTIFY_REGISTRATION reference page says a registration must not be
// enabled again until "the SOCK_NOTIFY_EVENT_DISABLE notification" arrives,
// but winsock2.h defines no such event. This package reads that sentence as:
// notifications queued before a DISABLE may still be delivered after it, and
// only SOCK_NOTIFY_EVENT_REMOVE marks the end of a registration.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/ns-winsock2-sock_notify_registration
const (
	// SOCK_NOTIFY_OP_NONE changes nothing: use it to only dequeue.
	SOCK_NOTIFY_OP_NONE = 0x00
	// SOCK_NOTIFY_OP_ENABLE creates or re-arms a registration. The
	// completion key is taken when the registration is created; to change
	// it, remove the registration and register again.
	SOCK_NOTIFY_OP_ENABLE = 0x01
	// SOCK_NOTIFY_OP_DISABLE stops new notifications but keeps the
	// registration; notifications already queued may still be delivered.
	SOCK_NOTIFY_OP_DISABLE = 0x02
	// SOCK_NOTIFY_OP_REMOVE deletes the registration; a
	// SOCK_NOTIFY_EVENT_REMOVE notification follows.
	SOCK_NOTIFY_OP_REMOVE = 0x04
)

// Trigger flags for SockNotifyRegistration.TriggerFlags.
//
// The SOCK_NOTIFY_REGISTRATION reference page requires exactly one of LEVEL
// and EDGE and is silent on ONESHOT and PERSISTENT; winsock2.h states no rule
// at all; the samples on Microsoft's "Winsock socket state notifications" page
// pass LEVEL or EDGE alone in two places and ONESHOT|LEVEL or
// PERSISTENT|LEVEL in others. The calls of this package pass trigger flags to
// the OS unchanged, so that the OS alone decides what it accepts (each
// registration's RegistrationResult says so); write both halves, one of
// ONESHOT and PERSISTENT and one of LEVEL and EDGE, to mean exactly what you
// ask for.
//
// Reference: https://learn.microsoft.com/windows/win32/api/winsock2/ns-winsock2-sock_notify_registration
const (
	// SOCK_NOTIFY_TRIGGER_ONESHOT disables the registration after one
	// notification; re-arm it with SOCK_NOTIFY_OP_ENABLE. With several
	// goroutines dequeuing, one-shot gives each readiness to one of them.
	SOCK_NOTIFY_TRIGGER_ONESHOT = 0x01
	// SOCK_NOTIFY_TRIGGER_PERSISTENT keeps the registration enabled after
	// each notification.
	SOCK_NOTIFY_TRIGGER_PERSISTENT = 0x02
	// SOCK_NOTIFY_TRIGGER_LEVEL notifies while the state holds.
	SOCK_NOTIFY_TRIGGER_LEVEL = 0x04
	// SOCK_NOTIFY_TRIGGER_EDGE notifies when the state starts to hold; the
	// socket must be drained until WSAEWOULDBLOCK before another edge can be
	// seen, so it suits non-blocking sockets only.
	SOCK_NOTIFY_TRIGGER_EDGE = 0x08
	// SOCK_NOTIFY_TRIGGER_ALL is every trigger flag.
	SOCK_NOTIFY_TRIGGER_ALL = SOCK_NOTIFY_TRIGGER_ONESHOT | SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_LEVEL | SOCK_NOTIFY_TRIGGER_EDGE
)

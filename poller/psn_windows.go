// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
)

// psn is the ProcessSocketNotifications backend: the OS keeps the trigger
// modes itself, and a slot is freed on its SOCK_NOTIFY_EVENT_REMOVE.
type psn struct {
	p *Poller
	// rearm holds the IDs of Level slots reported since the last Wait.
	// Whether Windows reports a level condition again after a dequeue with
	// no I/O between is not known (testdata/psnmodel/SPEC.md, switch
	// "level"), so the next Wait enables them again, in one call: the
	// condition is then reported if it still holds, as Level promises.
	rearm []uintptr
	regs  []sockstate.SockNotifyRegistration // flush's batch, reused
	// refuse, set only by tests, is a seam: an error it returns for an
	// operation is the OS's refusal of a registration call, which is then
	// not made.
	refuse func(op sockstate.Op) error
}

// baseHandle: ProcessSocketNotifications takes the socket itself.
func (b *psn) baseHandle(windows.Handle) (windows.Handle, error) { return 0, nil }

// arm makes its call itself, under the poller's lock: an ENABLE made
// without it could reach the OS after a REMOVE of the same socket, and
// register it again for good.
func (b *psn) arm(i int32) (armCall, error) { return armCall{}, b.enable(i) }

// enable enables slot i with its interest and mode.
func (b *psn) enable(i int32) error {
	err := b.apply(b.registration(i))
	if errors.Is(err, windows.WSAEINVAL) {
		// The poller's filter and trigger flags are valid: what the OS
		// refuses is the socket's tie to another completion port.
		return fmt.Errorf("poller: ProcessSocketNotifications refused socket %#x, which is tied to another "+
			"completion port (as every socket of Go's net package is, to the runtime's): register a plain "+
			"Winsock socket, or use the AFD backend: %w", uintptr(b.p.at(i).socket), err)
	}
	return err
}

// registration is the ENABLE of slot i with its interest and mode.
func (b *psn) registration(i int32) sockstate.SockNotifyRegistration {
	sl := b.p.at(i)
	return sockstate.SockNotifyRegistration{
		Socket:        sl.socket,
		CompletionKey: b.p.id(i),
		EventFilter:   sockNotifyFilter(sl.interest),
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockNotifyTrigger(sl.mode),
	}
}

func (b *psn) remove(i int32) (bool, error) {
	sl := b.p.at(i)
	err := b.apply(sockstate.SockNotifyRegistration{Socket: sl.socket, CompletionKey: b.p.id(i), Operation: sockstate.SOCK_NOTIFY_OP_REMOVE})
	if gone(err) {
		// The OS has no such registration: the socket was closed, which
		// removed it silently. Nothing will come; free the slot now.
		return true, nil
	}
	// On success SOCK_NOTIFY_EVENT_REMOVE will free the slot; refused for
	// another reason, the registration stands.
	return false, err
}

// gone reports whether the OS refused a REMOVE because the socket is no
// longer there. Where it says so is not known (SPEC.md, switch
// "remove_closed"): in the registration's result, or for the whole call.
func gone(err error) bool {
	if err == nil {
		return false // and no allocation for errors.As's target
	}
	var refused *sockstate.RegistrationError
	return errors.As(err, &refused) || errors.Is(err, windows.WSAENOTSOCK) || errors.Is(err, windows.ERROR_INVALID_HANDLE)
}

func (b *psn) apply(reg sockstate.SockNotifyRegistration) error {
	if b.refuse != nil {
		if err := b.refuse(reg.Operation); err != nil {
			return err
		}
	}
	regs := [1]sockstate.SockNotifyRegistration{reg}
	_, err := sockstate.Process(b.p.port, regs[:], nil, 0)
	return err
}

func (b *psn) translate(e sockstate.OverlappedEntry) (Event, int32, bool) {
	i, sl := b.p.lookup(e.CompletionKey)
	if sl == nil {
		return Event{}, -1, false // a packet of a registration that is gone
	}
	if e.NumberOfBytesTransferred&sockstate.SOCK_NOTIFY_EVENT_REMOVE != 0 {
		if sl.state == slotDeleting {
			b.p.release(i)
		}
		return Event{}, -1, false
	}
	if sl.state != slotActive {
		return Event{}, -1, false
	}
	ev := fromSockNotify(e.NumberOfBytesTransferred) & (sl.interest | Error)
	if sl.mode.oneShot() {
		if !sl.armed {
			// Reported since its last arming. A Modify of a one-shot
			// registration whose packet is still in the port arms it
			// again, so two packets can follow one arming: whichever comes
			// first is its report, and a later one goes.
			return Event{}, -1, false
		}
		sl.armed = false
		if ev == 0 {
			// Fired for nothing the caller wants: re-arm it ourselves. If
			// the OS refuses, it stays disarmed until Modify, which makes
			// the call again (a packet of the same arming still queued
			// then goes, as after a report).
			if err := b.enable(i); err == nil {
				sl.armed = true
			}
		}
	}
	if ev == 0 {
		return Event{}, -1, false
	}
	if sl.mode == Level {
		b.rearm = append(b.rearm, e.CompletionKey)
	}
	return Event{Key: sl.key, Events: ev}, i, true
}

func (b *psn) toRearm() int { return len(b.rearm) }

// flush enables the Level slots reported since the last Wait again, in one
// call under the poller's lock (an ENABLE must not overtake a REMOVE); a
// refusal leaves the slot to Delete or Close. It leaves no call.
func (b *psn) flush() (armCall, bool) {
	b.regs = b.regs[:0]
	for _, id := range b.rearm {
		i, sl := b.p.lookup(id)
		if sl == nil || sl.state != slotActive || sl.mode != Level {
			continue // deleted or changed since
		}
		b.regs = append(b.regs, b.registration(i))
	}
	b.rearm = b.rearm[:0]
	if len(b.regs) > 0 {
		sockstate.Process(b.p.port, b.regs, nil, 0)
	}
	return armCall{}, false
}

func (b *psn) close() {}

func sockNotifyFilter(i Interest) sockstate.Filter {
	var f sockstate.Filter
	if i&Readable != 0 {
		f |= sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN
	}
	if i&Writable != 0 {
		f |= sockstate.SOCK_NOTIFY_REGISTER_EVENT_OUT
	}
	if i&HangUp != 0 {
		f |= sockstate.SOCK_NOTIFY_REGISTER_EVENT_HANGUP
	}
	return f
}

func sockNotifyTrigger(m Mode) sockstate.Trigger {
	switch m {
	case Edge:
		return sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT | sockstate.SOCK_NOTIFY_TRIGGER_EDGE
	case OneShotLevel:
		return sockstate.SOCK_NOTIFY_TRIGGER_ONESHOT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL
	case OneShotEdge:
		return sockstate.SOCK_NOTIFY_TRIGGER_ONESHOT | sockstate.SOCK_NOTIFY_TRIGGER_EDGE
	}
	return sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL
}

func fromSockNotify(events uint32) Interest {
	var i Interest
	if events&sockstate.SOCK_NOTIFY_EVENT_IN != 0 {
		i |= Readable
	}
	if events&sockstate.SOCK_NOTIFY_EVENT_OUT != 0 {
		i |= Writable
	}
	if events&sockstate.SOCK_NOTIFY_EVENT_HANGUP != 0 {
		i |= HangUp
	}
	if events&sockstate.SOCK_NOTIFY_EVENT_ERR != 0 {
		i |= Error
	}
	return i
}

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
	rearm    []uintptr
	regs     []sockstate.SockNotifyRegistration // flush's and close's batch, reused
	refusals []refusal                          // processBatch's, reused
	// refuse, set only by tests, is a seam: an error it returns for the
	// operation of a call's first registration is the OS's refusal of the
	// call, which is then not made.
	refuse func(op sockstate.Op) error
}

// baseHandle: ProcessSocketNotifications takes the socket itself.
func (b *psn) baseHandle(Socket) (windows.Handle, error) { return 0, nil }

// arm enables slot i with its interest and mode, under the poller's lock,
// as every call of this backend is: an ENABLE made without it could reach
// the OS after a REMOVE of the same socket, and register it again for good.
func (b *psn) arm(i int32) error {
	err := b.apply(b.registration(i))
	if err == nil {
		return nil
	}
	s := uintptr(b.p.at(i).socket)
	if refusedWith(err, windows.WSAEINVAL) {
		// The poller's filter and trigger flags are valid, and the
		// operation is ENABLE: of the causes of WSAEINVAL in the entry,
		// what is left is the socket's tie to another completion port
		// (D4: a socket is "registered with an I/O completion port only
		// once"; the reference model's switch tied_socket=refuse).
		return fmt.Errorf("poller: ProcessSocketNotifications refused socket %#x, most likely because it is "+
			"tied to another completion port (as every socket of Go's net package is, to the runtime's): "+
			"register a plain Winsock socket, or use the AFD backend: %w", s, err)
	}
	return fmt.Errorf("poller: ProcessSocketNotifications refused to enable socket %#x: %w", s, err)
}

// refusedWith reports whether err is a refusal of a registration in its
// own entry (the call itself succeeded) with code.
func refusedWith(err error, code windows.Errno) bool {
	var refused *sockstate.RegistrationError
	return errors.As(err, &refused) && refused.Failures[0].Err == code
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
	err := b.apply(b.removal(i))
	if err == nil {
		return false, nil // SOCK_NOTIFY_EVENT_REMOVE will free the slot
	}
	if gone(err) {
		// The OS has no such registration: the socket was closed, which
		// removed it silently. Nothing will come; free the slot now.
		return true, nil
	}
	// Refused for another reason, the registration stands: its packets
	// still come under the slot's ID, which must stay the socket's.
	return false, fmt.Errorf("poller: ProcessSocketNotifications refused to remove socket %#x: %w", uintptr(b.p.at(i).socket), err)
}

// removal is the REMOVE of slot i.
func (b *psn) removal(i int32) sockstate.SockNotifyRegistration {
	return sockstate.SockNotifyRegistration{Socket: b.p.at(i).socket, CompletionKey: b.p.id(i), Operation: sockstate.SOCK_NOTIFY_OP_REMOVE}
}

// gone reports whether the OS refused a REMOVE because the socket has no
// registration any more: closed, it is no socket (WSAENOTSOCK: SPEC.md
// B15, in the entry or, under the switch remove_closed=call, for the whole
// call); its handle reused by a new socket, that one has none (WSAEINVAL in
// the entry, B19). Any other refusal, and an error of the whole call but
// WSAENOTSOCK (the OS applied nothing), leaves the registration standing.
func gone(err error) bool {
	return refusedWith(err, windows.WSAEINVAL) || errors.Is(err, windows.WSAENOTSOCK)
}

// apply makes one registration.
func (b *psn) apply(reg sockstate.SockNotifyRegistration) error {
	regs := [1]sockstate.SockNotifyRegistration{reg}
	return b.process(regs[:])
}

// process makes the registrations regs in one call.
func (b *psn) process(regs []sockstate.SockNotifyRegistration) error {
	if b.refuse != nil {
		if err := b.refuse(regs[0].Operation); err != nil {
			return err
		}
	}
	_, err := sockstate.Process(b.p.port, regs, nil, 0)
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
			if err := b.arm(i); err == nil {
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

// flush enables the Level slots reported since the last Wait again, in one
// call under the poller's lock (an ENABLE must not overtake a REMOVE). A
// refusal leaves the registration as the OS holds it, reporting the
// socket's readiness as its level trigger does; the slot stays to re-arm
// at the next Wait, unless the socket has no registration any more
// (gone), whose slot waits for Delete or Close.
func (b *psn) flush() {
	b.regs = b.regs[:0]
	for _, id := range b.rearm {
		if i, sl := b.p.lookup(id); sl != nil && sl.state == slotActive && sl.mode == Level {
			b.regs = append(b.regs, b.registration(i))
		}
	}
	b.rearm = b.rearm[:0]
	for _, r := range b.processBatch() {
		if !gone(r.err) {
			b.rearm = append(b.rearm, b.regs[r.k].CompletionKey)
		}
	}
}

// refusal is a registration of b.regs that the OS did not apply: its index
// and the error, its entry's or the whole call's.
type refusal struct {
	k   int
	err error
}

// processBatch makes the registrations of b.regs in one call and returns
// those the OS refused (in a slice it reuses). A call refused as a whole
// applied nothing; where one closed socket is enough for that (WSAENOTSOCK
// for the call, SPEC.md B15 and its switch remove_closed), the
// registrations are made again one at a time, so that the others are
// applied.
func (b *psn) processBatch() []refusal {
	if len(b.regs) == 0 {
		return nil
	}
	err := b.process(b.regs)
	if err == nil {
		return nil
	}
	return b.refusalsOf(err)
}

// refusalsOf turns processBatch's error into refusals. (A function of its
// own: errors.As's target would cost every batch an allocation.)
func (b *psn) refusalsOf(err error) []refusal {
	b.refusals = b.refusals[:0]
	var refused *sockstate.RegistrationError
	switch {
	case errors.As(err, &refused):
		for _, f := range refused.Failures {
			one := &sockstate.RegistrationError{Failures: []sockstate.RegistrationFailure{f}}
			b.refusals = append(b.refusals, refusal{f.Index, one})
		}
	case errors.Is(err, windows.WSAENOTSOCK) && len(b.regs) > 1:
		for k, r := range b.regs {
			if err := b.apply(r); err != nil {
				b.refusals = append(b.refusals, refusal{k, err})
			}
		}
	default:
		for k := range b.regs {
			b.refusals = append(b.refusals, refusal{k, err})
		}
	}
	return b.refusals
}

// close removes every registration in one call (processBatch). The port
// is closed next, and the slots with it: no REMOVE packet is waited for,
// and the REMOVE of a socket that has no registration any more (gone) is
// no error.
func (b *psn) close() error {
	b.regs = b.regs[:0]
	for i := range b.p.used {
		if b.p.at(i).state == slotActive {
			b.regs = append(b.regs, b.removal(i))
		}
	}
	for _, r := range b.processBatch() {
		if !gone(r.err) {
			return r.err
		}
	}
	return nil
}

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

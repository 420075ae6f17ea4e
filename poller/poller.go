// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"fmt"
	"time"
)

// Poller is a readiness poller: a set of registrations, each a socket with
// a key, an [Interest] and a [Mode], and the Waits that report their
// events. Make one with [New]; its zero value is not usable.
//
// Lifecycle: Add a socket (or AddConn a connection), Wait for its events,
// Modify it to change its key, interest or mode or to re-arm a one-shot
// registration, and Delete it before the socket is closed. Close the
// Poller when done: it releases every Wait, removes every registration
// and frees the OS's resources; the sockets stay open, as they are the
// caller's. After Close every method returns [ErrClosed].
//
// Concurrency: every method may be called from several goroutines at
// once. Several goroutines may Wait at once: each event goes to one of
// them (a Level registration that stays ready may be reported to several,
// one after another: see [Level]); [Poller.Wake] releases one Wait. Add,
// Modify, Delete and Wake return at once, also while other goroutines
// Wait, and what they change holds for every Wait that starts after they
// return; a Wait under way may still return an event it took just before.
type Poller struct {
	state // the backend's, by system
}

// New returns a Poller on the backend that WithBackend forces, or else on
// the first this system has: Epoll on Linux; SocketNotifications, then AFD,
// on Windows. A backend of another system, and every backend on a system
// with none, give an error matching errors.ErrUnsupported; on Windows, a
// forced SocketNotifications that this Windows lacks gives one matching
// sockstate.ErrNotSupported.
func New(opts ...Option) (*Poller, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.backend > Epoll {
		return nil, fmt.Errorf("poller: unknown backend %v", c.backend)
	}
	return newPoller(c)
}

// Backend reports the backend in use.
func (p *Poller) Backend() Backend { return p.backendOf() }

// Add registers socket s under key with an interest and a mode. A socket
// that is registered already is refused with an error matching
// ErrAlreadyRegistered, as epoll refuses it with EEXIST: a second Add is
// usually a slip in the caller's bookkeeping; Modify is the way to change
// a registration. The poller keeps the socket's number, never a duplicate
// of it. A socket closed without Delete may keep its number registered
// on Windows, and Add refuses it until Delete; on Linux the kernel has
// dropped it (unless another descriptor of the socket is open), and Add
// of the number takes the stale registration's place (see Delete).
func (p *Poller) Add(s Socket, key uint64, interest Interest, mode Mode) error {
	return p.add(s, key, interest, mode)
}

// Modify changes the key, interest or mode of socket s, and re-arms a
// one-shot registration that has fired. Changing only the key of an armed
// registration makes no system call. If it returns an error, the
// registration is as it was: its key, interest and mode, armed or not;
// but on Linux a registration whose descriptor was closed without Delete
// is dropped, and the error matches ErrNotRegistered.
func (p *Poller) Modify(s Socket, key uint64, interest Interest, mode Mode) error {
	return p.modify(s, key, interest, mode)
}

// Delete removes socket s. It returns at once, also while other goroutines
// Wait. No Wait that starts after Delete returns reports s, and no event
// of s that a Wait under way takes from the OS after Delete has begun
// reaches the caller (one that a Wait took just before may still be
// returned). If the OS refuses the removal for a reason other than a
// socket that is gone, Delete returns its error and s stays registered:
// the call may be made again.
//
// Call it before closing the socket. A socket closed without Delete is
// noticed by the poller only where the package doc's differences say so;
// until then its number stays registered. So after closing a socket
// without Delete, call Delete with its number before adding a socket that
// may have been given it: Delete returns nil, or ErrNotRegistered if the
// poller has noticed the close already.
func (p *Poller) Delete(s Socket) error { return p.delete(s) }

// Wait waits up to timeout (forever if negative) for events, fills events
// with them and returns how many. It blocks at most once: after the first
// events arrive it takes whatever else the OS has ready already, without
// waiting, until events is full, so a Wait is not limited to one batch of
// the OS, and a registration that comes again in one Wait is one event.
// It returns 0 and a nil error on a timeout, n (maybe 0) and a nil error
// when a Wake releases it, and ErrClosed once the poller is closed. A
// timeout is rounded up to the OS's milliseconds, so that a short one is
// not a busy poll, and a signal that interrupts the OS's wait is not a
// timeout. events must have room for one event at least. It does not
// allocate.
func (p *Poller) Wait(events []Event, timeout time.Duration) (int, error) {
	return p.wait(events, timeout)
}

// Wake makes one Wait return at once (with the events it has, maybe none):
// k Wakes release k Waits, those that are blocked and, for the rest, the
// next ones to start. One Wake per goroutine is a way to stop them.
func (p *Poller) Wake() error { return p.wake() }

// Close wakes every Wait, which returns ErrClosed, waits for them to
// return, removes every registration and releases the poller's handles.
// The sockets stay open: they are the caller's. On AFD, the kernel writes
// to the poller's memory until each poll it has out comes back: Close
// cancels each and waits for it, which takes no time unless the port
// fails or the kernel does not answer; after 10 seconds it returns anyway
// (and keeps that memory for the life of the process).
func (p *Poller) Close() error { return p.close() }

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

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

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package poller

// The differences between the backends that the package doc lists (doc.go,
// "Differences between the backends"), as the state-machine runner and its
// model owe them: what a backend promises beyond the others. Where the doc
// names no difference, every backend is owed the same.
type differences struct {
	// edgeEveryArrival: Edge reports each new arrival (data, the peer's
	// shutdown or reset), also with data still unread, not only after a
	// drain (epoll).
	edgeEveryArrival bool
	// edgeAtModify: a Modify to Edge of a socket that is ready already
	// reports it at once (epoll and AFD; ProcessSocketNotifications waits
	// for the next change).
	edgeAtModify bool
	// readyAtArm: an Add too, and an Add or Modify to OneShotEdge, of a
	// ready socket reports it at once (epoll: epoll_ctl polls the socket;
	// epoll's rule, where the package doc names a Modify to Edge only).
	readyAtArm bool
	// resetBits: a reset reports Error, and Readable, Writable and HangUp
	// if they are asked for, until its error is read; then Readable and
	// HangUp if they are asked for (epoll).
	resetBits bool
	// closeDrops: a socket closed without Delete (with no other
	// descriptor) leaves the OS's registrations at once: no Wait that
	// starts after the close reports it, Delete of its number returns nil,
	// and Add of the number succeeds and takes the stale registration's
	// place (epoll).
	closeDrops bool
}

func differencesOf(b Backend) differences {
	switch b {
	case Epoll:
		return differences{edgeEveryArrival: true, edgeAtModify: true, readyAtArm: true, resetBits: true, closeDrops: true}
	case AFD:
		return differences{edgeAtModify: true}
	}
	return differences{}
}

// reportsAtArm reports whether a successful Add or Modify (kind) to mode
// of a socket that is ready reports it at once.
func (d differences) reportsAtArm(kind opKind, mode Mode) bool {
	switch {
	case d.readyAtArm:
		return mode == Edge || mode == OneShotEdge
	case d.edgeAtModify:
		return kind == opModify && mode == Edge
	}
	return false
}

// owedBits returns what an event of f's registration reg must carry if it
// is reported now (anyBits: any event): what f is (ready), or what the
// backend reports of a reset.
func (r *runner) owedBits(f *fixture, reg *registration) Interest {
	bits := f.ready() & reg.interest
	switch {
	case !f.reset:
	case r.d.resetBits && !f.resetSeen:
		bits = Error | reg.interest&(Readable|Writable|HangUp)
	case r.d.resetBits:
		bits = reg.interest & (Readable | HangUp)
	case !f.resetSeen && (reg.interest&(Readable|HangUp) != 0 || reg.interest&Error != 0 && reg.armStart < f.resetAt):
		// A reset owes an event to Readable and HangUp (the peer reset
		// the connection), and to Error alone if registered before it:
		// whether an ENABLE of a socket reset already reports the error
		// the doc does not say.
		bits = anyBits
	}
	return bits
}

// armedReady records what a successful Add or Modify (kind) of f's
// registration, which began after tick t0 and made a system call (not a
// Modify of the key alone), owes on a backend that reports a ready socket
// at once.
func (r *runner) armedReady(f *fixture, kind opKind, t0 int64) {
	reg := f.reg
	if !r.d.reportsAtArm(kind, reg.mode) {
		return
	}
	switch bits := r.owedBits(f, reg); {
	case bits == 0:
	case reg.mode == Edge:
		r.m.owe(reg, bits, t0, false, "an Add or Modify to Edge of a ready socket")
	default:
		r.m.owe(reg, anyBits, t0, false, "an arming of a ready socket (one-shot: any event)")
	}
}

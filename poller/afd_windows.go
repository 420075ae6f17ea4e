// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/afd"
)

// afdSlot is a slot's AFD state but for its base handle (slot.base, kept
// apart so that the slot has no padding). Slot i's Poll is
// afdBackend.polls.At(i): the kernel writes it from its start until its
// packet is dequeued, so it stays with the index, and a slot is freed only
// after its poll has come back and every start of it is settled (free): a
// start names its slot by index, and its poll by an ID whose generation a
// reused slot would wrap after 256 reuses on 32-bit builds.
type afdSlot struct {
	inflight bool  // a poll is out, or prepared for a caller to start
	resubmit bool  // the poll out was cancelled to change it: submit anew
	starting uint8 // polls prepared by arm whose callers have not settled them
	cancel   bool  // cancel the poll once started: wanted while starting
}

// armCall is a poll that arm prepared and left to its caller (Add, Modify,
// or Wait re-arming Level and Edge sockets) to start once it has released
// the poller's lock, and to settle with the lock held again: the system
// call then blocks no other goroutine's Wait, Modify or Add. (Under Wine
// at 10,000 connections, the call waits for a CPU the wineserver keeps
// busy, and a lock held across it made the echo server's goroutines queue
// for it.) Another goroutine's Wait may dequeue the poll's packet before
// the call returns: the kernel is done with the poll's memory once it has
// queued the packet. The zero value is no call.
type armCall struct {
	b    *afdBackend
	i    int32 // the slot, not freed until this call is settled
	poll *afd.Poll
	id   uintptr
	// What a failed start puts back: the registration before a Modify
	// (prev), or none (forget: the slot is freed): after an Add, and after
	// a Wait's re-arm, as when translate's poll again is refused.
	forget bool
	prev   settings
}

// settings are what a Modify changes.
type settings struct {
	key      uint64
	interest Interest
	mode     Mode
	armed    bool
}

// start makes the call, without the poller's lock.
func (c armCall) start() error { return c.b.dev.Start(c.poll, c.id) }

// afdBackend polls each socket with its own IOCTL_AFD_POLL request. A poll
// completes once, so Level and Edge submit it again after every event, and
// the one-shot modes wait for Modify.
type afdBackend struct {
	p        *Poller
	dev      *afd.Device
	polls    afd.Polls // slot i's poll is polls.At(i)
	inflight int       // polls out, whose packets have not been dequeued
	// rearm[rearmAt:] are the IDs of Level and Edge slots to poll again
	// before a later Wait blocks, oldest first. What a failed Modify puts
	// back, or a set-aside leaves, wakes a Wait under way to re-arm it
	// (wakeToRearm), if there is one.
	rearm   []uintptr
	rearmAt int
}

func newAFD(p *Poller) (*afdBackend, error) {
	dev, err := afd.Open(p.port, afdKey)
	if err != nil {
		return nil, err
	}
	return &afdBackend{p: p, dev: dev}, nil
}

func (b *afdBackend) baseHandle(s windows.Handle) (windows.Handle, error) {
	return afd.BaseHandle(s)
}

func (b *afdBackend) arm(i int32) (armCall, error) {
	sl := b.p.at(i)
	if sl.afd.inflight {
		// The poll out asks for the old interest: cancel it, and submit
		// the new one when it comes back.
		if err := b.cancel(i); err != nil {
			return armCall{}, err // the old poll stays out, and is the registration
		}
		sl.afd.resubmit = true
		return armCall{}, nil
	}
	if sl.afd.starting == math.MaxUint8 {
		// Each start's settle counts it down: one more would wrap.
		return armCall{}, fmt.Errorf("poller: %d starts of one socket's poll under way at once", sl.afd.starting)
	}
	poll := b.polls.At(int(i))
	poll.Prepare(sl.base, afdEvents(sl.interest))
	sl.afd.inflight = true
	sl.afd.starting++
	b.inflight++
	return armCall{b: b, i: i, poll: poll, id: b.p.id(i)}, nil
}

// settle takes back a call of arm that its caller has made, with result
// err. A Delete or Modify that came meanwhile left the cancel of the poll
// to its last starter, which cancels it now (a refusal, which no caller
// can be told of, leaves the poll out until the socket has an event or
// closes; what the Delete or Modify asked for is done then). If the poll
// did not start, nothing will come back for it: what a Delete or Modify
// left is done now, and the Modify's interest stands (settle returns nil,
// as if this call had succeeded before it); else the slot is put back as
// it was before the call. A slot whose freeing waited for this call is
// freed.
func (b *afdBackend) settle(c armCall, err error) error {
	i, sl := c.i, b.p.at(c.i)
	if sl.afd.starting == math.MaxUint8 {
		b.p.wakeToRearm() // a Wait may have set it aside (flush)
	}
	sl.afd.starting--
	if err == nil {
		switch {
		case sl.afd.starting > 0:
		case sl.afd.cancel && sl.afd.inflight:
			sl.afd.cancel = false
			b.dev.Cancel(c.poll)
		case sl.state == slotDeleting && !sl.afd.inflight:
			b.p.release(i) // its poll came back during the call (free)
		}
		return nil
	}
	sl.afd.inflight = false
	sl.afd.cancel = false
	b.inflight--
	if b.finish(i) {
		if sl.state == slotActive && sl.afd.inflight {
			return nil
		}
		return err
	}
	if c.forget {
		b.forget(i)
		return err
	}
	sl.key, sl.interest, sl.mode, sl.armed = c.prev.key, c.prev.interest, c.prev.mode, c.prev.armed
	if sl.armed && !sl.mode.oneShot() {
		b.rearm = append(b.rearm, c.id) // its poll had come back: a Wait polls again
		b.p.wakeToRearm()
	}
	return err
}

// finish does what a Delete or a Modify left to slot i's poll, which has
// come back or did not start: it frees a deleted slot, or polls for the
// Modify's interest (if refused, it frees the slot, as a closed
// socket's). It reports whether either was left.
func (b *afdBackend) finish(i int32) bool {
	sl := b.p.at(i)
	switch {
	case sl.state == slotDeleting:
		b.free(i)
	case sl.afd.resubmit:
		sl.afd.resubmit = false
		if err := b.submit(i); err != nil {
			b.forget(i)
		}
	default:
		return false
	}
	return true
}

// cancel cancels slot i's poll, or leaves that to the poll's starters if
// it is not started yet.
func (b *afdBackend) cancel(i int32) error {
	sl := b.p.at(i)
	if sl.afd.starting > 0 {
		sl.afd.cancel = true
		return nil
	}
	return b.dev.Cancel(b.polls.At(int(i)))
}

// submit polls slot i again, under the poller's lock: from translate, and
// from finish (in translate, or in settle when a start failed).
func (b *afdBackend) submit(i int32) error {
	sl := b.p.at(i)
	if err := b.dev.Submit(b.polls.At(int(i)), sl.base, afdEvents(sl.interest), b.p.id(i)); err != nil {
		return err
	}
	sl.afd.inflight = true
	b.inflight++
	return nil
}

func (b *afdBackend) remove(i int32) (bool, error) {
	sl := b.p.at(i)
	if !sl.afd.inflight {
		return sl.afd.starting == 0, nil // else the start's settle frees it
	}
	if err := b.cancel(i); err != nil {
		return false, err // the poll stays out: still registered
	}
	sl.afd.resubmit = false
	return false, nil
}

func (b *afdBackend) translate(e sockstate.OverlappedEntry) (Event, int32, bool) {
	if e.CompletionKey != afdKey {
		return Event{}, -1, false
	}
	i, sl := b.p.lookup(e.Overlapped)
	if sl == nil || !sl.afd.inflight {
		return Event{}, -1, false
	}
	sl.afd.inflight = false
	sl.afd.cancel = false // what it was wanted for is done
	b.inflight--
	if b.finish(i) {
		return Event{}, -1, false
	}
	poll := b.polls.At(int(i))
	got := poll.Events()
	if got&afd.POLL_LOCAL_CLOSE != 0 || poll.Err() != nil || poll.Cancelled() {
		b.forget(i) // closed without Delete, or no longer a socket
		return Event{}, -1, false
	}
	ev := fromAFD(got) & (sl.interest | Error)
	switch {
	case ev == 0: // nothing the caller wants: poll again now
		if err := b.submit(i); err != nil {
			b.forget(i)
		}
		return Event{}, -1, false
	case sl.mode.oneShot():
		sl.armed = false
	default:
		// Poll again at the next Wait, after the caller has handled this
		// event: polled now, a socket about to be drained would report
		// the data that the caller is reading.
		b.rearm = append(b.rearm, e.Overlapped)
	}
	return Event{Key: sl.key, Events: ev}, i, true
}

func (b *afdBackend) toRearm() int { return len(b.rearm) - b.rearmAt }

// flush takes the oldest slot left to re-arm and prepares its poll for
// rearm to start.
func (b *afdBackend) flush() (armCall, bool) {
	if b.rearmAt == len(b.rearm) {
		return armCall{}, false
	}
	id := b.rearm[b.rearmAt]
	b.rearmAt++
	if 2*b.rearmAt >= len(b.rearm) {
		// Drop what is taken once it is half the list or more: each copy
		// moves no more than was taken since the last.
		b.rearm = b.rearm[:copy(b.rearm, b.rearm[b.rearmAt:])]
		b.rearmAt = 0
	}
	i, sl := b.p.lookup(id)
	if sl == nil || sl.state != slotActive || sl.afd.inflight || !sl.armed {
		return armCall{}, true // deleted, re-armed by Modify, or disarmed since
	}
	c, err := b.arm(i)
	if err != nil {
		// Its starts are at their bound: left to a later Wait, one under
		// way woken by the settle that takes them below it.
		b.rearm = append(b.rearm, id)
		return armCall{}, true
	}
	c.forget = true
	return c, true
}

// forget frees slot i, whose socket is gone. The slot is active, so the
// index maps its socket to it: one socket has one active slot at most.
func (b *afdBackend) forget(i int32) {
	b.p.bySocket.Delete(uintptr(b.p.at(i).socket), (*slotSockets)(b.p))
	b.free(i)
}

// free frees slot i, whose poll has come back; while a start of it is not
// settled, it leaves the slot deleting and the freeing to that settle.
func (b *afdBackend) free(i int32) {
	if sl := b.p.at(i); sl.afd.starting > 0 {
		sl.state = slotDeleting
		return
	}
	b.p.release(i)
}

// close cancels every poll and dequeues their packets before it closes the
// device: until then the kernel may write to the polls' memory.
func (b *afdBackend) close() {
	for i := range b.p.used {
		if sl := b.p.at(i); sl.afd.inflight {
			sl.state = slotDeleting
			b.dev.Cancel(b.polls.At(int(i)))
		}
	}
	var raw [64]sockstate.OverlappedEntry
	for deadline := time.Now().Add(10 * time.Second); b.inflight > 0 && time.Now().Before(deadline); {
		n, err := sockstate.Dequeue(b.p.port, raw[:], 100)
		if err != nil {
			break // the port fails: nothing more will come out of it
		}
		for k := range raw[:n] {
			b.translate(raw[k])
		}
	}
	if b.inflight > 0 {
		// Polls whose packets never came: the kernel may still write to
		// their memory, which must outlive the poller.
		stranded.Lock()
		stranded.polls = append(stranded.polls, &b.polls)
		stranded.Unlock()
	}
	b.dev.Close()
}

// stranded keeps the polls of closed pollers whose completions never came
// (a port that failed, or a kernel that did not answer a cancel in 10 s)
// reachable for the life of the process.
var stranded struct {
	sync.Mutex
	polls []*afd.Polls
}

func afdEvents(i Interest) uint32 {
	events := uint32(afd.POLL_ABORT | afd.POLL_CONNECT_FAIL | afd.POLL_LOCAL_CLOSE)
	if i&Readable != 0 {
		events |= afd.POLL_RECEIVE | afd.POLL_ACCEPT | afd.POLL_DISCONNECT
	}
	if i&Writable != 0 {
		events |= afd.POLL_SEND
	}
	if i&HangUp != 0 {
		events |= afd.POLL_DISCONNECT
	}
	return events
}

func fromAFD(events uint32) Interest {
	var i Interest
	if events&(afd.POLL_RECEIVE|afd.POLL_ACCEPT|afd.POLL_DISCONNECT) != 0 {
		i |= Readable // end of stream reads as 0 bytes
	}
	if events&afd.POLL_SEND != 0 {
		i |= Writable
	}
	if events&(afd.POLL_DISCONNECT|afd.POLL_ABORT) != 0 {
		i |= HangUp
	}
	if events&(afd.POLL_ABORT|afd.POLL_CONNECT_FAIL) != 0 {
		i |= Error
	}
	return i
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package poller

import (
	"sync"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/afd"
)

// afdSlot is a slot's AFD state but for its base handle (slot.base, kept
// apart so that the slot has no padding). Slot i's Poll is
// afdBackend.polls.At(i): the kernel writes it from its submit until its
// packet is dequeued, so it stays with the index, and a slot is freed only
// after its poll has come back.
type afdSlot struct {
	inflight  bool // a poll is out
	cancelled bool // the poll out is cancelled: its packet is on its way
	resubmit  bool // it was cancelled to change it: submit anew when it is back
}

// afdBackend polls each socket with its own IOCTL_AFD_POLL request, made
// under the poller's lock, as wepoll and mio make it. A poll completes
// once, so Level and Edge submit it again after every event, and the
// one-shot modes wait for Modify.
type afdBackend struct {
	p        *Poller
	dev      *afd.Device
	polls    afd.Polls // slot i's poll is polls.At(i)
	inflight int       // polls out, whose packets have not been dequeued
	cancels  int       // cancels made (one a poll at most; the tests count them)
	// rearm holds the IDs of Level and Edge slots to poll again before the
	// next Wait blocks.
	rearm []uintptr
}

func newAFD(p *Poller) (*afdBackend, error) {
	dev, err := afd.Open(p.port, afdKey)
	if err != nil {
		return nil, err
	}
	return &afdBackend{p: p, dev: dev}, nil
}

func (b *afdBackend) baseHandle(s Socket) (windows.Handle, error) {
	return afd.BaseHandle(s)
}

func (b *afdBackend) arm(i int32) error {
	if b.p.at(i).afd.inflight {
		// The poll out asks for the old interest: cancel it, and submit
		// the new one when it comes back.
		if err := b.cancel(i); err != nil {
			return err // the old poll stays out, and is the registration
		}
		b.p.at(i).afd.resubmit = true
		return nil
	}
	return b.submit(i)
}

// submit polls slot i for its interest.
func (b *afdBackend) submit(i int32) error {
	sl := b.p.at(i)
	if err := b.dev.Submit(b.polls.At(int(i)), sl.base, afdEvents(sl.interest), b.p.id(i)); err != nil {
		return err
	}
	sl.afd.inflight = true
	b.inflight++
	return nil
}

// cancel cancels slot i's poll, once.
func (b *afdBackend) cancel(i int32) error {
	sl := b.p.at(i)
	if sl.afd.cancelled {
		return nil
	}
	if err := b.dev.Cancel(b.polls.At(int(i))); err != nil {
		return err
	}
	sl.afd.cancelled = true
	b.cancels++
	return nil
}

func (b *afdBackend) remove(i int32) (bool, error) {
	sl := b.p.at(i)
	if !sl.afd.inflight {
		return true, nil
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
	sl.afd.inflight, sl.afd.cancelled = false, false
	b.inflight--
	switch {
	case sl.state == slotDeleting:
		b.p.release(i)
		return Event{}, -1, false
	case sl.afd.resubmit: // cancelled by a Modify: poll for its interest
		sl.afd.resubmit = false
		b.again(i)
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
		b.again(i)
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

// again polls slot i again; if AFD refuses, the socket is gone (closed
// without Delete: its handle no longer names a socket), and so is the
// slot, silently, as when AFD reports the close.
func (b *afdBackend) again(i int32) {
	if err := b.submit(i); err != nil {
		b.forget(i)
	}
}

// flush polls again the Level and Edge slots that Waits reported, but
// those deleted, disarmed or polled by Modify since.
func (b *afdBackend) flush() {
	for _, id := range b.rearm {
		if i, sl := b.p.lookup(id); sl != nil && sl.state == slotActive && sl.armed && !sl.afd.inflight {
			b.again(i)
		}
	}
	b.rearm = b.rearm[:0]
}

// forget frees slot i, whose socket is gone and which has no poll out.
func (b *afdBackend) forget(i int32) {
	b.p.bySocket.Delete(uintptr(b.p.at(i).socket), (*slotSockets)(b.p))
	b.p.release(i)
}

// afdCloseWait bounds how long close waits for the packets of the polls it
// cancels: a cancel completes a poll at once, so only a port that fails or
// a kernel that does not answer makes it wait that long.
const afdCloseWait = 10 * time.Second

// close cancels every poll (once: a poll that Delete or Modify cancelled
// already is on its way back) and dequeues their packets before it closes
// the device: until then the kernel may write to the polls' memory.
func (b *afdBackend) close() error {
	for i := range b.p.used {
		if sl := b.p.at(i); sl.afd.inflight {
			sl.state = slotDeleting
			b.cancel(i) // a refusal: its packet comes when the socket closes, or never
		}
	}
	var raw [64]sockstate.OverlappedEntry
	for deadline := time.Now().Add(afdCloseWait); b.inflight > 0 && time.Now().Before(deadline); {
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
	return b.dev.Close()
}

// stranded keeps the polls of closed pollers whose completions never came
// (a port that failed, or a kernel that did not answer a cancel within
// afdCloseWait) reachable for the life of the process.
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

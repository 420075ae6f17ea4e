// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/sockettest"
	"github.com/sockstate/sockstate/winsock"
)

// duringStart makes f run once in the next poll start that Add, Modify or
// a Wait's re-arm makes without the poller's lock, before the call.
func duringStart(t *testing.T, f func()) {
	hookStart(t, func(start func() error) error { f(); return start() })
}

// afterStart makes f run once in the next poll start, after the call and
// before it is settled.
func afterStart(t *testing.T, f func()) {
	hookStart(t, func(start func() error) error { err := start(); f(); return err })
}

// hookStart makes the next poll start through h, once. h runs while Add,
// Modify or Wait has released the poller's lock, which it unlocks again
// when it returns: h must not end its goroutine (t.Fatal); it reports with
// t.Error and returns.
func hookStart(t *testing.T, h func(start func() error) error) {
	startHook = func(start func() error) error {
		startHook = nil
		return h(start)
	}
	t.Cleanup(func() { startHook = nil })
}

// afdPoller returns a new poller on AFD, closed when the test ends.
func afdPoller(t *testing.T) *Poller {
	t.Helper()
	p, err := New(WithBackend(AFD))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// firedOneShot returns an AFD poller and a socket registered under key 1
// as a one-shot that has fired and been drained: a Modify of it starts a
// poll, without the lock.
func firedOneShot(t *testing.T) (p *Poller, client, server windows.Handle) {
	p = afdPoller(t)
	client, server = sockettest.Pair(t)
	if err := p.Add(server, 1, Readable, OneShotLevel); err != nil {
		t.Fatal(err)
	}
	sockettest.Send(t, client, "x")
	expect(t, p, 1, Readable)
	if got := sockettest.Drain(t, server); got != "x" {
		t.Fatalf("read %q", got)
	}
	return p, client, server
}

// refuseStart makes the next poll of socket s's slot refused, its base
// handle being an event's, and returns the slot and its base handle.
func refuseStart(t *testing.T, p *Poller, s windows.Handle) (*slot, windows.Handle) {
	t.Helper()
	event, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.CloseHandle(event) })
	p.mu.Lock()
	defer p.mu.Unlock()
	sl := p.at(p.mustSlot(t, s))
	base := sl.base
	sl.base = event
	return sl, base
}

// waitFreed runs Waits until the poller has no slot in use.
func waitFreed(t *testing.T, p *Poller) {
	t.Helper()
	for deadline := time.Now().Add(eventually); p.slotsInUse() != 0 && time.Now().Before(deadline); {
		expectQuiet(t, p, 1, quiet)
	}
	if n := p.slotsInUse(); n != 0 {
		t.Fatalf("%d slots in use after Delete, want 0", n)
	}
}

// TestStartUnlocked: on AFD, Add and Modify start their poll without the
// poller's lock (armCall). What other goroutines do meanwhile is done once
// the poll is out: a Delete's cancel (the slot is freed with no event for
// the socket to come), a Modify's new interest (reported), a Close (it
// waits for the start and takes the poll back), also when a Wait has
// taken the poll's packet before the start is settled, and a Delete then
// leaves the freeing of the slot to the settle. A start that fails after
// a Delete frees the slot, and one after a Modify leaves the Modify's
// registration; else the registration is put back as it was, and a Level
// one is polled again by a Wait, one that is blocked too.
func TestStartUnlocked(t *testing.T) {
	t.Run("delete", func(t *testing.T) {
		p, _, server := firedOneShot(t)
		duringStart(t, func() {
			if err := p.Delete(server); err != nil {
				t.Error(err)
			}
		})
		if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		waitFreed(t, p) // no data comes: only the cancel brings the poll back
	})
	t.Run("modify", func(t *testing.T) {
		p, _, server := firedOneShot(t)
		duringStart(t, func() {
			if err := p.Modify(server, 2, Writable, OneShotLevel); err != nil {
				t.Error(err)
			}
		})
		if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 2, Writable) // the readable poll, with no data, is cancelled
	})
	t.Run("close", func(t *testing.T) {
		p, _, server := firedOneShot(t)
		closed := make(chan error, 1)
		duringStart(t, func() {
			go func() { closed <- p.Close() }()
			time.Sleep(quiet) // Close waits for the start
			select {
			case err := <-closed:
				t.Errorf("Close returned during a start: %v", err)
			default:
			}
		})
		stranded.Lock()
		before := len(stranded.polls)
		stranded.Unlock()
		if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		stranded.Lock()
		defer stranded.Unlock()
		if len(stranded.polls) != before {
			t.Error("Close stranded the poll that was starting")
		}
	})
	t.Run("packet-before-settle", func(t *testing.T) {
		// A Wait takes the poll's packet before its start is settled:
		// the one-shot reports once, and is re-armed by the next Modify.
		p, client, server := firedOneShot(t)
		sockettest.Send(t, client, "y") // the poll completes as it starts
		afterStart(t, func() {
			if _, err := await(t, p, 1, Readable); err != nil {
				t.Error(err)
			}
		})
		if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		expectQuiet(t, p, 1, quiet)
		if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		expect(t, p, 1, Readable) // "y" is still unread
	})
	// A Wait takes the poll's packet before its start is settled, and
	// the slot is to be freed: after a Delete, or as the packet says the
	// socket was closed. It is not freed, and so not given to another
	// socket, until the start is settled (the start names it, and on
	// 32-bit builds its ID's generation has 8 bits); then it is.
	for _, end := range []struct {
		name string
		// before the start; then, after it, with the poller's lock free
		before func(t *testing.T, client windows.Handle)
		after  func(t *testing.T, p *Poller, server windows.Handle)
	}{
		{"delete-before-settle", func(t *testing.T, client windows.Handle) {
			sockettest.Send(t, client, "y") // the poll completes as it starts
		}, func(t *testing.T, p *Poller, server windows.Handle) {
			if _, err := await(t, p, 1, Readable); err != nil {
				t.Error(err)
			}
			if err := p.Delete(server); err != nil {
				t.Error(err)
			}
		}},
		{"close-before-settle", func(*testing.T, windows.Handle) {}, func(t *testing.T, p *Poller, server windows.Handle) {
			if err := windows.Closesocket(server); err != nil {
				t.Error(err)
			}
			// Waits until the packet that says so is taken: the slot
			// is then unmapped.
			events := make([]Event, 8)
			for deadline := time.Now().Add(eventually); p.registered(server); {
				if time.Now().After(deadline) {
					t.Errorf("the close was not seen within %v", eventually)
					return
				}
				if n, err := p.Wait(events, quiet); n != 0 || err != nil {
					t.Errorf("Wait after the close: (%d, %v), want no event", n, err)
					return
				}
			}
		}},
	} {
		t.Run(end.name, func(t *testing.T) {
			p, client, server := firedOneShot(t)
			slot := p.mustSlot(t, server)
			_, other := sockettest.Pair(t)
			end.before(t, client)
			afterStart(t, func() {
				end.after(t, p, server)
				if err := p.Add(other, 2, Readable, OneShotLevel); err != nil {
					t.Error(err)
					return
				}
				if got, _ := p.slotOf(other); got == slot {
					t.Errorf("another socket was given slot %d while a start of it was not settled", got)
				}
			})
			if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
			if err := p.Delete(other); err != nil {
				t.Fatal(err)
			}
			waitFreed(t, p) // the settle freed the slot
		})
	}
	t.Run("modify-before-settle", func(t *testing.T) {
		// A Modify comes after the start and leaves the cancel to it; a
		// Wait then takes the started poll's packet, which brings the
		// Modify's poll: once that is out, the settle cancels nothing.
		p, client, server := firedOneShot(t)
		afterStart(t, func() { // the writable poll has completed as it started
			if err := p.Modify(server, 2, Readable, OneShotLevel); err != nil {
				t.Error(err)
			}
			if n, err := p.Wait(make([]Event, 8), quiet); n != 0 || err != nil {
				t.Errorf("the cancelled poll's packet: Wait gave (%d, %v), want no event", n, err)
			}
		})
		if err := p.Modify(server, 1, Writable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "y")
		expect(t, p, 2, Readable)
	})
	t.Run("starts-bounded", func(t *testing.T) {
		// 255 starts of one slot unsettled at once (a count of 8 bits)
		// refuse one more with an error, changing nothing.
		p, client, server := firedOneShot(t)
		p.mu.Lock()
		sl := p.at(p.mustSlot(t, server))
		sl.afd.starting = math.MaxUint8
		p.mu.Unlock()
		if err := p.Modify(server, 2, Writable, Level); err == nil {
			t.Fatal("a 256th start went ahead")
		}
		p.mu.Lock()
		was := settings{sl.key, sl.interest, sl.mode, sl.armed}
		inflight := sl.afd.inflight
		sl.afd.starting = 0
		p.mu.Unlock()
		if want := (settings{1, Readable, OneShotLevel, false}); was != want || inflight {
			t.Errorf("after the refusal: %+v, a poll out %v; want %+v, none", was, inflight, want)
		}
		if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "y")
		expect(t, p, 1, Readable)
	})
	t.Run("failed-start-delete", func(t *testing.T) {
		p, _, server := firedOneShot(t)
		refuseStart(t, p, server)
		duringStart(t, func() {
			if err := p.Delete(server); err != nil {
				t.Error(err)
			}
		})
		if err := p.Modify(server, 1, Readable, OneShotLevel); err == nil {
			t.Fatal("a Modify whose poll did not start returned nil")
		}
		if n := p.slotsInUse(); n != 0 {
			t.Errorf("%d slots in use, want 0: no packet will come to free it", n)
		}
		if err := p.Delete(server); !errors.Is(err, ErrNotRegistered) {
			t.Errorf("Delete after Delete: %v, want ErrNotRegistered", err)
		}
	})
	t.Run("failed-start-level", func(t *testing.T) {
		// A Level socket that has reported waits for the next Wait to
		// poll it again; a Wait that comes while a Modify's poll starts
		// passes it by. The Modify fails: the socket is Level as before,
		// and the next Wait polls it.
		p, socks := levelSockets(t, 1)
		server := socks[0]
		sl, base := refuseStart(t, p, server)
		duringStart(t, func() {
			if _, err := p.Wait(make([]Event, 8), 0); err != nil {
				t.Error(err)
			}
			p.mu.Lock()
			sl.base = base // what comes after this start is not refused
			p.mu.Unlock()
		})
		if err := p.Modify(server, 2, Writable, Level); err == nil {
			t.Fatal("a Modify whose poll did not start returned nil")
		}
		if ev := expect(t, p, 0, Readable); ev&Writable != 0 {
			t.Errorf("the failed Modify's Writable reported: %v", ev)
		}
	})
	t.Run("failed-start-level-blocked", func(t *testing.T) {
		// As failed-start-level, but the Wait that passes the socket by
		// is blocked when the Modify fails: it is woken to poll the
		// socket again, not left until another socket's event.
		p, socks := levelSockets(t, 1)
		sl, base := refuseStart(t, p, socks[0])
		var result <-chan waited
		duringStart(t, func() {
			result = startWait(t, p, 8, eventually)
			p.mu.Lock()
			sl.base = base // what comes after this start is not refused
			p.mu.Unlock()
		})
		if err := p.Modify(socks[0], 2, Writable, Level); err == nil {
			t.Fatal("a Modify whose poll did not start returned nil")
		}
		if r := <-result; r.err != nil || len(r.events) != 1 || r.events[0].Key != 0 || r.events[0].Events != Readable {
			t.Errorf("the Wait blocked while the Modify failed: %v, %v; want key 0 Readable within %v", r.events, r.err, eventually)
		}
	})
	// A Modify that comes while another's poll starts, and the start
	// fails: the second Modify's registration stands, as if the first had
	// succeeded before it, also when it changes only the key (which
	// would otherwise have been put back with the first's).
	for _, second := range []struct {
		key      uint64
		interest Interest
	}{{2, Writable}, {5, Readable}} {
		t.Run(fmt.Sprintf("failed-start-modify-%v", second.interest), func(t *testing.T) {
			p, client, server := firedOneShot(t)
			sl, base := refuseStart(t, p, server)
			duringStart(t, func() {
				p.mu.Lock()
				sl.base = base // the second Modify's poll is not refused
				p.mu.Unlock()
				if err := p.Modify(server, second.key, second.interest, OneShotLevel); err != nil {
					t.Error(err)
				}
			})
			if err := p.Modify(server, 1, Readable, OneShotLevel); err != nil {
				t.Errorf("Modify: %v, want nil", err)
			}
			sockettest.Send(t, client, "y")
			expect(t, p, second.key, second.interest)
		})
	}
}

// levelSockets returns an AFD poller with n sockets registered as Level
// under keys 0 to n-1, each readable (its data unread), and a Wait has
// reported them all: the next Wait polls them all again.
func levelSockets(t *testing.T, n int) (*Poller, []windows.Handle) {
	t.Helper()
	p := afdPoller(t)
	socks := make([]windows.Handle, n)
	for k := range socks {
		client, server := sockettest.Pair(t)
		sockettest.Send(t, client, "x") // first: its poll completes as it starts
		if err := p.Add(server, uint64(k), Readable, Level); err != nil {
			t.Fatal(err)
		}
		socks[k] = server
	}
	if got, err := p.Wait(make([]Event, 2*n), eventually); got != n || err != nil {
		t.Fatalf("the first Wait: (%d, %v), want (%d, nil)", got, err, n)
	}
	return p, socks
}

// drain reads what socket s has, for a start hook (no t.Fatal).
func drain(t *testing.T, s windows.Handle) {
	buf := make([]byte, 64)
	for {
		n, err := winsock.Recv(s, buf, 0)
		if err != nil && !errors.Is(err, windows.WSAEWOULDBLOCK) {
			t.Error(err)
		}
		if err != nil || n == 0 {
			return
		}
	}
}

// TestRearmUnlocked: on AFD, a Wait polls the Level and Edge sockets it
// reported again before it blocks, starting the polls without the
// poller's lock (rearm), in batches; what other goroutines do meanwhile is
// done once the poll is out, as for Add and Modify (TestStartUnlocked); a
// poll that the OS refuses frees the slot, as a closed socket's; a Wait
// takes no more than was left to re-arm when it began, oldest first, and
// sets aside a slot whose starts are at their bound, until a start
// settles and wakes a Wait.
func TestRearmUnlocked(t *testing.T) {
	t.Run("lock-free", func(t *testing.T) {
		p, _ := levelSockets(t, 1)
		duringStart(t, func() {
			if !p.mu.TryLock() {
				t.Error("the poller's lock is held while a Wait polls a Level socket again")
				return
			}
			p.mu.Unlock()
		})
		expect(t, p, 0, Readable)
		if startHook != nil {
			t.Error("the Wait polled the socket again without making a start")
		}
	})
	// The data is read before the call, so that the readable poll stays
	// out: only the cancel that the Delete or Modify left to the re-arm
	// brings it back.
	t.Run("delete", func(t *testing.T) {
		p, socks := levelSockets(t, 1)
		server := socks[0]
		duringStart(t, func() {
			drain(t, server)
			if err := p.Delete(server); err != nil {
				t.Error(err)
			}
		})
		expectQuiet(t, p, 0, quiet)
		waitFreed(t, p)
	})
	t.Run("modify", func(t *testing.T) {
		p, socks := levelSockets(t, 1)
		server := socks[0]
		duringStart(t, func() {
			drain(t, server)
			if err := p.Modify(server, 2, Writable, Level); err != nil {
				t.Error(err)
			}
		})
		if ev := expect(t, p, 2, Writable); ev&Readable != 0 {
			t.Errorf("after a Modify to Writable: %v", ev)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		// A Wait re-arms no more than was left to re-arm when it began
		// (here a batch and one more): what is reported meanwhile waits
		// for the next Wait.
		const n = 17
		p, socks := levelSockets(t, n)
		b := p.impl.(*afdBackend)
		duringStart(t, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			i, _ := p.slotOf(socks[0])
			b.rearm = append(b.rearm, p.id(i)) // as if another Wait had reported it
		})
		if got, err := p.Wait(make([]Event, 2*n), eventually); got != n || err != nil {
			t.Fatalf("Wait: (%d, %v), want (%d, nil)", got, err, n)
		}
		p.mu.Lock()
		left := b.toRearm()
		p.mu.Unlock()
		if left != n+1 {
			t.Errorf("%d left to re-arm after the Wait, want %d: the one added while it re-armed, and its reports", left, n+1)
		}
	})
	t.Run("refused", func(t *testing.T) {
		p, socks := levelSockets(t, 1)
		server := socks[0]
		refuseStart(t, p, server)
		expectQuiet(t, p, 0, quiet)
		if n := p.slotsInUse(); n != 0 {
			t.Errorf("%d slots in use after a refused poll, want 0", n)
		}
		if err := p.Delete(server); !errors.Is(err, ErrNotRegistered) {
			t.Errorf("Delete after a refused poll: %v, want ErrNotRegistered", err)
		}
	})
	t.Run("starts-bounded", func(t *testing.T) {
		// A slot whose starts are at their bound is set aside for a later
		// Wait; the rest are re-armed. (The oldest is the one refused.)
		p, socks := levelSockets(t, 2)
		b := p.impl.(*afdBackend)
		p.mu.Lock()
		first, sl := p.lookup(b.rearm[b.rearmAt])
		sl.afd.starting = math.MaxUint8
		key := sl.key
		p.mu.Unlock()
		events := make([]Event, 4)
		if got, err := p.Wait(events, eventually); got != 1 || err != nil || events[0].Key == key {
			t.Fatalf("Wait: (%d, %v), %v; want the other socket alone, not key %d (slot %d)", got, err, events[:got], key, first)
		}
		// The other socket is drained and its poll left out (a Wait that
		// does not block sets the slot aside again), and a Wait blocks;
		// one of the starts settles, and the slot is no longer at the
		// bound: the Wait is woken to poll it.
		drain(t, socks[1-key]) // keys are the sockets' indexes
		if got, err := p.Wait(events, 0); got != 0 || err != nil {
			t.Fatalf("Wait after the other socket was read: (%d, %v) %v, want (0, nil)", got, err, events[:got])
		}
		result := startWait(t, p, 8, eventually)
		p.mu.Lock()
		b.settle(armCall{b: b, i: first, id: p.id(first)}, nil)
		p.mu.Unlock()
		if r := <-result; r.err != nil || len(r.events) != 1 || r.events[0].Key != key {
			t.Errorf("the Wait blocked when a start settled: %v, %v; want key %d within %v", r.events, r.err, key, eventually)
		}
		p.mu.Lock()
		sl.afd.starting = 0
		p.mu.Unlock()
	})
	t.Run("oldest-first", func(t *testing.T) {
		// The list's order is the order of the starts: each poll of a
		// socket with data completes as it starts, and the port gives
		// the packets back in that order. (Reversed here, so that the
		// order of the first Wait's reports does not pass for it.)
		const n = 5
		p, _ := levelSockets(t, n)
		b := p.impl.(*afdBackend)
		p.mu.Lock()
		list := b.rearm[b.rearmAt:]
		slices.Reverse(list)
		var want []uint64
		for _, id := range list {
			_, sl := p.lookup(id)
			want = append(want, sl.key)
		}
		p.mu.Unlock()
		events := make([]Event, 2*n)
		got, err := p.Wait(events, eventually)
		if err != nil {
			t.Fatal(err)
		}
		var keys []uint64
		for _, ev := range events[:got] {
			keys = append(keys, ev.Key)
		}
		if !slices.Equal(keys, want) {
			t.Errorf("reported %v, want %v: the order of the list", keys, want)
		}
	})
	t.Run("packet-passed-on", func(t *testing.T) {
		// A Wait that takes a packet of wakeToRearm with events, and so
		// returns without re-arming, posts it again while another Wait is
		// under way, and not otherwise: its caller's next Wait re-arms.
		p := afdPoller(t)
		for _, other := range []bool{false, true} {
			if other {
				p.waiting.Add(1) // as if another Wait were blocked
			}
			p.waiting.Add(1) // this one
			p.deliver([]sockstate.OverlappedEntry{{CompletionKey: rearmKey}}, make([]Event, 2), 1, math.MaxUint64)
			p.waiting.Store(0)
			raw := make([]sockstate.OverlappedEntry, 4)
			got, err := sockstate.Dequeue(p.port, raw, 0)
			if err != nil {
				t.Fatal(err)
			}
			if passed := got == 1 && raw[0].CompletionKey == rearmKey; passed != other || got > 1 {
				t.Errorf("with another Wait %v: %d packets queued after the Wait (%v), want the packet passed on: %v", other, got, raw[:got], other)
			}
		}
	})
	t.Run("batches", func(t *testing.T) {
		// More sockets than one batch of calls: each Wait polls all that
		// the last reported again before it blocks, and a poll of a
		// socket with data completes as it starts, so each Wait reports
		// them all.
		const n = 40
		p, _ := levelSockets(t, n)
		events := make([]Event, 2*n)
		for round := range 4 {
			got, err := p.Wait(events, eventually)
			if err != nil {
				t.Fatal(err)
			}
			if got != n {
				t.Fatalf("Wait %d: %d of the %d Level sockets reported", round, got, n)
			}
		}
	})
}

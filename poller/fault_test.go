// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// tally counts the results of calls by what they returned, for the log.
type tally struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *tally) add(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]int)
	}
	c.m[what]++
}

func (c *tally) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.m)
}

// TestFaultCloseSocketRacingWait: 50 ready Level sockets, 4 goroutines in
// Wait, and every socket closed with closesocket (no Delete) while they
// wait. Every Wait returns a nil error; on AFD the poller frees all 50
// registrations by itself (waiting up to eventually); on
// ProcessSocketNotifications Delete of each closed handle returns nil and
// frees it.
func TestFaultCloseSocketRacingWait(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const sockets, waiters = 50, 4
		servers := make([]windows.Handle, sockets)
		for i := range servers {
			client, server := sockettest.Pair(t)
			servers[i] = server
			if err := p.Add(server, uint64(i), Readable|HangUp, Level); err != nil {
				t.Fatal(err)
			}
			sockettest.Send(t, client, "x")
		}
		var results tally
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range waiters {
			wg.Go(func() {
				events := make([]Event, 16)
				for {
					select {
					case <-stop:
						return
					default:
					}
					n, err := p.Wait(events, 50*time.Millisecond)
					switch {
					case err != nil:
						results.add("error: " + err.Error())
					case n > 0:
						results.add("events")
					default:
						results.add("(0, nil)")
					}
				}
			})
		}
		time.Sleep(20 * time.Millisecond)
		for _, s := range servers {
			sockettest.Close(t, s)
		}
		deadline := time.Now().Add(eventually)
		for p.Backend() == AFD && p.slotsInUse() > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		close(stop)
		wg.Wait()
		t.Logf("Waits while %d sockets were closed: %v; slots in use: %d", sockets, &results, p.slotsInUse())
		for what := range results.m {
			if what != "events" && what != "(0, nil)" {
				t.Errorf("a Wait returned %s", what)
			}
		}
		if p.Backend() != AFD {
			for _, s := range servers {
				if err := p.Delete(s); err != nil {
					t.Errorf("Delete of a closed socket: %v", err)
				}
			}
		}
		if n := p.slotsInUse(); n != 0 {
			t.Errorf("%d slots in use after every socket was closed", n)
		}
	})
}

// TestFaultCloseWithWaiters: 16 goroutines in Wait (no timeout) on a poller
// with 20 registrations, and Close: it returns nil, and every Wait returns
// ErrClosed (waiting up to eventually).
func TestFaultCloseWithWaiters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		for i := range 20 {
			_, server := sockettest.Pair(t)
			if err := p.Add(server, uint64(i), Readable, OneShotLevel); err != nil {
				t.Fatal(err)
			}
		}
		const waiters = 16
		errs := make(chan error, waiters)
		for range waiters {
			go func() {
				_, err := p.Wait(make([]Event, 8), -1)
				errs <- err
			}()
		}
		time.Sleep(50 * time.Millisecond)
		if err := p.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		var results tally
		timeout := time.After(eventually)
		for range waiters {
			select {
			case err := <-errs:
				results.add(fmt.Sprint(err))
				if !errors.Is(err, ErrClosed) {
					t.Errorf("Wait during Close: %v", err)
				}
			case <-timeout:
				t.Fatalf("Close left Waits blocked; returned: %v", &results)
			}
		}
		t.Logf("%d Waits during Close returned: %v", waiters, &results)
	})
}

// TestFaultDeleteRacingClose: 100 registered sockets, each deleted by its
// own goroutine, and Close called once 50 of them have started. Every
// Delete returns nil or ErrClosed, and Close returns nil.
func TestFaultDeleteRacingClose(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		const sockets = 100
		servers := make([]windows.Handle, sockets)
		for i := range servers {
			_, servers[i] = sockettest.Pair(t)
			if err := p.Add(servers[i], uint64(i), Readable, Level); err != nil {
				t.Fatal(err)
			}
		}
		var results tally
		var wg sync.WaitGroup
		var started atomic.Int32
		start := make(chan struct{})
		for _, s := range servers {
			wg.Go(func() {
				<-start
				started.Add(1)
				err := p.Delete(s)
				results.add(fmt.Sprint(err))
				if err != nil && !errors.Is(err, ErrClosed) {
					t.Errorf("Delete racing Close: %v", err)
				}
			})
		}
		close(start)
		for started.Load() < sockets/2 {
			runtime.Gosched()
		}
		if err := p.Close(); err != nil {
			t.Errorf("Close racing Deletes: %v", err)
		}
		wg.Wait()
		t.Logf("%d Deletes racing Close returned: %v", sockets, &results)
	})
}

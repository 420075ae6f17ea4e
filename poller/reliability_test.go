//go:build windows

package poller

import (
	"errors"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
)

// TestClosedPollerRefusesAll: after Close, every method returns ErrClosed,
// whatever its arguments: bad handles, interests and modes, a slice with no
// room, a registered socket.
func TestClosedPollerRefusesAll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		_, server := sockettest.Pair(t)
		if err := p.Add(server, 1, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		for name, err := range map[string]error{
			"Add invalid handle":    p.Add(windows.InvalidHandle, 1, Readable, Level),
			"Add zero handle":       p.Add(0, 1, Readable, Level),
			"Add unknown interest":  p.Add(server, 1, 0x40, Level),
			"Add unknown mode":      p.Add(server, 1, Readable, Mode(9)),
			"Add registered":        p.Add(server, 1, Readable, Level),
			"Modify invalid handle": p.Modify(windows.InvalidHandle, 1, Readable, Level),
			"Modify unknown mode":   p.Modify(server, 1, Readable, Mode(9)),
			"Modify":                p.Modify(server, 2, Writable, Edge),
			"Delete invalid handle": p.Delete(windows.InvalidHandle),
			"Delete":                p.Delete(server),
			"Wait no room":          func() error { _, err := p.Wait(nil, 0); return err }(),
			"Wait":                  func() error { _, err := p.Wait(make([]Event, 1), -1); return err }(),
			"Wake":                  p.Wake(),
			"Close":                 p.Close(),
		} {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", name, err)
			}
		}
	})
}

// TestErrorInterest: Error alone is an interest Add accepts. Data that
// arrives is not reported; a reset by the peer is, as Error and nothing
// else.
func TestErrorInterest(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 70, Error, Level); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expectQuiet(t, p, 70, quiet)
		linger := windows.Linger{Onoff: 1, Linger: 0}
		windows.SetsockoptLinger(client, windows.SOL_SOCKET, windows.SO_LINGER, &linger)
		windows.Closesocket(client)
		if ev := expect(t, p, 70, Error); ev != Error {
			t.Errorf("a reset with interest Error gave %v, want Error alone", ev)
		}
	})
}

// TestAddRegisteredRefused: adding a registered socket again returns an
// error matching ErrAlreadyRegistered and changes nothing: events keep
// coming under the first key and interest, in one slot. Modify is the way
// to change a registration.
func TestAddRegisteredRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 60, Readable, Level); err != nil {
			t.Fatal(err)
		}
		if err := p.Add(server, 61, Writable, OneShotLevel); !errors.Is(err, ErrAlreadyRegistered) {
			t.Fatalf("second Add: %v, want ErrAlreadyRegistered", err)
		}
		sockettest.Send(t, client, "x")
		if ev := expect(t, p, 60, Readable); ev != Readable {
			t.Errorf("after a refused Add: %v, want Readable under the first key", ev)
		}
		if n := p.slotsInUse(); n != 1 {
			t.Errorf("%d slots in use for one socket", n)
		}
		if err := p.Modify(server, 61, Writable, Level); err != nil {
			t.Fatal(err)
		}
		if ev := expect(t, p, 61, Writable); ev&Readable != 0 {
			t.Errorf("Readable after Modify to Writable: %v", ev)
		}
	})
}

// TestClosedOneShotWithoutDelete checks what Delete's doc says of a socket
// closed without Delete after its one-shot registration fired: the handle
// stays registered (Add of it is refused with ErrAlreadyRegistered, one
// slot in use) on both backends, and Delete returns nil and frees the slot.
func TestClosedOneShotWithoutDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, p *Poller) {
		client, server := sockettest.Pair(t)
		if err := p.Add(server, 90, Readable, OneShotLevel); err != nil {
			t.Fatal(err)
		}
		sockettest.Send(t, client, "x")
		expect(t, p, 90, Readable)
		windows.Closesocket(server)
		expectQuiet(t, p, 90, quiet)
		if err := p.Add(server, 91, Readable, Level); !errors.Is(err, ErrAlreadyRegistered) {
			t.Errorf("Add of the closed one-shot's handle before Delete: %v, want ErrAlreadyRegistered", err)
		}
		if n := p.slotsInUse(); n != 1 {
			t.Errorf("%d slots in use, want the closed one-shot's", n)
		}
		if err := p.Delete(server); err != nil {
			t.Fatalf("Delete after closesocket: %v", err)
		}
		if n := p.slotsInUse(); n != 0 {
			t.Errorf("%d slots in use after Delete", n)
		}
	})
}

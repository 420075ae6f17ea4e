// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/sockettest"
	iwinsock "github.com/sockstate/sockstate/internal/winsock"
)

// TestRegistrationOnly covers calls that only register: completionCount 0
// with nil entries, a nil count and timeout 0, as the OS requires; a batch
// in one call; and a batch in which one registration fails.
func TestRegistrationOnly(t *testing.T) {
	port := newLivePort(t)
	trigger := uint8(SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_LEVEL)
	regs := make([]SockNotifyRegistration, 4)
	for i := range regs {
		_, server := sockettest.Pair(t)
		regs[i] = SockNotifyRegistration{Socket: server, CompletionKey: uintptr(20 + i),
			EventFilter: SOCK_NOTIFY_REGISTER_EVENT_OUT, Operation: SOCK_NOTIFY_OP_ENABLE, TriggerFlags: Trigger(trigger),
			RegistrationResult: 0xFFFFFFFF}
	}
	closed, _, err := iwinsock.UDP()
	if err != nil {
		t.Fatal(err)
	}
	windows.Closesocket(closed)
	regs[2].Socket = closed
	refused := regs[2].CompletionKey

	err = ProcessSocketNotifications(port.h, uint32(len(regs)), &regs[0], 0, 0, nil, nil)
	if err != nil {
		// Then none was applied: the three writable sockets stay quiet.
		t.Logf("a batch with one closed socket failed as a whole: %v", err)
		if e, ok := port.next(quiet); ok {
			t.Fatalf("a batch that failed as a whole, and a notification came: key %d", e.CompletionKey)
		}
		regs = append(regs[:2], regs[3:]...)
		port.apply(regs...)
	}
	seen := make(map[uintptr]bool)
	for i, r := range regs {
		if r.Socket == closed {
			if r.RegistrationResult == 0 {
				t.Errorf("registration %d of a closed socket succeeded", i)
			}
			t.Logf("closed socket in a batch: %v", windows.Errno(r.RegistrationResult))
			continue
		}
		if r.RegistrationResult != 0 {
			t.Errorf("registration %d: %v", i, windows.Errno(r.RegistrationResult))
		}
		seen[r.CompletionKey] = false
	}
	deadline := time.Now().Add(10 * time.Second)
	for got := 0; got < len(seen); {
		e, ok := port.next(time.Until(deadline))
		if !ok {
			t.Fatalf("registered sockets reported no OUT within 10 s; seen %v", seen)
		}
		if e.CompletionKey == refused {
			t.Errorf("a notification for the refused registration (key %d)", refused)
		}
		if done, ok := seen[e.CompletionKey]; ok && !done {
			seen[e.CompletionKey] = true
			got++
		}
	}
}

// TestRegistrationErrors feeds the OS registrations it must refuse. The OS
// may refuse the whole call or the registration alone; either is an error,
// the same one when asked again, and no notification comes for it, though
// the connected socket has data.
func TestRegistrationErrors(t *testing.T) {
	requireAPI(t)
	trigger := uint8(SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_LEVEL)
	event, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(event)
	tests := []struct {
		name   string
		socket func(t *testing.T) windows.Handle
		flags  uint8
	}{
		{"closed socket", func(t *testing.T) windows.Handle {
			s, _, err := iwinsock.UDP()
			if err != nil {
				t.Fatal(err)
			}
			windows.Closesocket(s)
			return s
		}, trigger},
		{"not a socket", func(*testing.T) windows.Handle { return event }, trigger},
		{"invalid handle", func(*testing.T) windows.Handle { return windows.InvalidHandle }, trigger},
		{"level and edge", func(t *testing.T) windows.Handle {
			c, s := sockettest.Pair(t)
			sockettest.Send(t, c, "ready")
			return s
		}, SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_LEVEL | SOCK_NOTIFY_TRIGGER_EDGE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := newLivePort(t)
			s := tt.socket(t)
			refusal := func() string {
				reg := SockNotifyRegistration{Socket: s, CompletionKey: 1, EventFilter: SOCK_NOTIFY_REGISTER_EVENT_IN,
					Operation: SOCK_NOTIFY_OP_ENABLE, TriggerFlags: Trigger(tt.flags)}
				err := ProcessSocketNotifications(port.h, 1, &reg, 0, 0, nil, nil)
				switch {
				case err != nil:
					return fmt.Sprintf("the call failed: %v", err)
				case reg.RegistrationResult != 0:
					return fmt.Sprintf("the registration failed: %v", windows.Errno(reg.RegistrationResult))
				}
				t.Fatal("the OS accepted it")
				return ""
			}
			first := refusal()
			t.Log(first)
			if again := refusal(); again != first {
				t.Errorf("asked again: %s", again)
			}
			port.expectQuiet(1, quiet)
		})
	}
}

// TestSecondPort registers a socket with one port, then with another. The
// reference says both that a socket belongs to one port at a time and that
// re-registering overwrites; which Windows does is not known (SPEC.md,
// switch "second_port"; internal/psnfacts records it). The call or the
// registration may be refused, and the first port keeps the socket; or it
// may be accepted, and the events move or stay on the first port. Each
// outcome must hold together; against the model, it must be the switch's.
func TestSecondPort(t *testing.T) {
	const key = 5
	first, second := newLivePort(t), newLivePort(t)
	client, server := sockettest.Pair(t)
	trigger := uint8(SOCK_NOTIFY_TRIGGER_PERSISTENT | SOCK_NOTIFY_TRIGGER_LEVEL)
	first.enable(server, key, SOCK_NOTIFY_REGISTER_EVENT_IN, trigger)
	r := SockNotifyRegistration{Socket: server, CompletionKey: key, EventFilter: SOCK_NOTIFY_REGISTER_EVENT_IN,
		Operation: SOCK_NOTIFY_OP_ENABLE, TriggerFlags: Trigger(trigger)}
	err := ProcessSocketNotifications(second.h, 1, &r, 0, 0, nil, nil)
	r2 := r
	r2.RegistrationResult = 0
	if again := ProcessSocketNotifications(second.h, 1, &r2, 0, 0, nil, nil); again != err || r2.RegistrationResult != r.RegistrationResult {
		t.Errorf("the second port, asked twice: call %v, registration %v; then %v, %v",
			err, windows.Errno(r.RegistrationResult), again, windows.Errno(r2.RegistrationResult))
	}
	sockettest.Send(t, client, "x")
	var outcome string
	switch {
	case err != nil || r.RegistrationResult != 0:
		t.Logf("second port refused: call %v, registration %v", err, windows.Errno(r.RegistrationResult))
		outcome = "refuse"
		first.expect(key, SOCK_NOTIFY_EVENT_IN)
		second.expectQuiet(key, quiet)
	case second.poll(key, 2*time.Second):
		t.Log("second port accepted: the events moved")
		outcome = "move"
		first.expectQuiet(key, quiet)
	default:
		t.Log("second port accepted: the events stay on the first port")
		outcome = "ignore"
		first.expect(key, SOCK_NOTIFY_EVENT_IN)
	}
	if model := modelSwitch("second_port"); model != "" && model != outcome {
		t.Errorf("outcome %q against the model's second_port=%s", outcome, model)
	}
}

// poll reports whether a notification for key arrives within d.
func (p livePort) poll(key uintptr, d time.Duration) bool {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		e, ok := p.next(time.Until(deadline))
		if !ok {
			return false
		}
		if e.CompletionKey == key {
			return true
		}
	}
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package psnfacts puts the open questions about ProcessSocketNotifications
// (those no public source answers: the switches of testdata/psnmodel/SPEC.md,
// which lists the sources with their URLs) to the call that the sockstate
// package binds, and says what it did. On Windows build 20348 or later that
// is the OS: internal/cmd/psnfacts prints the answers, and the GitHub
// workflow keeps them. Against the reference model, each answer must name
// the value of the switch it asks about, which checks the recorder itself.
package psnfacts

import (
	"errors"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	iwinsock "github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/winsock"
)

// Fact is the answer to one question.
type Fact struct {
	Switch string // the model's switch for it, or "" for a recorded value
	Answer string // a value of that switch, or what was seen
	Detail string // codes and values seen
}

// Record asks every question, each on a completion port and sockets of its
// own. It fails only when a question could not be asked.
func Record() ([]Fact, error) {
	var facts []Fact
	for _, q := range questions {
		port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
		if err != nil {
			return facts, err
		}
		f, err := q.ask(port)
		windows.CloseHandle(port)
		if err != nil {
			return facts, fmt.Errorf("%s: %w", q.name, err)
		}
		f.Switch = q.name
		facts = append(facts, f)
	}
	return facts, nil
}

var questions = []struct {
	name string
	ask  func(port windows.Handle) (Fact, error)
}{
	{"trigger", loneTrigger},
	{"remove_packet", removePacket},
	{"remove_closed", removeClosed},
	{"second_port", secondPort},
	{"empty_call", emptyCall},
	{"level", levelWithoutIO},
	{"result", successResult},
	{"overlapped", overlappedField},
	{"tied_socket", inChild("tied_socket")},
}

// The windows the recorder waits in come from Windows, not from the
// model's constants (testdata/psnmodel/SPEC.md, Decisions): on Windows a
// loopback notification is in the port when the call that causes it
// returns (smol-rs/polling's edge_oneshot_triggered, source S1,
// https://github.com/smol-rs/polling/pull/210, dequeues it with a zero
// timeout right after the write), so a packet owed comes at once, and a
// second is the margin of a loaded CI runner; wait doubles it for each
// packet awaited.
const (
	persistentLevel = sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL
	wait            = 2 * time.Second
	atOnce          = time.Second
)

func reg(s windows.Handle, key uintptr, op sockstate.Op, trigger sockstate.Trigger) sockstate.SockNotifyRegistration {
	return sockstate.SockNotifyRegistration{Socket: s, CompletionKey: key, EventFilter: sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN,
		Operation: op, TriggerFlags: trigger}
}

// apply makes one registration-only call and returns the registration's
// result and the call's error.
func apply(port windows.Handle, r sockstate.SockNotifyRegistration) (result uint32, callErr error) {
	r.RegistrationResult = 0xFFFFFFFF
	callErr = sockstate.ProcessSocketNotifications(port, 1, &r, 0, 0, nil, nil)
	return r.RegistrationResult, callErr
}

// next dequeues one packet within d; ok is false on a timeout.
func next(port windows.Handle, d time.Duration) (e sockstate.OverlappedEntry, ok bool, err error) {
	var n uint32
	err = sockstate.ProcessSocketNotifications(port, 0, nil, uint32(d.Milliseconds()), 1, &e, &n)
	if errors.Is(err, windows.WAIT_TIMEOUT) || errors.Is(err, windows.ERROR_TIMEOUT) {
		return e, false, nil
	}
	return e, err == nil && n == 1, err
}

// await dequeues until a packet for key has all of want.
func await(port windows.Handle, key uintptr, want uint32) (sockstate.OverlappedEntry, error) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		e, ok, err := next(port, time.Until(deadline))
		if err != nil || !ok {
			return e, err
		}
		if e.CompletionKey == key && e.NumberOfBytesTransferred&want == want {
			return e, nil
		}
	}
	return sockstate.OverlappedEntry{}, fmt.Errorf("no packet for key %d with events %#x within %v", key, want, wait)
}

// pair returns a loopback TCP pair and a function that closes it.
func pair() (client, server windows.Handle, done func(), err error) {
	client, server, err = iwinsock.Pair()
	if err != nil {
		return 0, 0, nil, err
	}
	return client, server, func() { windows.Closesocket(client); windows.Closesocket(server) }, nil
}

// registered returns a loopback TCP pair whose server end is registered on
// port under key for filter, persistent and level-triggered.
func registered(port windows.Handle, key uintptr, filter sockstate.Filter) (client, server windows.Handle, done func(), err error) {
	client, server, done, err = pair()
	if err != nil {
		return 0, 0, nil, err
	}
	r := reg(server, key, sockstate.SOCK_NOTIFY_OP_ENABLE, persistentLevel)
	r.EventFilter = filter
	if result, callErr := apply(port, r); callErr != nil || result != 0 {
		done()
		return 0, 0, nil, errors.New("ENABLE: " + code(callErr, result))
	}
	return client, server, done, nil
}

func code(err error, result uint32) string {
	return fmt.Sprintf("call %v, registrationResult %d", err, result)
}

func loneTrigger(port windows.Handle) (Fact, error) {
	_, server, done, err := pair()
	if err != nil {
		return Fact{}, err
	}
	defer done()
	result, callErr := apply(port, reg(server, 1, sockstate.SOCK_NOTIFY_OP_ENABLE, sockstate.SOCK_NOTIFY_TRIGGER_LEVEL))
	f := Fact{Answer: "refuse", Detail: "LEVEL alone: " + code(callErr, result)}
	if callErr == nil && result == 0 {
		f.Answer = "persistent"
	}
	return f, nil
}

func removePacket(port windows.Handle) (Fact, error) {
	client, server, done, err := registered(port, 2, sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN)
	if err != nil {
		return Fact{}, err
	}
	defer done()
	if _, err := winsock.Send(client, []byte("unread"), 0); err != nil {
		return Fact{}, err
	}
	if _, err := await(port, 2, sockstate.SOCK_NOTIFY_EVENT_IN); err != nil {
		return Fact{}, err
	}
	if result, callErr := apply(port, reg(server, 2, sockstate.SOCK_NOTIFY_OP_REMOVE, 0)); callErr != nil || result != 0 {
		return Fact{}, errors.New("REMOVE: " + code(callErr, result))
	}
	e, err := await(port, 2, sockstate.SOCK_NOTIFY_EVENT_REMOVE)
	if err != nil {
		return Fact{}, err
	}
	f := Fact{Answer: "alone", Detail: fmt.Sprintf("REMOVE with IN holding: events %v", sockstate.Events(e.NumberOfBytesTransferred))}
	if e.NumberOfBytesTransferred != sockstate.SOCK_NOTIFY_EVENT_REMOVE {
		f.Answer = "coalesced"
	}
	return f, nil
}

func removeClosed(port windows.Handle) (Fact, error) {
	s, _, err := iwinsock.UDP()
	if err != nil {
		return Fact{}, err
	}
	if result, callErr := apply(port, reg(s, 3, sockstate.SOCK_NOTIFY_OP_ENABLE, persistentLevel)); callErr != nil || result != 0 {
		windows.Closesocket(s)
		return Fact{}, errors.New("ENABLE: " + code(callErr, result))
	}
	windows.Closesocket(s)
	time.Sleep(100 * time.Millisecond)
	result, callErr := apply(port, reg(s, 3, sockstate.SOCK_NOTIFY_OP_REMOVE, 0))
	f := Fact{Detail: "REMOVE after closesocket: " + code(callErr, result)}
	switch {
	case callErr != nil:
		f.Answer = "call"
	case result != 0:
		f.Answer = "entry"
	default:
		f.Answer = "accepted"
	}
	return f, nil
}

func secondPort(first windows.Handle) (Fact, error) {
	second, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return Fact{}, err
	}
	defer windows.CloseHandle(second)
	client, server, done, err := registered(first, 4, sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN)
	if err != nil {
		return Fact{}, err
	}
	defer done()
	// The same key on both ports: whether a later ENABLE changes the key
	// is another question (it does not: SPEC.md B11).
	result, callErr := apply(second, reg(server, 4, sockstate.SOCK_NOTIFY_OP_ENABLE, persistentLevel))
	f := Fact{Detail: "ENABLE on a second port: " + code(callErr, result)}
	if _, err := winsock.Send(client, []byte("x"), 0); err != nil {
		return Fact{}, err
	}
	onFirst, _ := await(first, 4, sockstate.SOCK_NOTIFY_EVENT_IN)
	onSecond, _ := await(second, 4, sockstate.SOCK_NOTIFY_EVENT_IN)
	f.Detail += fmt.Sprintf("; IN on the first port: %v, on the second: %v", onFirst.CompletionKey == 4, onSecond.CompletionKey == 4)
	switch {
	case callErr != nil || result != 0:
		f.Answer = "refuse"
	case onSecond.CompletionKey == 4:
		f.Answer = "move"
	case onFirst.CompletionKey == 4:
		f.Answer = "ignore"
	default:
		f.Answer = "lost"
	}
	return f, nil
}

func emptyCall(port windows.Handle) (Fact, error) {
	err := sockstate.ProcessSocketNotifications(port, 0, nil, 0, 0, nil, nil)
	f := Fact{Answer: "ok", Detail: fmt.Sprintf("both counts 0: %v", err)}
	if errors.Is(err, windows.WSAEINVAL) {
		f.Answer = "einval"
	} else if err != nil {
		f.Answer = "error"
	}
	return f, nil
}

func levelWithoutIO(port windows.Handle) (Fact, error) {
	client, _, done, err := registered(port, 6, sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN)
	if err != nil {
		return Fact{}, err
	}
	defer done()
	if _, err := winsock.Send(client, []byte("unread"), 0); err != nil {
		return Fact{}, err
	}
	if _, err := await(port, 6, sockstate.SOCK_NOTIFY_EVENT_IN); err != nil {
		return Fact{}, err
	}
	// At once, or not until something changes.
	again, ok, err := next(port, atOnce)
	if err != nil {
		return Fact{}, err
	}
	f := Fact{Answer: "dequeue", Detail: "IN again after a dequeue, no I/O between, within 1 s: yes"}
	if !ok || again.CompletionKey != 6 {
		f.Answer, f.Detail = "change", "IN again after a dequeue, no I/O between, within 1 s: no"
	}
	return f, nil
}

func successResult(port windows.Handle) (Fact, error) {
	_, server, done, err := pair()
	if err != nil {
		return Fact{}, err
	}
	defer done()
	r := reg(server, 7, sockstate.SOCK_NOTIFY_OP_ENABLE, persistentLevel)
	firstResult, first := apply(port, r)
	againResult, again := apply(port, r)
	f := Fact{Answer: "zero", Detail: "first ENABLE: " + code(first, firstResult) + "; ENABLE again: " + code(again, againResult)}
	switch {
	case first != nil || again != nil || firstResult != 0:
		f.Answer = "error"
	case againResult == 1:
		f.Answer = "one"
	case againResult != 0:
		f.Answer = "error"
	}
	return f, nil
}

func overlappedField(port windows.Handle) (Fact, error) {
	_, _, done, err := registered(port, 8, sockstate.SOCK_NOTIFY_REGISTER_EVENT_OUT)
	if err != nil {
		return Fact{}, err
	}
	defer done()
	e, err := await(port, 8, sockstate.SOCK_NOTIFY_EVENT_OUT)
	if err != nil {
		return Fact{}, err
	}
	f := Fact{Answer: "null", Detail: fmt.Sprintf("lpOverlapped %#x, Internal %#x", e.Overlapped, e.Internal)}
	if e.Overlapped != 0 {
		f.Answer = "junk"
	}
	return f, nil
}

// tiedSocket asks whether a socket of Go's net package, which the runtime
// has tied to its own completion port, can be registered on another port,
// and whether its packets arrive there. It runs in a process of its own
// (inChild): a packet that went to the runtime's port instead would make
// the runtime throw.
func tiedSocket(port windows.Handle) (Fact, error) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return Fact{}, err
	}
	defer l.Close()
	client, err := net.Dial("tcp4", l.Addr().String())
	if err != nil {
		return Fact{}, err
	}
	defer client.Close()
	server, err := l.Accept()
	if err != nil {
		return Fact{}, err
	}
	defer server.Close()
	raw, err := server.(*net.TCPConn).SyscallConn()
	if err != nil {
		return Fact{}, err
	}
	var h windows.Handle
	if err := raw.Control(func(fd uintptr) { h = windows.Handle(fd) }); err != nil {
		return Fact{}, err
	}
	result, callErr := apply(port, reg(h, 9, sockstate.SOCK_NOTIFY_OP_ENABLE, persistentLevel))
	f := Fact{Answer: "refuse", Detail: "ENABLE of a net package socket: " + code(callErr, result)}
	if callErr != nil || result != 0 {
		return f, nil
	}
	if _, err := client.Write([]byte("x")); err != nil {
		return Fact{}, err
	}
	_, err = await(port, 9, sockstate.SOCK_NOTIFY_EVENT_IN)
	f.Answer = "accept"
	if err != nil {
		f.Answer = "lost"
		f.Detail += "; " + err.Error()
	}
	// The runtime's own I/O on it still works, or it does not.
	apply(port, reg(h, 9, sockstate.SOCK_NOTIFY_OP_REMOVE, 0))
	server.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 1)
	n, err := server.Read(buf)
	f.Detail += fmt.Sprintf("; then net.Conn.Read: %d bytes, %v", n, err)
	return f, nil
}

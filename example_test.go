// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate_test

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/winsock"
)

// GetQueuedCompletionStatusEx dequeues several packets in one call; here
// two that PostQueuedCompletionStatus queued, then a timeout.
func ExampleGetQueuedCompletionStatusEx() {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer windows.CloseHandle(port)
	for key := uintptr(1); key <= 2; key++ {
		if err := windows.PostQueuedCompletionStatus(port, uint32(10*key), key, nil); err != nil {
			fmt.Println(err)
			return
		}
	}

	entries := make([]sockstate.OverlappedEntry, 8)
	var n uint32
	if err := sockstate.GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 1000, false); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries[:n] {
		fmt.Println("key", e.CompletionKey, "bytes", e.NumberOfBytesTransferred)
	}
	err = sockstate.GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 0, false)
	fmt.Println("then:", errors.Is(err, windows.WAIT_TIMEOUT))
	// Output:
	// key 1 bytes 10
	// key 2 bytes 20
	// then: true
}

// Validate applies the documented rules where a registration is built;
// the OS would refuse some of these only at run time, or not at all.
func ExampleSockNotifyRegistration_Validate() {
	s, err := winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer windows.Closesocket(s)

	reg := sockstate.SockNotifyRegistration{
		Socket:        s,
		CompletionKey: 1,
		EventFilter:   sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN,
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockstate.SOCK_NOTIFY_TRIGGER_LEVEL, // as Microsoft's samples write it
	}
	err = reg.Validate()
	fmt.Println(errors.Is(err, sockstate.ErrInvalidRegistration))
	fmt.Println(err)

	reg.TriggerFlags |= sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT
	fmt.Println(reg.Validate())
	// Output:
	// true
	// sockstate: invalid registration: ENABLE with trigger flags LEVEL: needs exactly one of ONESHOT and PERSISTENT
	// <nil>
}

// A registration prints its fields by name and its flags as names.
func ExampleSockNotifyRegistration_String() {
	reg := sockstate.SockNotifyRegistration{
		Socket:        0x1f0,
		CompletionKey: 7,
		EventFilter:   sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN | sockstate.SOCK_NOTIFY_REGISTER_EVENT_HANGUP,
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockstate.SOCK_NOTIFY_TRIGGER_ONESHOT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL,
	}
	fmt.Println(reg)
	// Output: {socket 0x1f0 key 0x7 filter IN|HANGUP op ENABLE trigger ONESHOT|LEVEL result 0}
}

// Process applies registrations and dequeues notifications in one call.
// Here a UDP socket sends itself a datagram; where the OS has no
// ProcessSocketNotifications (Windows before build 20348, Wine), the first
// call returns an error matching ErrNotSupported.
func ExampleProcess() {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer windows.CloseHandle(port)
	s, err := winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer windows.Closesocket(s)
	if err := windows.Bind(s, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		fmt.Println(err)
		return
	}
	sa, err := windows.Getsockname(s)
	if err != nil {
		fmt.Println(err)
		return
	}

	const key = 7 // an ID, never a Go pointer: the OS keeps it
	regs := []sockstate.SockNotifyRegistration{{
		Socket:        s,
		CompletionKey: key,
		EventFilter:   sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN,
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockstate.SOCK_NOTIFY_TRIGGER_ONESHOT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL,
	}}
	if _, err := sockstate.Process(port, regs, nil, 0); err != nil {
		fmt.Println(err) // *RegistrationError, or ErrNotSupported
		return
	}
	if err := windows.Sendto(s, []byte("hello"), 0, sa); err != nil {
		fmt.Println(err)
		return
	}
	entries := make([]sockstate.OverlappedEntry, 8)
	n, err := sockstate.Process(port, nil, entries, 5000)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries[:n] {
		fmt.Println(e.CompletionKey, sockstate.Events(sockstate.SocketNotificationRetrieveEvents(&e)))
	}

	// Remove before closing, and free what the key names only once
	// SOCK_NOTIFY_EVENT_REMOVE has arrived.
	regs[0].Operation = sockstate.SOCK_NOTIFY_OP_REMOVE
	if _, err := sockstate.Process(port, regs, entries, 5000); err != nil {
		fmt.Println(err)
	}
}

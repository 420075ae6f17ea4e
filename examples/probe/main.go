// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

// Command probe tells whether this Windows has the socket state
// notifications API and shows the binding at work: packets posted to an I/O
// completion port and dequeued in one batch with GetQueuedCompletionStatusEx,
// then, where ProcessSocketNotifications exists (Windows build 20348 or
// later), a loopback TCP socket registered for readiness, notified, read and
// removed. It exits 1 if anything it tries fails.
package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/winsock"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(1)
	}
}

func run() error {
	v := windows.RtlGetVersion()
	under := ""
	// Only Wine's ntdll.dll has the wine_get_version export.
	if windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil {
		under = " (under Wine, which reports this version; Wine has no ProcessSocketNotifications)"
	}
	fmt.Printf("Windows %d.%d.%d%s\n", v.MajorVersion, v.MinorVersion, v.BuildNumber, under)

	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return fmt.Errorf("CreateIoCompletionPort: %w", err)
	}
	defer windows.CloseHandle(port)

	if err := batch(port); err != nil {
		return err
	}
	if err := sockstate.LoadProcessSocketNotifications(); err != nil {
		fmt.Println("ProcessSocketNotifications: not available:", err)
		return nil
	}
	fmt.Println("ProcessSocketNotifications: available")
	return readiness(port)
}

// batch posts three packets and dequeues them with one call.
func batch(port windows.Handle) error {
	for key := uintptr(1); key <= 3; key++ {
		if err := windows.PostQueuedCompletionStatus(port, uint32(100*key), key, nil); err != nil {
			return fmt.Errorf("PostQueuedCompletionStatus: %w", err)
		}
	}
	var entries [8]sockstate.OverlappedEntry
	var n uint32
	if err := sockstate.GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 1000, false); err != nil {
		return fmt.Errorf("GetQueuedCompletionStatusEx: %w", err)
	}
	fmt.Printf("GetQueuedCompletionStatusEx: %d packets in one call:", n)
	for _, e := range entries[:n] {
		fmt.Printf(" (key %d, %d bytes)", e.CompletionKey, e.NumberOfBytesTransferred)
	}
	fmt.Println()
	if n != 3 {
		return fmt.Errorf("dequeued %d packets, posted 3", n)
	}
	return nil
}

// readiness registers the server end of a loopback connection for IN and
// HANGUP, sends it a message, and waits for the notification; then it
// removes the registration and waits for SOCK_NOTIFY_EVENT_REMOVE.
func readiness(port windows.Handle) error {
	client, server, err := loopbackPair()
	if err != nil {
		return fmt.Errorf("loopback TCP pair: %w", err)
	}
	defer windows.Closesocket(client)
	defer windows.Closesocket(server)

	const key = 42
	reg := sockstate.SockNotifyRegistration{
		Socket:        server,
		CompletionKey: key,
		EventFilter:   sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN | sockstate.SOCK_NOTIFY_REGISTER_EVENT_HANGUP,
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL,
	}
	if err := apply(port, &reg); err != nil {
		return err
	}
	if _, err := winsock.Send(client, []byte("hello"), 0); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if err := await(port, key, sockstate.SOCK_NOTIFY_EVENT_IN); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, err := winsock.Recv(server, buf, 0)
	if err != nil {
		return fmt.Errorf("recv: %w", err)
	}
	fmt.Printf("read %q\n", buf[:n])

	reg.Operation = sockstate.SOCK_NOTIFY_OP_REMOVE
	if err := apply(port, &reg); err != nil {
		return err
	}
	return await(port, key, sockstate.SOCK_NOTIFY_EVENT_REMOVE)
}

// loopbackPair returns the two ends of a TCP connection on 127.0.0.1.
func loopbackPair() (client, server windows.Handle, err error) {
	l, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return 0, 0, err
	}
	defer windows.Closesocket(l)
	if err := windows.Bind(l, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, 0, err
	}
	if err := windows.Listen(l, 1); err != nil {
		return 0, 0, err
	}
	addr, err := windows.Getsockname(l)
	if err != nil {
		return 0, 0, err
	}
	client, err = winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return 0, 0, err
	}
	if err := windows.Connect(client, addr); err != nil { // completes into the backlog
		windows.Closesocket(client)
		return 0, 0, err
	}
	server, _, err = winsock.Accept(l)
	if err != nil {
		windows.Closesocket(client)
		return 0, 0, err
	}
	return client, server, nil
}

func apply(port windows.Handle, reg *sockstate.SockNotifyRegistration) error {
	if err := sockstate.ProcessSocketNotifications(port, 1, reg, 0, 0, nil, nil); err != nil {
		return fmt.Errorf("ProcessSocketNotifications: %w", err)
	}
	if reg.RegistrationResult != 0 {
		return fmt.Errorf("registration (operation %v): %w", reg.Operation, windows.Errno(reg.RegistrationResult))
	}
	return nil
}

// await dequeues notifications until one for key carries the want bits.
func await(port windows.Handle, key uintptr, want uint32) error {
	for {
		var e sockstate.OverlappedEntry
		var n uint32
		err := sockstate.ProcessSocketNotifications(port, 0, nil, 5000, 1, &e, &n)
		if errors.Is(err, windows.WAIT_TIMEOUT) || errors.Is(err, windows.ERROR_TIMEOUT) {
			return fmt.Errorf("no notification with events %#x within 5 s", want)
		}
		if err != nil {
			return fmt.Errorf("ProcessSocketNotifications: %w", err)
		}
		events := sockstate.SocketNotificationRetrieveEvents(&e)
		fmt.Printf("notification: key %d, events %#x\n", e.CompletionKey, events)
		if e.CompletionKey == key && events&want == want {
			return nil
		}
	}
}

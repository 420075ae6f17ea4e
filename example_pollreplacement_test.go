// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"slices"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/winsock"
)

// A drop-in replacement for a WSAPoll loop: one accepted TCP connection,
// registered once with a persistent level trigger for IN and HANGUP, its
// notifications dequeued with GetQueuedCompletionStatusEx until the client
// hangs up; then the registration is removed and the server waits for
// SOCK_NOTIFY_EVENT_REMOVE before it closes the socket.
func Example_pollReplacement() {
	payload := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1000)
	got, err := pollReplacement(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("received all", len(got), "bytes:", bytes.Equal(got, payload))
}

// connKey identifies the connection in its notifications: an ID, never a
// pointer, because the OS keeps the key after the call.
const connKey = 1

func pollReplacement(payload []byte) ([]byte, error) {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(port)

	listener, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return nil, err
	}
	defer windows.Closesocket(listener)
	if err := windows.Bind(listener, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return nil, err
	}
	if err := windows.Listen(listener, windows.SOMAXCONN); err != nil {
		return nil, err
	}
	sa, err := windows.Getsockname(listener)
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*windows.SockaddrInet4).Port)
	clientDone := make(chan error, 1)
	go func() {
		clientDone <- func() error { // a client of Go's net package
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return err
			}
			defer c.Close()
			for chunk := range slices.Chunk(payload, 4) { // one send each
				if _, err := c.Write(chunk); err != nil {
					return err
				}
			}
			return c.(*net.TCPConn).CloseWrite()
		}()
	}()

	conn, _, err := winsock.Accept(listener)
	if err != nil {
		return nil, err
	}
	defer windows.Closesocket(conn)
	if err := winsock.SetNonblock(conn, true); err != nil {
		return nil, err
	}

	reg := []sockstate.SockNotifyRegistration{{
		Socket:        conn,
		CompletionKey: connKey,
		EventFilter:   sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN | sockstate.SOCK_NOTIFY_REGISTER_EVENT_HANGUP,
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL,
	}}
	if err := reg[0].Validate(); err != nil {
		return nil, err
	}
	if _, err := sockstate.Process(port, reg, nil, 0); err != nil {
		return nil, err
	}

	var received []byte
	buf := make([]byte, 512)
	entries := make([]sockstate.OverlappedEntry, 4)
	for eof := false; !eof; {
		var n uint32
		if err := sockstate.GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 5000, false); err != nil {
			return received, fmt.Errorf("waiting for the client: %w", err)
		}
		for _, e := range entries[:n] {
			if e.CompletionKey != connKey {
				continue
			}
			// The events say what to try; the reads say what happened.
			// Read until the socket would block or the client has
			// closed, whatever the events, so that no data that arrived
			// with a HANGUP is lost.
			for !eof {
				k, err := winsock.Recv(conn, buf, 0)
				if errors.Is(err, windows.WSAEWOULDBLOCK) {
					break
				}
				if err != nil {
					return received, fmt.Errorf("recv after events %v: %w",
						sockstate.Events(sockstate.SocketNotificationRetrieveEvents(&e)), err)
				}
				received = append(received, buf[:k]...)
				eof = k == 0
			}
		}
	}
	if err := <-clientDone; err != nil {
		return received, err
	}
	if err := removeAndWait(port, conn, connKey); err != nil {
		return received, err
	}
	if !bytes.Equal(received, payload) {
		return received, fmt.Errorf("received %d bytes, not the %d the client sent", len(received), len(payload))
	}
	return received, nil
}

// removeAndWait removes the registration of s and dequeues until its
// SOCK_NOTIFY_EVENT_REMOVE arrives; only then may what key names be freed.
func removeAndWait(port windows.Handle, s windows.Handle, key uintptr) error {
	reg := []sockstate.SockNotifyRegistration{{Socket: s, CompletionKey: key, Operation: sockstate.SOCK_NOTIFY_OP_REMOVE}}
	entries := make([]sockstate.OverlappedEntry, 4)
	for {
		n, err := sockstate.Process(port, reg, entries, 5000)
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("no SOCK_NOTIFY_EVENT_REMOVE within 5 s")
		}
		reg = nil // applied; from now on only dequeue
		for _, e := range entries[:n] {
			if e.CompletionKey == key && sockstate.SocketNotificationRetrieveEvents(&e)&sockstate.SOCK_NOTIFY_EVENT_REMOVE != 0 {
				return nil
			}
		}
	}
}

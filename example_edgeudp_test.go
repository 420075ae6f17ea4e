// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate_test

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/winsock"
)

// An edge-triggered UDP server. The socket is registered before it is bound,
// so that no datagram can arrive unnoticed; it is non-blocking, and after
// every notification it is drained until WSAEWOULDBLOCK, since an edge is
// only seen again once the receive buffer has been empty. UDP has no
// HANGUP: the server stops when it has counted every datagram, then removes
// the registration (removeAndWait is in Example_pollReplacement).
func Example_edgeTriggeredUDP() {
	got, err := edgeTriggeredUDP(10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("received", got, "datagrams")
}

const udpKey = 2

func edgeTriggeredUDP(datagrams int) (int, error) {
	if datagrams < 1 || datagrams > 256 {
		return 0, fmt.Errorf("%d datagrams: one byte numbers 1 to 256 of them", datagrams)
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(port)

	s, err := winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
	if err != nil {
		return 0, err
	}
	defer windows.Closesocket(s)
	reg := []sockstate.SockNotifyRegistration{{
		Socket:        s,
		CompletionKey: udpKey,
		EventFilter:   sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN,
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT | sockstate.SOCK_NOTIFY_TRIGGER_EDGE,
	}}
	if _, err := sockstate.Process(port, reg, nil, 0); err != nil {
		return 0, err
	}
	if err := winsock.SetNonblock(s, true); err != nil {
		return 0, err
	}
	if err := windows.Bind(s, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, err
	}
	sa, err := windows.Getsockname(s)
	if err != nil {
		return 0, err
	}
	clientDone := make(chan error, 1)
	go func() {
		clientDone <- func() error { // a second socket sends datagram i, holding the byte i
			c, err := winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
			if err != nil {
				return err
			}
			defer windows.Closesocket(c)
			to := *sa.(*windows.SockaddrInet4) // a copy: x/sys encodes into it
			for i := range datagrams {
				if err := windows.Sendto(c, []byte{byte(i)}, 0, &to); err != nil {
					return err
				}
				if i%10 == 9 {
					time.Sleep(time.Millisecond) // in several batches
				}
			}
			return nil
		}()
	}()

	seen := make([]bool, datagrams) // each datagram carries its number
	count := 0
	buf := make([]byte, 512)
	entries := make([]sockstate.OverlappedEntry, 4)
	for count < datagrams {
		var n uint32
		if err := sockstate.GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 5000, false); err != nil {
			return count, fmt.Errorf("after %d of %d datagrams: %w", count, datagrams, err)
		}
		for _, e := range entries[:n] {
			if e.CompletionKey != udpKey {
				continue
			}
			for { // drain: the next edge needs an empty buffer
				k, err := winsock.Recv(s, buf, 0)
				if errors.Is(err, windows.WSAEWOULDBLOCK) {
					break
				}
				if err != nil {
					return count, fmt.Errorf("recv after events %v: %w",
						sockstate.Events(sockstate.SocketNotificationRetrieveEvents(&e)), err)
				}
				if k != 1 || int(buf[0]) >= datagrams || seen[buf[0]] {
					return count, fmt.Errorf("unexpected datagram %x", buf[:k])
				}
				seen[buf[0]] = true
				count++
			}
		}
	}
	if err := <-clientDone; err != nil {
		return count, err
	}
	return count, removeAndWait(port, s, udpKey)
}

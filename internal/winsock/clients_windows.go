// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package winsock

import (
	"slices"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/winsock"
)

// SendChunks is a client for the examples: it connects to addr, sends
// payload in chunks of chunk bytes, one send each, and closes its side
// gracefully.
func SendChunks(addr *windows.SockaddrInet4, payload []byte, chunk int) error {
	s, err := Dial(addr)
	if err != nil {
		return err
	}
	defer windows.Closesocket(s)
	for msg := range slices.Chunk(payload, chunk) {
		for len(msg) > 0 {
			n, err := winsock.Send(s, msg, 0)
			if err != nil {
				return err
			}
			msg = msg[n:]
		}
	}
	return windows.Shutdown(s, windows.SHUT_WR)
}

// SendDatagrams is a client for the examples: it sends datagrams 0 to n-1
// (n at most 256) to addr, one byte each, pausing after every tenth so that
// they arrive in several batches.
func SendDatagrams(addr *windows.SockaddrInet4, n int) error {
	c, err := winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
	if err != nil {
		return err
	}
	defer windows.Closesocket(c)
	to := *addr // see Dial
	for i := range n {
		if err := windows.Sendto(c, []byte{byte(i)}, 0, &to); err != nil {
			return err
		}
		if i%10 == 9 {
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

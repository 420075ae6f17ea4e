// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller_test

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/poller"
	"github.com/sockstate/sockstate/winsock"
)

// An edge-triggered UDP server: the socket is added before it is bound, so
// that no datagram arrives unnoticed, and after every event it is drained
// until WSAEWOULDBLOCK, as edge triggering requires. It stops when every
// datagram is counted; UDP has no hang-up.
func Example_edgeTriggeredUDP() {
	got, err := edgeTriggeredUDP(100)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("received", got, "datagrams")
	// Output: received 100 datagrams
}

func edgeTriggeredUDP(datagrams int) (int, error) {
	if datagrams < 1 || datagrams > 256 {
		return 0, fmt.Errorf("%d datagrams: one byte numbers 1 to 256", datagrams)
	}
	p, err := poller.New()
	if err != nil {
		return 0, err
	}
	defer p.Close()
	s, err := winsock.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
	if err != nil {
		return 0, err
	}
	defer windows.Closesocket(s)
	if err := winsock.SetNonblock(s, true); err != nil {
		return 0, err
	}
	if err := p.Add(s, 1, poller.Readable, poller.Edge); err != nil {
		return 0, err
	}
	defer p.Delete(s)
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

	seen := make([]bool, datagrams)
	count := 0
	buf := make([]byte, 64)
	events := make([]poller.Event, 4)
	for count < datagrams {
		n, err := p.Wait(events, 5*time.Second)
		if err != nil {
			return count, err
		}
		if n == 0 {
			return count, fmt.Errorf("%d of %d datagrams, then 5 s of silence", count, datagrams)
		}
		for { // drain: the next edge needs an empty buffer
			k, err := winsock.Recv(s, buf, 0)
			if errors.Is(err, windows.WSAEWOULDBLOCK) {
				break
			}
			if err != nil {
				return count, err
			}
			if k != 1 || int(buf[0]) >= datagrams || seen[buf[0]] {
				return count, fmt.Errorf("unexpected datagram %x", buf[:k])
			}
			seen[buf[0]] = true
			count++
		}
	}
	return count, <-clientDone
}

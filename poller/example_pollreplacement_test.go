// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/poller"
	"github.com/sockstate/sockstate/winsock"
)

// A WSAPoll loop replaced by the poller, on every Windows: one accepted TCP
// connection with a level-triggered interest in Readable and HangUp, read
// until the client hangs up, then deleted before it is closed.
func Example_pollReplacement() {
	payload := bytes.Repeat([]byte("poll"), 1000)
	got, err := pollReplacement(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("received all", len(got), "bytes:", bytes.Equal(got, payload))
	// Output: received all 4000 bytes: true
}

func pollReplacement(payload []byte) ([]byte, error) {
	p, err := poller.New()
	if err != nil {
		return nil, err
	}
	defer p.Close()
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
	const key = 1
	if err := p.Add(conn, key, poller.Readable|poller.HangUp, poller.Level); err != nil {
		return nil, err
	}

	var received []byte
	buf := make([]byte, 512)
	events := make([]poller.Event, 4)
	for eof := false; !eof; {
		n, err := p.Wait(events, 5*time.Second)
		if err != nil {
			return received, err
		}
		if n == 0 {
			return received, errors.New("the client went quiet for 5 s")
		}
		// Read until the socket would block or the client is done,
		// whatever the events say, so that no data is left behind.
		for !eof {
			k, err := winsock.Recv(conn, buf, 0)
			if errors.Is(err, windows.WSAEWOULDBLOCK) {
				break
			}
			if err != nil {
				return received, err
			}
			received = append(received, buf[:k]...)
			eof = k == 0
		}
	}
	if err := p.Delete(conn); err != nil {
		return received, err
	}
	return received, <-clientDone
}

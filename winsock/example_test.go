// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package winsock_test

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/winsock"
)

// A non-blocking server socket: Accept and Recv return WSAEWOULDBLOCK,
// which errors.Is recognizes, when there is nothing to take, and the data
// once it has arrived. The client here is Go's net package.
func ExampleSetNonblock() {
	l, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer windows.Closesocket(l)
	if err := windows.Bind(l, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		fmt.Println(err)
		return
	}
	if err := windows.Listen(l, windows.SOMAXCONN); err != nil {
		fmt.Println(err)
		return
	}
	if err := winsock.SetNonblock(l, true); err != nil {
		fmt.Println(err)
		return
	}
	_, _, err = winsock.Accept(l)
	fmt.Println("accept before a client:", errors.Is(err, windows.WSAEWOULDBLOCK))

	sa, err := windows.Getsockname(l)
	if err != nil {
		fmt.Println(err)
		return
	}
	port := sa.(*windows.SockaddrInet4).Port
	client, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	var conn windows.Handle
	for { // a real server waits for readiness instead of spinning
		conn, _, err = winsock.Accept(l)
		if !errors.Is(err, windows.WSAEWOULDBLOCK) {
			break
		}
		windows.SleepEx(1, false)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer windows.Closesocket(conn)
	// The accepted socket is non-blocking like the listener; say so anyway.
	if err := winsock.SetNonblock(conn, true); err != nil {
		fmt.Println(err)
		return
	}
	buf := make([]byte, 64)
	_, err = winsock.Recv(conn, buf, 0)
	fmt.Println("recv before the client writes:", errors.Is(err, windows.WSAEWOULDBLOCK))

	if _, err := client.Write([]byte("hello")); err != nil {
		fmt.Println(err)
		return
	}
	for {
		n, err := winsock.Recv(conn, buf, 0)
		if errors.Is(err, windows.WSAEWOULDBLOCK) {
			windows.SleepEx(1, false)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("received %q\n", buf[:n])
		break
	}
	// Output:
	// accept before a client: true
	// recv before the client writes: true
	// received "hello"
}

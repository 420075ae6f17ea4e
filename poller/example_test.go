// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/poller"
	"github.com/sockstate/sockstate/winsock"
)

// New picks the best backend of this Windows; WithBackend forces one.
// Check the error: SocketNotifications fails where the OS lacks it.
func ExampleNew() {
	p, err := poller.New(poller.WithBackend(poller.AFD))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	fmt.Println(p.Backend())
	// Output: AFD
}

// Add a socket with an interest and a mode, then Wait for its events.
func ExamplePoller_Wait() {
	p, err := poller.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
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
	if err := p.Add(s, 42, poller.Readable, poller.Level); err != nil {
		fmt.Println(err)
		return
	}
	defer p.Delete(s)

	sa, err := windows.Getsockname(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := windows.Sendto(s, []byte("hello"), 0, sa); err != nil {
		fmt.Println(err)
		return
	}
	events := make([]poller.Event, 8)
	n, err := p.Wait(events, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range events[:n] {
		fmt.Println("key", e.Key, e.Events)
	}
	// Output: key 42 Readable
}

// Wake ends a Wait early: here when a context is cancelled, through
// context.AfterFunc.
func ExamplePoller_Wake() {
	p, err := poller.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, func() { p.Wake() })
	defer stop()

	time.AfterFunc(10*time.Millisecond, cancel)
	events := make([]poller.Event, 8)
	n, err := p.Wait(events, time.Minute)
	fmt.Println(n, err, ctx.Err())
	// Output: 0 <nil> context canceled
}

// A socket of Go's net package is registered through its syscall.RawConn.
// It is already tied to the runtime's completion port: the AFD backend
// polls it, ProcessSocketNotifications may refuse it.
func ExamplePoller_Add_netListener() {
	p, err := poller.New(poller.WithBackend(poller.AFD))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	raw, err := l.(*net.TCPListener).SyscallConn()
	if err != nil {
		fmt.Println(err)
		return
	}
	var s windows.Handle
	if err := raw.Control(func(fd uintptr) { s = windows.Handle(fd) }); err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Add(s, 1, poller.Readable, poller.OneShotLevel); err != nil {
		fmt.Println(err)
		return
	}
	defer p.Delete(s) // runs before the deferred l.Close

	c, err := net.Dial("tcp4", l.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	events := make([]poller.Event, 8)
	n, err := p.Wait(events, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range events[:n] {
		fmt.Println("listener", e.Key, e.Events) // a connection to accept
	}
	conn, err := l.Accept()
	if err != nil {
		fmt.Println(err)
		return
	}
	conn.Close()
	// Output: listener 1 Readable
}

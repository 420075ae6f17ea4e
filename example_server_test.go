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
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/winsock"
)

// A multi-threaded TCP server on one completion port: several goroutines
// dequeue notifications with Process, and every registration is one-shot and
// level-triggered, so each readiness goes to one goroutine, which owns the
// connection until it re-arms it in its next Process call. The listener's
// notifications drive accept. Each connection is read one chunk a
// notification; at end of stream its registration is removed, and its
// context is freed only when SOCK_NOTIFY_EVENT_REMOVE arrives. When every
// connection is gone, an exit key posted with PostQueuedCompletionStatus
// stops the goroutines one after another.
func Example_multiThreadedServer() {
	bytes, err := multiThreadedServer(100, 10, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("100 clients sent", bytes, "bytes, all received")
}

const (
	listenerKey = uintptr(1) // connection keys count up from 2
	exitKey     = ^uintptr(0)
	oneShot     = sockstate.SOCK_NOTIFY_TRIGGER_ONESHOT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL
	messageSize = 4
)

// server is the state the goroutines share.
type server struct {
	port, listener windows.Handle
	deadline       time.Time
	clients        int
	streamSize     int // what each client sends

	mu      sync.Mutex
	conns   map[uintptr]*serverConn // by completion key
	nextKey uintptr
	done    [256]bool // the clients whose streams ended whole
	ended   int       // how many streams ended
	got     int       // the bytes of every stream that ended
	err     error     // every failure
}

// serverConn is one accepted connection. Only the goroutine that dequeued
// its one-shot notification touches it until it is re-armed; the mutex
// makes that visible to the race detector, which cannot see the kernel's
// ordering.
type serverConn struct {
	socket windows.Handle
	mu     sync.Mutex
	data   []byte
}

func multiThreadedServer(clients, messages, goroutines int) (int, error) {
	if clients < 1 || clients > 256 || messages < 1 || goroutines < 1 {
		return 0, fmt.Errorf("%d clients, %d messages, %d goroutines: want 1 to 256 clients (one byte tells them apart) and at least one of the others", clients, messages, goroutines)
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(port)
	listener, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return 0, err
	}
	defer windows.Closesocket(listener)
	if err := windows.Bind(listener, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, err
	}
	if err := windows.Listen(listener, windows.SOMAXCONN); err != nil {
		return 0, err
	}
	sa, err := windows.Getsockname(listener)
	if err != nil {
		return 0, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*windows.SockaddrInet4).Port)
	if err := winsock.SetNonblock(listener, true); err != nil {
		return 0, err
	}
	s := &server{port: port, listener: listener, deadline: time.Now().Add(60 * time.Second),
		clients: clients, streamSize: messages * messageSize,
		conns: make(map[uintptr]*serverConn), nextKey: listenerKey + 1}
	if _, err := sockstate.Process(port, []sockstate.SockNotifyRegistration{s.arm(listener, listenerKey)}, nil, 0); err != nil {
		return 0, err
	}

	var workers sync.WaitGroup
	for range goroutines {
		workers.Go(s.work)
	}
	clientErrs := make(chan error, clients)
	for i := range clients {
		go func() {
			clientErrs <- func() error { // a client of Go's net package
				c, err := net.Dial("tcp", addr)
				if err != nil {
					return err
				}
				defer c.Close()
				for chunk := range slices.Chunk(bytes.Repeat([]byte{byte(i)}, messages*messageSize), messageSize) { // one send each
					if _, err := c.Write(chunk); err != nil {
						return err
					}
				}
				return c.(*net.TCPConn).CloseWrite()
			}()
		}()
	}
	for range clients {
		if err := <-clientErrs; err != nil {
			s.fail(fmt.Errorf("client: %w", err))
		}
	}
	workers.Wait()
	if err := removeAndWait(port, listener, listenerKey); err != nil {
		s.fail(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.ended != clients || len(s.conns) != 0 {
		return 0, fmt.Errorf("%d of %d streams ended, %d contexts left", s.ended, clients, len(s.conns))
	}
	return s.got, nil
}

// arm is a one-shot level-triggered registration of s under key.
func (s *server) arm(socket windows.Handle, key uintptr) sockstate.SockNotifyRegistration {
	filter := sockstate.Filter(sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN | sockstate.SOCK_NOTIFY_REGISTER_EVENT_HANGUP)
	if key == listenerKey {
		filter = sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN
	}
	return sockstate.SockNotifyRegistration{Socket: socket, CompletionKey: key, EventFilter: filter,
		Operation: sockstate.SOCK_NOTIFY_OP_ENABLE, TriggerFlags: oneShot}
}

// work is one goroutine's loop: apply the re-arms and removals that the
// last batch produced, dequeue the next batch, handle it.
func (s *server) work() {
	entries := make([]sockstate.OverlappedEntry, 3)
	regs := make([]sockstate.SockNotifyRegistration, 0, 2*len(entries))
	buf := make([]byte, 512)
	for {
		n, err := sockstate.Process(s.port, regs, entries, 1000)
		if err != nil {
			s.fail(err) // a refused re-arm would leave a connection deaf
			var refused *sockstate.RegistrationError
			if !errors.As(err, &refused) {
				return // nothing was dequeued, not even the exit key
			}
		}
		regs = regs[:0]
		if n == 0 && time.Now().After(s.deadline) {
			s.fail(errors.New("the server ran out of time"))
		}
		for _, e := range entries[:n] {
			switch e.CompletionKey {
			case exitKey:
				s.post(exitKey) // wake the next goroutine, then stop
				return
			case listenerKey:
				regs = s.accept(regs)
			default:
				regs = s.serve(regs, e.CompletionKey, sockstate.SocketNotificationRetrieveEvents(&e), buf)
			}
		}
	}
}

// accept takes one connection, registers it, and re-arms the listener.
func (s *server) accept(regs []sockstate.SockNotifyRegistration) []sockstate.SockNotifyRegistration {
	conn, err := winsock.AcceptNoAddr(s.listener)
	switch {
	case errors.Is(err, windows.WSAEWOULDBLOCK):
	case err != nil:
		s.fail(fmt.Errorf("accept: %w", err))
	default:
		if err := winsock.SetNonblock(conn, true); err != nil {
			s.fail(err)
		}
		s.mu.Lock()
		key := s.nextKey
		s.nextKey++
		s.conns[key] = &serverConn{socket: conn}
		s.mu.Unlock()
		regs = append(regs, s.arm(conn, key))
	}
	return append(regs, s.arm(s.listener, listenerKey))
}

// serve handles one notification of a connection: a chunk of data (re-arm),
// the end of the stream or an error (remove), or the removal itself (free).
func (s *server) serve(regs []sockstate.SockNotifyRegistration, key uintptr, events uint32, buf []byte) []sockstate.SockNotifyRegistration {
	s.mu.Lock()
	c := s.conns[key]
	s.mu.Unlock()
	if c == nil {
		s.fail(fmt.Errorf("a notification (%v) for key %d, which names no connection", sockstate.Events(events), key))
		return regs
	}
	if events&sockstate.SOCK_NOTIFY_EVENT_REMOVE != 0 {
		s.finish(key, c)
		return regs
	}
	k, err := winsock.Recv(c.socket, buf, 0)
	switch {
	case errors.Is(err, windows.WSAEWOULDBLOCK):
		return append(regs, s.arm(c.socket, key))
	case err != nil:
		s.fail(fmt.Errorf("recv after %v: %w", sockstate.Events(events), err))
	case k > 0:
		c.mu.Lock()
		c.data = append(c.data, buf[:k]...)
		c.mu.Unlock()
		return append(regs, s.arm(c.socket, key))
	}
	// End of stream, or an error: remove, and free on EVENT_REMOVE.
	return append(regs, sockstate.SockNotifyRegistration{Socket: c.socket, CompletionKey: key, Operation: sockstate.SOCK_NOTIFY_OP_REMOVE})
}

// finish frees a connection after SOCK_NOTIFY_EVENT_REMOVE, checks what it
// sent, and posts the exit key after the last one.
func (s *server) finish(key uintptr, c *serverConn) {
	windows.Closesocket(c.socket)
	c.mu.Lock()
	data := c.data
	c.mu.Unlock()
	s.mu.Lock()
	delete(s.conns, key)
	s.ended++
	s.got += len(data)
	switch {
	case len(data) != s.streamSize:
		s.err = errors.Join(s.err, fmt.Errorf("a stream of %d bytes, not %d", len(data), s.streamSize))
	case s.done[data[0]]:
		s.err = errors.Join(s.err, fmt.Errorf("client %d's stream arrived twice", data[0]))
	case int(data[0]) >= s.clients || strings.Count(string(data), string(data[:1])) != len(data):
		s.err = errors.Join(s.err, fmt.Errorf("a stream of mixed or unknown bytes: %x", data[:min(8, len(data))]))
	default:
		s.done[data[0]] = true
	}
	last := s.ended == s.clients
	s.mu.Unlock()
	if last {
		s.post(exitKey)
	}
}

// fail records the first failure and stops the goroutines.
func (s *server) fail(err error) {
	s.mu.Lock()
	s.err = errors.Join(s.err, err)
	s.mu.Unlock()
	s.post(exitKey)
}

func (s *server) post(key uintptr) {
	if err := windows.PostQueuedCompletionStatus(s.port, 0, key, nil); err != nil {
		panic(err) // the goroutines could not be stopped
	}
}

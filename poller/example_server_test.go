// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package poller_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/poller"
	"github.com/sockstate/sockstate/winsock"
)

// A multi-threaded server: several goroutines Wait on one poller, and every
// registration is one-shot and level-triggered, so each readiness goes to
// one goroutine, which owns the socket until it re-arms it with Modify. The
// listener's events drive accept; at the end of a stream the connection is
// deleted and closed; once every client is served, Close wakes every
// goroutine, whose Wait returns ErrClosed. The server of cmd/echodemo is
// built the same way. (4 goroutines wait here, to exercise them; the
// package documentation weighs how many Ps to give a server's.)
func Example_multiThreadedServer() {
	got, err := multiThreadedServer(100, 10, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("100 clients sent", got, "bytes, all received")
	// Output: 100 clients sent 4000 bytes, all received
}

// listenerKey is the listener's key; connections get 1, 2, ...
const listenerKey = 0

// server is what the goroutines share.
type server struct {
	p        *poller.Poller
	listener windows.Handle
	clients  int
	done     chan struct{} // closed when every stream has ended

	mu       sync.Mutex
	conns    map[uint64]windows.Handle
	nextKey  uint64
	received int
	ended    int
	err      error
}

func multiThreadedServer(clients, messages, goroutines int) (int, error) {
	p, err := poller.New()
	if err != nil {
		return 0, err
	}
	defer p.Close() // a second Close, after the one below, only reports ErrClosed
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
	if err := winsock.SetNonblock(listener, true); err != nil {
		return 0, err
	}
	sa, err := windows.Getsockname(listener)
	if err != nil {
		return 0, err
	}
	s := &server{p: p, listener: listener, clients: clients, done: make(chan struct{}),
		conns: make(map[uint64]windows.Handle), nextKey: listenerKey + 1}
	if err := p.Add(listener, listenerKey, poller.Readable, poller.OneShotLevel); err != nil {
		return 0, err
	}

	var workers sync.WaitGroup
	for range goroutines {
		workers.Go(s.work)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*windows.SockaddrInet4).Port)
	clientErrs := make(chan error, clients)
	for range clients {
		go func() {
			clientErrs <- func() error { // a client of Go's net package
				c, err := net.Dial("tcp", addr)
				if err != nil {
					return err
				}
				defer c.Close()
				for range messages {
					if _, err := c.Write([]byte("ping")); err != nil {
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
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		s.fail(errors.New("the streams did not end within a minute"))
	}
	if err := p.Close(); err != nil { // wakes every Wait, waits for them
		s.fail(err)
	}
	workers.Wait()

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns { // only after a failure
		windows.Closesocket(c)
	}
	return s.received, s.err
}

// work is one goroutine: wait, handle each event, re-arm what it handled.
func (s *server) work() {
	events := make([]poller.Event, 4)
	buf := make([]byte, 512)
	for {
		n, err := s.p.Wait(events, 5*time.Second)
		if errors.Is(err, poller.ErrClosed) {
			return
		}
		if err != nil {
			s.fail(err)
			return
		}
		for _, e := range events[:n] {
			if e.Key == listenerKey {
				s.accept()
			} else {
				s.serve(e.Key, buf)
			}
		}
	}
}

// accept takes every pending connection, adds each, and re-arms the
// listener.
func (s *server) accept() {
	for {
		conn, err := winsock.AcceptNoAddr(s.listener)
		if errors.Is(err, windows.WSAEWOULDBLOCK) {
			break
		}
		if err != nil {
			s.fail(fmt.Errorf("accept: %w", err))
			return
		}
		if err := winsock.SetNonblock(conn, true); err != nil {
			windows.Closesocket(conn)
			s.fail(err)
			return
		}
		s.mu.Lock()
		key := s.nextKey
		s.nextKey++
		s.conns[key] = conn
		s.mu.Unlock()
		if err := s.p.Add(conn, key, poller.Readable|poller.HangUp, poller.OneShotLevel); err != nil {
			s.fail(err)
			return
		}
	}
	// ErrClosed: the last stream ended, and the server closed the poller,
	// while this goroutine was still taking connections.
	if err := s.p.Modify(s.listener, listenerKey, poller.Readable, poller.OneShotLevel); err != nil && !errors.Is(err, poller.ErrClosed) {
		s.fail(err)
	}
}

// serve reads what one connection has, then re-arms it, or at the end of
// its stream deletes and closes it.
func (s *server) serve(key uint64, buf []byte) {
	s.mu.Lock()
	conn, ok := s.conns[key]
	s.mu.Unlock()
	if !ok {
		s.fail(fmt.Errorf("an event for key %d, which names no connection", key))
		return
	}
	for {
		k, err := winsock.Recv(conn, buf, 0)
		if errors.Is(err, windows.WSAEWOULDBLOCK) {
			if err := s.p.Modify(conn, key, poller.Readable|poller.HangUp, poller.OneShotLevel); err != nil {
				s.fail(err)
			}
			return
		}
		if err != nil {
			s.fail(fmt.Errorf("recv: %w", err))
			return
		}
		if k == 0 {
			break // the end of the stream
		}
		if !bytes.Equal(buf[:k], bytes.Repeat([]byte("ping"), k/4)) {
			s.fail(fmt.Errorf("received %q", buf[:k]))
		}
		s.mu.Lock()
		s.received += k
		s.mu.Unlock()
	}
	err := s.p.Delete(conn)
	windows.Closesocket(conn)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, key)
	s.ended++
	if s.ended == s.clients {
		close(s.done)
	}
	if err != nil {
		s.err = errors.Join(s.err, err)
	}
}

func (s *server) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = errors.Join(s.err, err)
}

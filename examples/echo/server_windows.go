// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package echo is an example: a TCP echo server on the poller, and the
// load that cmd/echodemo and the benchmarks drive it with: clients that
// each send messages one at a time and check that every byte comes back.
// It is example code, read it and copy from it; it is not part of the
// module's API and may change in any version.
package echo

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/poller"
	"github.com/sockstate/sockstate/winsock"
)

// listenerKey is the listener's key; connections' keys are their sockets.
const listenerKey = 0

// Server echoes every connection accepted on its listener, with several
// goroutines waiting on one poller and one-shot registrations: each
// readiness goes to one goroutine, which reads, writes back, and re-arms.
type Server struct {
	p        *poller.Poller
	listener windows.Handle
	addr     *windows.SockaddrInet4
	workers  sync.WaitGroup

	mu  sync.Mutex
	err error
}

// Listen starts an echo server on 127.0.0.1 with the given poller backend
// and number of goroutines. How many Ps (GOMAXPROCS) to give them the
// poller's package documentation weighs.
func Listen(backend poller.Backend, goroutines int) (*Server, error) {
	if goroutines < 1 {
		return nil, fmt.Errorf("echo: %d goroutines", goroutines)
	}
	p, err := poller.New(poller.WithBackend(backend))
	if err != nil {
		return nil, err
	}
	l, addr, err := listenLoopback()
	if err != nil {
		p.Close()
		return nil, err
	}
	s := &Server{p: p, listener: l, addr: addr}
	if err := winsock.SetNonblock(l, true); err != nil {
		s.shut()
		return nil, err
	}
	if err := p.Add(l, listenerKey, poller.Readable, poller.OneShotLevel); err != nil {
		s.shut()
		return nil, err
	}
	for range goroutines {
		s.workers.Go(s.work)
	}
	return s, nil
}

// listenLoopback opens a TCP socket listening on 127.0.0.1, at a port the
// OS picks, and returns it with that address.
func listenLoopback() (windows.Handle, *windows.SockaddrInet4, error) {
	l, err := winsock.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return windows.InvalidHandle, nil, err
	}
	err = windows.Bind(l, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	if err == nil {
		err = windows.Listen(l, windows.SOMAXCONN)
	}
	var sa windows.Sockaddr
	if err == nil {
		sa, err = windows.Getsockname(l)
	}
	if err != nil {
		windows.Closesocket(l)
		return windows.InvalidHandle, nil, err
	}
	return l, sa.(*windows.SockaddrInet4), nil
}

// Addr is the server's address.
func (s *Server) Addr() *windows.SockaddrInet4 { return s.addr }

// Backend is the poller's backend.
func (s *Server) Backend() poller.Backend { return s.p.Backend() }

// Close stops the goroutines and returns the first error they met.
func (s *Server) Close() error {
	s.p.Close()
	s.workers.Wait()
	windows.Closesocket(s.listener)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Server) shut() {
	s.p.Close()
	windows.Closesocket(s.listener)
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	s.err = errors.Join(s.err, err)
	s.mu.Unlock()
}

func (s *Server) work() {
	events := make([]poller.Event, 16)
	buf := make([]byte, 64<<10)
	for {
		n, err := s.p.Wait(events, -1)
		if err != nil {
			if !errors.Is(err, poller.ErrClosed) {
				s.fail(err)
			}
			return
		}
		for _, e := range events[:n] {
			if e.Key == listenerKey {
				s.accept()
				continue
			}
			s.serve(windows.Handle(e.Key), buf)
		}
	}
}

// accept takes every waiting connection, then re-arms the listener.
func (s *Server) accept() {
	for {
		// Without the peer's address, which the server does not use:
		// Accept would allocate it, a garbage object a connection.
		c, err := winsock.AcceptNoAddr(s.listener)
		if errors.Is(err, windows.WSAEWOULDBLOCK) {
			break
		}
		if reset(err) {
			// A client that reset its connection before it was taken.
			// Take the next.
			continue
		}
		if err != nil {
			s.fail(fmt.Errorf("accept: %w", err))
			break
		}
		if err := winsock.SetNonblock(c, true); err != nil {
			s.fail(err)
			windows.Closesocket(c)
			continue
		}
		if err := s.p.Add(c, uint64(c), poller.Readable|poller.HangUp, poller.OneShotLevel); err != nil {
			s.fail(err)
			windows.Closesocket(c)
		}
	}
	if err := s.p.Modify(s.listener, listenerKey, poller.Readable, poller.OneShotLevel); err != nil && !errors.Is(err, poller.ErrClosed) {
		s.fail(err)
	}
}

// serve reads what connection c has, echoes it, and re-arms c; at the end
// of its stream, or when the peer resets it, it deletes and closes c.
func (s *Server) serve(c windows.Handle, buf []byte) {
	n, err := winsock.Recv(c, buf, 0)
	switch {
	case errors.Is(err, windows.WSAEWOULDBLOCK):
	case err != nil || n == 0:
		if err != nil && !reset(err) {
			s.fail(fmt.Errorf("recv: %w", err))
		}
		s.drop(c)
		return
	default:
		if err := sendAll(c, buf[:n]); err != nil {
			if !reset(err) {
				s.fail(err)
			}
			s.drop(c)
			return
		}
	}
	if err := s.p.Modify(c, uint64(c), poller.Readable|poller.HangUp, poller.OneShotLevel); err != nil && !errors.Is(err, poller.ErrClosed) {
		s.fail(err)
	}
}

// drop deletes connection c from the poller and closes it.
func (s *Server) drop(c windows.Handle) {
	s.p.Delete(c)
	windows.Closesocket(c)
}

// reset reports whether err says that the peer reset or aborted the
// connection: the peer's doing, not a fault of the server.
func reset(err error) bool {
	return errors.Is(err, windows.WSAECONNRESET) || errors.Is(err, windows.WSAECONNABORTED)
}

// sendAll writes all of b to the non-blocking socket c. The clients send
// one message at a time and read its echo first, so the socket's buffer
// has room; a full buffer is waited out briefly all the same (the clock
// is read only then: not once a message).
func sendAll(c windows.Handle, b []byte) error {
	var deadline time.Time // from the first full buffer
	for len(b) > 0 {
		n, err := winsock.Send(c, b, 0)
		if errors.Is(err, windows.WSAEWOULDBLOCK) {
			if deadline.IsZero() {
				deadline = time.Now().Add(10 * time.Second)
			} else if time.Now().After(deadline) {
				return errors.New("send: the peer has not read for 10 s")
			}
			time.Sleep(time.Millisecond)
			continue
		}
		if err != nil {
			return fmt.Errorf("send: %w", err)
		}
		b = b[n:]
	}
	return nil
}

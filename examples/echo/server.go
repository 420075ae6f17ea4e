// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package echo

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/sockstate/sockstate/poller"
)

// listenerKey is the listener's key; connections' keys are their sockets,
// and no socket has this value (a descriptor is at most MaxInt32, and it is
// INVALID_SOCKET on Windows).
const listenerKey = ^uint64(0)

// Server echoes every connection accepted on its listener, with several
// goroutines waiting on one poller and one-shot registrations: each
// readiness goes to one goroutine, which reads, writes back, and re-arms.
type Server struct {
	p        *poller.Poller
	listener poller.Socket
	addr     netip.AddrPort
	workers  sync.WaitGroup

	mu  sync.Mutex
	err error
}

// Listen starts an echo server on 127.0.0.1 with the given poller backend
// (poller.Auto: the best this system has) and number of goroutines
// waiting on the poller.
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
	if err := p.Add(l, listenerKey, poller.Readable, poller.OneShotLevel); err != nil {
		p.Close()
		closeSocket(l)
		return nil, err
	}
	for range goroutines {
		s.workers.Go(s.work)
	}
	return s, nil
}

// Addr is the server's address.
func (s *Server) Addr() netip.AddrPort { return s.addr }

// Backend is the poller's backend.
func (s *Server) Backend() poller.Backend { return s.p.Backend() }

// Close stops the goroutines and returns the first error they met.
func (s *Server) Close() error {
	s.p.Close()
	s.workers.Wait()
	closeSocket(s.listener)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
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
			s.serve(poller.Socket(e.Key), buf)
		}
	}
}

// accept takes every waiting connection, then re-arms the listener.
func (s *Server) accept() {
	for {
		c, err := acceptConn(s.listener)
		if wouldBlock(err) {
			break
		}
		if peerGone(err) {
			// A client that reset its connection before it was taken.
			// Take the next.
			continue
		}
		if err != nil {
			s.fail(fmt.Errorf("accept: %w", err))
			break
		}
		if err := s.p.Add(c, uint64(c), poller.Readable|poller.HangUp, poller.OneShotLevel); err != nil {
			s.fail(err)
			closeSocket(c)
		}
	}
	if err := s.p.Modify(s.listener, listenerKey, poller.Readable, poller.OneShotLevel); err != nil && !errors.Is(err, poller.ErrClosed) {
		s.fail(err)
	}
}

// serve reads what connection c has, echoes it, and re-arms c; at the end
// of its stream, or when the peer resets it, it deletes and closes c.
func (s *Server) serve(c poller.Socket, buf []byte) {
	n, err := recvNow(c, buf)
	switch {
	case wouldBlock(err):
	case err != nil || n == 0:
		if err != nil && !peerGone(err) {
			s.fail(fmt.Errorf("recv: %w", err))
		}
		s.drop(c)
		return
	default:
		if err := sendAll(c, buf[:n], sendNow); err != nil {
			if !peerGone(err) {
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

// drop deletes connection c from the poller and closes it: Delete first,
// as the poller asks.
func (s *Server) drop(c poller.Socket) {
	s.p.Delete(c)
	closeSocket(c)
}

// sendAll writes all of b to socket c with send: sendNow on the server's
// non-blocking sockets, send on the clients' blocking ones. The clients
// send one message at a time and read its echo first, so the server's
// socket buffer has room; a full buffer is waited out briefly all the
// same (the clock is read only then: not once a message).
func sendAll(c poller.Socket, b []byte, send func(poller.Socket, []byte) (int, error)) error {
	var deadline time.Time // from the first full buffer
	for len(b) > 0 {
		n, err := send(c, b)
		if wouldBlock(err) {
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

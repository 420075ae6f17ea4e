// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux || windows

package echo

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"sync"
)

// Stream sends, on each of clients connections at once, messages numbered
// messages of 16 bytes without waiting for their echoes, reads the echoes
// on another goroutine, and checks that each comes back once, in order. It
// returns how many messages came back.
func Stream(addr netip.AddrPort, clients, messages int) (int64, error) {
	var total int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for id := range clients {
		wg.Go(func() {
			n, err := streamClient(addr, uint32(id), messages)
			mu.Lock()
			defer mu.Unlock()
			total += n
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	return total, firstErr
}

const streamMsg = 16 // client id, sequence number, and 8 bytes derived from both

func encode(b []byte, id, seq uint32) {
	binary.LittleEndian.PutUint32(b[0:], id)
	binary.LittleEndian.PutUint32(b[4:], seq)
	binary.LittleEndian.PutUint64(b[8:], uint64(id)<<32^uint64(seq)*0x9E3779B97F4A7C15)
}

func streamClient(addr netip.AddrPort, id uint32, messages int) (int64, error) {
	s, err := dial(addr)
	if err != nil {
		return 0, fmt.Errorf("client %d: %w", id, err)
	}
	defer closeSocket(s)
	sendErr := make(chan error, 1)
	go func() {
		batch := make([]byte, 0, 1024*streamMsg)
		for seq := 0; seq < messages; {
			batch = batch[:0]
			for ; seq < messages && len(batch) < cap(batch); seq++ {
				batch = batch[:len(batch)+streamMsg]
				encode(batch[len(batch)-streamMsg:], id, uint32(seq))
			}
			if err := sendAll(s, batch, send); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- shutdownWrite(s)
	}()

	buf := make([]byte, 64<<10)
	want := make([]byte, streamMsg)
	var got int64
	var partial []byte
	for got < int64(messages) {
		n, err := recv(s, buf)
		if err != nil {
			return got, fmt.Errorf("client %d: recv: %w", id, err)
		}
		if n == 0 {
			return got, fmt.Errorf("client %d: the server closed after %d of %d messages", id, got, messages)
		}
		data := append(partial, buf[:n]...)
		for len(data) >= streamMsg {
			encode(want, id, uint32(got))
			if string(data[:streamMsg]) != string(want) {
				return got, fmt.Errorf("client %d: message %d came back as %x", id, got, data[:streamMsg])
			}
			data = data[streamMsg:]
			got++
		}
		partial = append(partial[:0], data...)
	}
	return got, <-sendErr
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package echo

import (
	"net"
	"sync"
)

// ServeNet is the same echo on Go's net package, with a goroutine and a
// 4 KiB buffer a connection: what the benchmarks compare the poller's
// server with. It echoes on every connection l accepts until l is closed,
// and returns once every connection has ended.
func ServeNet(l net.Listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		wg.Go(func() {
			defer c.Close()
			buf := make([]byte, 4096) // io.Copy would take 32 KiB (TCPConn's ReadFrom)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		})
	}
}

//go:build windows

package poller_test

import (
	"fmt"
	"runtime"

	"github.com/sockstate/sockstate/internal/echo"
	"github.com/sockstate/sockstate/poller"
)

// A multi-threaded server: several goroutines wait on one poller, every
// registration is one-shot and level-triggered so that each readiness goes
// to one goroutine, which reads, answers and re-arms with Modify; the
// listener's events drive accept; at the end of a stream the connection is
// deleted, and Close wakes every goroutine to stop. The server is
// internal/echo's (server_windows.go); here a hundred clients each send
// ten messages and check every byte of every echo.
func Example_multiThreadedServer() {
	srv, err := echo.Listen(poller.Auto, runtime.GOMAXPROCS(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := echo.Run(srv.Addr(), echo.Load{Clients: 100, Messages: 10, Size: 64})
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Connections, "clients,", r.Messages, "messages,", r.Bytes, "bytes echoed")
	// Output: 100 clients, 1000 messages, 64000 bytes echoed
}

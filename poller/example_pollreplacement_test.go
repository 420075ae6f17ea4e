//go:build windows

package poller_test

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/winsock"
	"github.com/sockstate/sockstate/poller"
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
	listener, addr, err := winsock.Listen()
	if err != nil {
		return nil, err
	}
	defer windows.Closesocket(listener)
	clientDone := make(chan error, 1)
	go func() { clientDone <- winsock.SendChunks(addr, payload, 4) }()
	conn, err := winsock.Accept(listener)
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
			k, err := winsock.Recv(conn, buf)
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

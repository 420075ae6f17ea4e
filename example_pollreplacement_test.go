//go:build windows

package sockstate_test

import (
	"bytes"
	"errors"
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/winsock"
)

// A drop-in replacement for a WSAPoll loop: one accepted TCP connection,
// registered once with a persistent level trigger for IN and HANGUP, its
// notifications dequeued with GetQueuedCompletionStatusEx until the client
// hangs up; then the registration is removed and the server waits for
// SOCK_NOTIFY_EVENT_REMOVE before it closes the socket.
func Example_pollReplacement() {
	payload := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1000)
	got, err := pollReplacement(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("received all", len(got), "bytes:", bytes.Equal(got, payload))
}

// connKey identifies the connection in its notifications: an ID, never a
// pointer, because the OS keeps the key after the call.
const connKey = 1

func pollReplacement(payload []byte) ([]byte, error) {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(port)

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

	reg := []sockstate.SockNotifyRegistration{{
		Socket:        conn,
		CompletionKey: connKey,
		EventFilter:   sockstate.SOCK_NOTIFY_REGISTER_EVENT_IN | sockstate.SOCK_NOTIFY_REGISTER_EVENT_HANGUP,
		Operation:     sockstate.SOCK_NOTIFY_OP_ENABLE,
		TriggerFlags:  sockstate.SOCK_NOTIFY_TRIGGER_PERSISTENT | sockstate.SOCK_NOTIFY_TRIGGER_LEVEL,
	}}
	if err := reg[0].Validate(); err != nil {
		return nil, err
	}
	if _, err := sockstate.Process(port, reg, nil, 0); err != nil {
		return nil, err
	}

	var received []byte
	buf := make([]byte, 512)
	entries := make([]sockstate.OverlappedEntry, 4)
	for eof := false; !eof; {
		var n uint32
		if err := sockstate.GetQueuedCompletionStatusEx(port, &entries[0], uint32(len(entries)), &n, 5000, false); err != nil {
			return received, fmt.Errorf("waiting for the client: %w", err)
		}
		for _, e := range entries[:n] {
			if e.CompletionKey != connKey {
				continue
			}
			// The events say what to try; the reads say what happened.
			// Read until the socket would block or the client has
			// closed, whatever the events, so that no data that arrived
			// with a HANGUP is lost.
			for !eof {
				k, err := winsock.Recv(conn, buf)
				if errors.Is(err, windows.WSAEWOULDBLOCK) {
					break
				}
				if err != nil {
					return received, fmt.Errorf("recv after events %v: %w",
						sockstate.Events(sockstate.SocketNotificationRetrieveEvents(&e)), err)
				}
				received = append(received, buf[:k]...)
				eof = k == 0
			}
		}
	}
	if err := <-clientDone; err != nil {
		return received, err
	}
	if err := removeAndWait(port, conn, connKey); err != nil {
		return received, err
	}
	if !bytes.Equal(received, payload) {
		return received, fmt.Errorf("received %d bytes, not the %d the client sent", len(received), len(payload))
	}
	return received, nil
}

// removeAndWait removes the registration of s and dequeues until its
// SOCK_NOTIFY_EVENT_REMOVE arrives; only then may what key names be freed.
func removeAndWait(port windows.Handle, s windows.Handle, key uintptr) error {
	reg := []sockstate.SockNotifyRegistration{{Socket: s, CompletionKey: key, Operation: sockstate.SOCK_NOTIFY_OP_REMOVE}}
	entries := make([]sockstate.OverlappedEntry, 4)
	for {
		n, err := sockstate.Process(port, reg, entries, 5000)
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("no SOCK_NOTIFY_EVENT_REMOVE within 5 s")
		}
		reg = nil // applied; from now on only dequeue
		for _, e := range entries[:n] {
			if e.CompletionKey == key && sockstate.SocketNotificationRetrieveEvents(&e)&sockstate.SOCK_NOTIFY_EVENT_REMOVE != 0 {
				return nil
			}
		}
	}
}

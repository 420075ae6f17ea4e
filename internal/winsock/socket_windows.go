// Package winsock holds the few Winsock calls and loopback socket helpers
// that the tests, the examples and the poller of this module need and that
// golang.org/x/sys/windows lacks. Its sockets are plain Winsock sockets, not
// Go's net package, whose sockets are already tied to the runtime's own
// completion port.
package winsock

import (
	"sync"

	"golang.org/x/sys/windows"
)

// fionbio is FIONBIO of winsock2.h: _IOW('f', 126, u_long).
const fionbio = 0x8004667e

var startup = sync.OnceValue(func() error {
	var data windows.WSAData
	return windows.WSAStartup(uint32(0x0202), &data)
})

// Socket starts Winsock once and opens a socket.
func Socket(domain, typ, proto int) (windows.Handle, error) {
	if err := startup(); err != nil {
		return windows.InvalidHandle, err
	}
	return windows.Socket(domain, typ, proto)
}

// Accept accepts one connection from the listening socket l.
func Accept(l windows.Handle) (windows.Handle, error) {
	return accept(l, nil, nil)
}

// SetNonblock switches the socket's non-blocking mode (FIONBIO).
func SetNonblock(s windows.Handle, on bool) error {
	var arg uint32
	if on {
		arg = 1
	}
	return ioctlsocket(s, fionbio, &arg)
}

// Recv receives into buf; 0 bytes with a nil error means the peer closed.
func Recv(s windows.Handle, buf []byte) (int, error) {
	n, err := recv(s, buf, 0)
	return int(n), err
}

// Send sends from buf and returns how many bytes were taken.
func Send(s windows.Handle, buf []byte) (int, error) {
	n, err := send(s, buf, 0)
	return int(n), err
}

// Listen opens a TCP socket listening on 127.0.0.1 at a port the OS picks,
// and returns it with its address.
func Listen() (windows.Handle, *windows.SockaddrInet4, error) {
	return bound(windows.SOCK_STREAM, windows.IPPROTO_TCP, true)
}

// UDP opens a UDP socket bound to 127.0.0.1 at a port the OS picks, and
// returns it with its address.
func UDP() (windows.Handle, *windows.SockaddrInet4, error) {
	return bound(windows.SOCK_DGRAM, windows.IPPROTO_UDP, false)
}

func bound(typ, proto int, listen bool) (windows.Handle, *windows.SockaddrInet4, error) {
	s, err := Socket(windows.AF_INET, typ, proto)
	if err != nil {
		return windows.InvalidHandle, nil, err
	}
	addr, err := bind(s, listen)
	if err != nil {
		windows.Closesocket(s)
		return windows.InvalidHandle, nil, err
	}
	return s, addr, nil
}

func bind(s windows.Handle, listen bool) (*windows.SockaddrInet4, error) {
	if err := windows.Bind(s, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return nil, err
	}
	if listen {
		if err := windows.Listen(s, windows.SOMAXCONN); err != nil {
			return nil, err
		}
	}
	sa, err := windows.Getsockname(s)
	if err != nil {
		return nil, err
	}
	return sa.(*windows.SockaddrInet4), nil
}

// Dial opens a TCP socket and connects it to addr, blocking until done.
// Several goroutines may dial one addr at once.
func Dial(addr *windows.SockaddrInet4) (windows.Handle, error) {
	s, err := Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		return windows.InvalidHandle, err
	}
	// A copy: x/sys encodes a Sockaddr into the value itself, so sharing
	// one between goroutines is a data race.
	to := *addr
	if err := windows.Connect(s, &to); err != nil {
		windows.Closesocket(s)
		return windows.InvalidHandle, err
	}
	return s, nil
}

// Pair returns the two ends of a connected loopback TCP connection.
func Pair() (client, server windows.Handle, err error) {
	l, addr, err := Listen()
	if err != nil {
		return windows.InvalidHandle, windows.InvalidHandle, err
	}
	defer windows.Closesocket(l)
	client, err = Dial(addr)
	if err != nil {
		return windows.InvalidHandle, windows.InvalidHandle, err
	}
	server, err = Accept(l)
	if err != nil {
		windows.Closesocket(client)
		return windows.InvalidHandle, windows.InvalidHandle, err
	}
	return client, server, nil
}

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package poller is an epoll-style readiness poller for Go, with one API
// on Linux and Windows: add sockets with an [Interest] and a [Mode]
// ([Poller.Add]), then [Poller.Wait] for [Event] values, from one
// goroutine or several. It is for event loops that manage many
// non-blocking sockets themselves, where Go's net package would give each
// connection a goroutine.
//
// # Backends
//
// [New] picks the backend ([Backend]) the system has; [WithBackend] forces
// one:
//   - Linux: [Epoll], epoll(7) through golang.org/x/sys/unix.
//   - Windows 10 build 20348 and later (Windows 11, Windows Server 2022):
//     [SocketNotifications], the ProcessSocketNotifications call of
//     [github.com/sockstate/sockstate].
//   - Every other Windows, and Wine: [AFD], the socket driver's readiness
//     request (IOCTL_AFD_POLL), as wepoll, mio and libuv use it.
//   - Any other system: the package builds, and New returns an error
//     matching errors.ErrUnsupported, so that a portable program needs no
//     build tags to import it. (kqueue is not here: nothing this project
//     runs could test it.)
//
// # Sockets
//
// A [Socket] is the OS's name for a socket: a file descriptor on Linux, a
// SOCKET handle on Windows. It must be non-blocking for an event loop to
// be of use: on Linux, unix.SetNonblock; on Windows,
// [github.com/sockstate/sockstate/winsock] has SetNonblock, Accept, Recv
// and Send, whose errors match windows.WSAEWOULDBLOCK. The socket of a
// net.TCPConn, net.TCPListener or net.UDPConn is registered through its
// syscall.RawConn ([Poller.AddConn]); Go's runtime polls it too, which is
// harmless as long as the program reads and writes it through one of the
// two.
//
// The kernel never holds a Go pointer: it is handed slot IDs (an index
// and a generation), and the caller's key lives in the poller's table, so
// changing a key ([Poller.Modify]) costs no system call, and an event of a
// deleted registration never reaches the caller, even when the OS had it
// queued already. Every system call that registers, re-arms or removes a
// socket is made under the poller's lock; Wait blocks without it.
//
// # Events
//
// Each event has one meaning on every backend:
//   - [Readable]: data to read, a connection to accept, or the end of the
//     stream (a read returns 0 bytes).
//   - [Writable]: room to write, or a connect that completed.
//   - [HangUp]: the peer will send no more: it closed (FIN) or reset the
//     connection. A socket whose peer only shut down its sending side
//     stays writable.
//   - [Error]: the socket is in error: a reset, or a connect that failed.
//     It is reported whatever the interest; receive (or, on Linux, read
//     SO_ERROR) to learn which.
//
// A Wait reports each registration at most once, with every bit that the
// OS reported of it, under its current key.
//
// # Modes
//
// [Level] reports a socket while it is ready, at every Wait; [Edge] when it
// becomes ready (drain it until the call would block before waiting
// again); [OneShotLevel] and [OneShotEdge] report once, to one Wait, and
// then nothing until Modify re-arms them: the way to hand each readiness
// to one goroutine when several Wait.
//
// # Differences between the backends
//
// Where the OS leaves no choice, the backends differ:
//   - [Level] with several goroutines in Wait: epoll hands a socket that
//     stays ready to every Wait that is blocked, and
//     ProcessSocketNotifications may hand it to one, while another
//     goroutine still handles it; AFD polls a reported socket again only
//     when the next Wait starts.
//   - [Edge]: epoll reports each new arrival, also with data still unread;
//     ProcessSocketNotifications reports new data only after a drain; AFD
//     emulates Edge by polling again after each event, so a socket drained
//     in part is reported again. A caller that drains each event until the
//     call would block, as edge triggering requires, sees the same events
//     on all three. An Add or a Modify to Edge (or OneShotEdge) of a socket
//     that is ready already reports it at once on epoll, a Modify to Edge
//     on AFD too; ProcessSocketNotifications waits for the next change.
//   - A socket closed without Delete: epoll drops the registration with
//     the last descriptor of the socket, and Add of its number succeeds;
//     while a second descriptor of it is open (a dup, a child's copy), the
//     kernel keeps the registration under the closed number, which no
//     call can reach: its events come under its key until Delete, and one
//     whose condition holds (a Level one that stays ready, or any one hung
//     up) makes Wait return to the kernel at once, at full CPU, until that
//     descriptor closes. AFD reports the close of a socket that has a poll
//     out (Level, Edge, an armed one-shot) and the poller frees the slot;
//     ProcessSocketNotifications removes the registration silently. Where
//     the poller has not noticed the close, the handle stays registered
//     until Delete or Close, and Add of it is refused. Call Delete before
//     closing a socket (see [Poller.Delete]).
//   - A peer's close after data that is unread: epoll reports HangUp with
//     Readable at once; under Wine (on AFD) HangUp comes only once the data
//     is read, and whether Windows does the same is not known. Ask for
//     Readable|HangUp to learn of data and close at once.
//   - A reset: epoll reports Error with HangUp, and Readable and Writable
//     if they are asked for (a receive returns the error); AFD reports
//     Error, and HangUp if asked for. A failed connect: Error on both, and
//     on epoll HangUp too if it is asked for. Once the error is read, epoll
//     reports the socket as closed for good (EPOLLHUP), which the poller
//     does not hand out (nor for a socket not connected yet, which epoll
//     reports so too) and which costs no CPU; a Level registration that
//     asks for Readable or HangUp still reports the end of the stream at
//     every Wait, as on AFD, where an aborted connection stays in error
//     (SO_ERROR reads 0) and a Level registration reports it at every
//     Wait until Delete.
//   - Sockets of Go's net package: epoll and AFD poll them as any other.
//     On Windows they are tied to the runtime's completion port, and
//     whether ProcessSocketNotifications accepts them is not yet known; if
//     it refuses one, Add returns an error that says so and matches
//     windows.WSAEINVAL. Use the AFD backend for them, or plain sockets.
package poller

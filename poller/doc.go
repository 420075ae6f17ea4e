// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package poller is an epoll-style readiness poller for Go on Windows: add
// sockets with an [Interest] and a [Mode] ([Poller.Add]), then
// [Poller.Wait] for [Event] values, from one goroutine or several.
//
// It has two backends ([Backend]). On Windows 10 build 20348 and later
// (Windows 11, Windows Server 2022) it uses [SocketNotifications], the
// ProcessSocketNotifications call of [github.com/sockstate/sockstate];
// elsewhere, including Wine, it uses [AFD]: it asks the socket driver
// directly, as wepoll, mio and libuv do. [New] picks the first that this
// Windows has; [WithBackend] forces one.
//
// Sockets must be non-blocking for an event loop to be of use:
// [github.com/sockstate/sockstate/winsock] has SetNonblock, Accept, Recv
// and Send, whose errors match windows.WSAEWOULDBLOCK.
//
// The kernel never sees a Go pointer: it is handed slot IDs, and the user's
// key lives in the poller's table, so changing a key ([Poller.Modify])
// costs no system call. A slot is reused only after the OS has confirmed
// that its registration is gone, and packets of a deleted registration
// ([Poller.Delete]) never reach the caller. [Poller.Wake] makes one Wait
// return. Every system call that registers, re-arms or removes a socket
// is made under the poller's lock, as wepoll and mio make them; Wait
// blocks without it. Close every Poller ([Poller.Close]): on AFD the
// kernel writes to the poller's memory until each poll comes back, and
// Close waits for that.
//
// Differences between the backends, where the OS leaves no choice:
//   - [Level] with several goroutines in Wait: AFD polls a reported socket
//     again when the next Wait starts, so a Wait blocked already is not
//     told of it until then; ProcessSocketNotifications may queue it again
//     by itself and hand it to a blocked Wait at once.
//   - [Edge] on AFD is emulated: the socket is polled again after each
//     event, as for [Level]. A program that drains each event until
//     WSAEWOULDBLOCK, as edge triggering requires, sees the same events on
//     both backends; one that does not is told again on AFD, never less.
//   - A socket closed without Delete: AFD reports the close of a socket
//     that has a poll out (Level, Edge, an armed one-shot) and the poller
//     frees its slot; ProcessSocketNotifications removes the registration
//     silently, and a one-shot that has fired has no poll out on AFD, so
//     there the handle stays registered until Delete or Close. Delete
//     before closesocket (see [Poller.Delete]).
//   - Errors: AFD reports a reset connection and a failed connect as
//     [Error]; ProcessSocketNotifications reports what the OS calls
//     SOCK_NOTIFY_EVENT_ERR.
//   - Sockets of Go's net package are already tied to the runtime's own
//     completion port; AFD polls them all the same (see the example of
//     [Poller.Add]). Whether ProcessSocketNotifications accepts them is not
//     yet known (internal/psnfacts asks it on Windows); if it refuses one,
//     Add returns an error that says so and matches windows.WSAEINVAL.
//     Use plain Winsock sockets.
package poller

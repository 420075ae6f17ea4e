// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

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
// return. On AFD, Add and Modify, and Wait re-arming Level and Edge
// sockets before it blocks, make their system calls without the poller's
// lock, so that one goroutine's call does not hold up another's Wait or
// Modify; a poll that Wait makes again at once (one that came back with
// nothing the caller asked for, or cancelled by a Modify), and every call
// on ProcessSocketNotifications (where an ENABLE must not overtake a
// REMOVE), are made under it. Close every Poller ([Poller.Close]): on AFD the kernel writes to
// the poller's memory until each poll comes back, and Close waits for that.
//
// How many Ps (GOMAXPROCS) to give goroutines that loop on Wait is a trade,
// measured under Wine only. Wait blocks in a system call, and a goroutine in
// a system call keeps its P until the runtime's monitor thread (sysmon)
// takes it, one or two of its ticks later (20 µs, growing to 10 ms while it
// finds nothing to do). While every P is held so, a goroutine made runnable
// waits for the monitor or for a Wait to return, and goroutines that wait
// side by side take turns. With a P idle, each yield of the poller (see
// Wait) may wake a thread for it. The README's "Connection scale" measures
// one echo server on 2 goroutines at GOMAXPROCS 3, 2 and 1
// ("scripts/bench.sh conns"): with 1,000 connections all echoing, one P cost
// a fifth to a little over half of the throughput of more in every run (27
// and 30% in the two runs since each thread keeps its own pace of yields),
// and 2 and 3 Ps were within 2% of each other in those two; with 10,000
// mostly idle connections, 3 Ps ran at 0.74 and 0.73 of C's throughput in
// those two runs, against 0.97 and 0.98 at 2 and 0.98 and 1.00 at 1, and one
// P cost the least server CPU a message, narrowly (the most at 2 Ps). So a P
// for each goroutine that waits (Go's default on a machine with that many
// CPUs) kept near C's throughput in both loads, one P served the mostly idle
// load best of the unlocked servers (by 1 to 2%), and a P more than the
// goroutines gained under 2% at 1,000 and cost a quarter of the throughput
// at 10,000. (In the 10-client echo of the same "scripts/bench.sh" run, at
// GOMAXPROCS 2, one goroutine ran at 0.95 of C's speed and two at 0.89.) A
// Go program started with one CPU in its affinity (start /affinity 1, or
// taskset under Wine) gets GOMAXPROCS=1; set it with the GOMAXPROCS variable
// or runtime.GOMAXPROCS.
//
// Locking a goroutine that loops on Wait to its thread
// (runtime.LockOSThread) is a trade, not a rule. Unlocked, it moves between
// threads as the runtime takes its P during Wait and gives it one back;
// locked, it stays on one, as a C event loop's thread does. The README's
// "Connection scale" runs the echo server both ways ("scripts/bench.sh
// conns": go unlocked, gol locked): locked, the server process's CPU a
// message at 10,000 mostly idle connections was about a quarter lower in two
// runs (3 and 5% lower in the two since Add and Modify start their poll
// without the poller's lock, 3% lower and the same in the two since each
// thread keeps its own pace of yields), but on a CPU it shared, saturated,
// with Wine's server, and its messages a second rose in one run and fell in
// the other; at 1,000 connections all echoing its median throughput was 0.79
// and 0.83 of the unlocked one's, some rounds running at two thirds of it
// and others as fast. In three later runs of "scripts/bench.sh conns" it was
// 0.99 to 1.01 of it at 1,000, and faster at 10,000 each time (1.12 to
// 1.34); in the two since Add and Modify start their poll without the
// poller's lock, 0.71 of it at 1,000 and 1.14 and 1.19 times it at 10,000;
// in the two since each thread keeps its own pace of yields, 0.70 and 0.68
// of it at 1,000 and 1.27 and 1.39 times it at 10,000. The echo server does
// not lock.
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

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
// return. On AFD, Add and Modify, and Wait re-arming Level and Edge
// sockets before it blocks, make their system calls without the poller's
// lock, so that one goroutine's call does not hold up another's Wait or
// Modify; a poll that Wait makes again at once (one that came back with
// nothing the caller asked for, or cancelled by a Modify), and every call
// on ProcessSocketNotifications (where an ENABLE must not overtake a
// REMOVE), are made under it. Close every Poller ([Poller.Close]): on AFD the kernel writes to
// the poller's memory until each poll comes back, and Close waits for that.
//
// The poller's calls yield the processor now and then, with the runtime's
// goyield, at a pace kept for each P, whose ID the runtime's procPin gives:
// the package links to those three functions of the runtime (go:linkname;
// see Wait).
//
// How many Ps (GOMAXPROCS) to give goroutines that loop on Wait is a trade,
// measured under Wine only. Wait blocks in a system call, and a goroutine in
// a system call keeps its P until the runtime's monitor thread (sysmon)
// takes it, one or two of its ticks later (20 µs, growing to 10 ms while it
// finds nothing to do). While every P is held so, a goroutine made runnable
// waits for the monitor or for a Wait to return, goroutines that wait side
// by side take turns, and the monitor, once it has taken a P, ticks every
// 20 µs again. With a P idle, the monitor rarely takes one. The README's
// "Connection scale" runs one echo server on 2 goroutines at GOMAXPROCS 3,
// 2 and 1 ("scripts/bench.sh conns") and has one run's figures: with 1,000
// connections all echoing the three were within the spread of the rounds
// in throughput; with 10,000 mostly idle connections the server's threads
// waited the most at 2 Ps, where the goroutines in Wait held every P (by
// the pattern of its busiest thread, the monitor's ticks, under Wine each
// a wait on Wine's server), in every run; which count cost the least
// server CPU a message has moved from run to run.
// So a P for each goroutine that waits (Go's default on a machine with
// that many CPUs) keeps the monitor busy, one P makes the goroutines that
// wait take turns, and a P more than the goroutines keeps the monitor at
// its slowest tick, 10 ms, but not asleep: it sleeps only while every P is
// idle, and a P held in Wait is not (under Wine each tick is two requests
// to Wine's server; at 10,000 mostly idle connections the README measures
// it at 6 to 10% of a C server's CPU a message). A Go program started with
// one CPU in its affinity (start /affinity 1, or taskset under Wine) gets
// GOMAXPROCS=1; set it with the GOMAXPROCS variable or runtime.GOMAXPROCS.
//
// Locking a goroutine that loops on Wait to its thread
// (runtime.LockOSThread) is a trade, not a rule. Unlocked, it moves between
// threads as the runtime takes its P during Wait and gives it one back;
// locked, it stays on one, as a C event loop's thread does. The README's
// "Connection scale" runs the echo server both ways (go unlocked, gol
// locked); the results have moved from run to run, within the spread of
// the rounds, and locked its threads waited more at 10,000 mostly idle
// connections, where a locked goroutine's yield still wakes a thread (see
// yieldEvery). The echo server does not lock.
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

// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

// Program sched writes an execution trace in which a goroutine loses its P
// in system calls for known reasons, for scripts/schedtest.sh to check
// scripts/sched.awk against: calls of 1 ms for 50 ms, each after a
// runtime.Gosched, then one call of 50 ms, then calls of 1 ms for 50 ms
// without passing through the scheduler, then, at GOMAXPROCS 1 beside a
// goroutine that yields in a loop, calls of 1 ms for 50 ms and a call of
// 50 ms, each after a runtime.Gosched. Before that last part it runs at GOMAXPROCS 4, so that
// an idle P is there and nothing else wants one. Its own yields are
// yield's.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"syscall"
	"time"
	"unsafe"
)

// sleep blocks the goroutine in one nanosleep system call, which the
// runtime sees as a system call (syscall.Syscall), as it sees a Windows
// call that waits.
func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// yield is runtime.Gosched under a name that the trace's stacks show.
//
//go:noinline
func yield() { runtime.Gosched() }

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sched TRACE-FILE")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(4)
	f, err := os.Create(os.Args[1])
	if err == nil {
		err = trace.Start(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sched:", err)
		os.Exit(1)
	}
	// The goroutines that trace.Start creates run first: runnable, they
	// would be work that wants the P.
	time.Sleep(10 * time.Millisecond)
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		yield()
		sleep(time.Millisecond) // short calls, each after a yield
	}
	yield()
	sleep(50 * time.Millisecond) // one long call
	yield()
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		sleep(time.Millisecond) // a long run of short calls
	}
	// One P, and another goroutine that wants it: it yields in a loop.
	runtime.GOMAXPROCS(1)
	done := make(chan struct{})
	go func() {
		for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
			runtime.Gosched()
		}
		close(done)
	}()
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		yield()
		sleep(time.Millisecond) // short calls, each after a yield, with work waiting
	}
	yield()
	sleep(50 * time.Millisecond) // a long call, its P wanted from its start
	<-done
	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "sched:", err)
		os.Exit(1)
	}
}

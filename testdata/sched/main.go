// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

// Program sched writes an execution trace in which its goroutine makes
// system calls whose P the runtime takes, or leaves, for known reasons,
// for scripts/schedtest.sh to check scripts/sched.awk against. Each phase
// is a function of its own, so that the trace's stacks tell them apart:
//
//	phaseSpare   40 calls of 1 ms, a yield before each (goyield), with Ps
//	             to spare
//	phaseLong    one call of 50 ms, after a yield, with Ps to spare
//	phaseRun     a yield, then twice a call of wait's and 30 calls of 1 ms,
//	             then a call of 30 ms, with Ps to spare
//	phaseBusyLong one call of 50 ms, the other Ps busy for its first 30
//	phaseOneP    40 calls of 1 ms, a yield before each, at GOMAXPROCS 1
//	phaseOnePLong one call of 50 ms at GOMAXPROCS 1, after a yield
//
// The calls are nanosleep through syscall.Syscall, which the runtime sees
// as it sees a Windows call that waits.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// sleep blocks the goroutine in one nanosleep system call.
func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// The phases are not inlined: their names must be in the stacks.

// goyield is the runtime's, as the poller yields (poller/yield_windows.go):
// the trace shows it as a preemption, where it shows runtime.Gosched as a
// Gosched. phaseSpare yields so, the other phases with Gosched.
//
//go:linkname goyield runtime.goyield
func goyield()

// calls makes n calls of d, a yield before each.
func calls(n int, d time.Duration, yield func()) {
	for range n {
		yield()
		sleep(d)
	}
}

//go:noinline
func phaseSpare() { calls(40, time.Millisecond, goyield) }

//go:noinline
func phaseLong() { calls(1, 50*time.Millisecond, runtime.Gosched) }

// wait stands for a Wait: a call of 1 ms.
//
//go:noinline
func wait() { sleep(time.Millisecond) }

// phaseRun yields, then makes wait's call, 30 calls of 1 ms, wait's call
// again, 30 calls of 1 ms and one call of 30 ms, with no yield.
//
//go:noinline
func phaseRun() {
	runtime.Gosched()
	for range 2 {
		wait()
		for range 30 {
			sleep(time.Millisecond)
		}
	}
	sleep(30 * time.Millisecond)
}

// phaseBusyLong makes its call while 3 goroutines spin on the other Ps,
// for 30 ms of the call's 50: no P is idle when the runtime takes its P,
// and 3 are when the call ends. It yields first, and makes the call once
// the 3 run, none of them left runnable.
//
//go:noinline
func phaseBusyLong() {
	var running atomic.Int32
	for range 3 {
		go func() {
			running.Add(1)
			for start := time.Now(); time.Since(start) < 30*time.Millisecond; {
			}
		}()
	}
	runtime.Gosched()
	for running.Load() < 3 {
	}
	sleep(50 * time.Millisecond)
}

//go:noinline
func phaseOneP() { calls(40, time.Millisecond, runtime.Gosched) }

//go:noinline
func phaseOnePLong() { calls(1, 50*time.Millisecond, runtime.Gosched) }

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
	phaseSpare()
	phaseLong()
	phaseRun()
	phaseBusyLong()
	runtime.GOMAXPROCS(1)
	phaseOneP()
	phaseOnePLong()
	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "sched:", err)
		os.Exit(1)
	}
}

# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# sched.awk reads an execution trace as "go tool trace -d=parsed" prints it
# and counts the system calls in which a goroutine lost its P (processor),
# and what the trace shows at the moment the P went, next to the rules of
# Go's runtime (retake in runtime/proc.go). Its monitor (sysmon) takes the
# P of a goroutine in a call that it has seen on two of its ticks, unless
# the P's run queue is empty, a P is idle (or a thread spins) and the call
# is younger than 10 ms; and it takes it at once from a P whose goroutine
# has held it 10 ms or more without passing through the scheduler (running
# or in calls). The trace does not show every term (a P's own run queue,
# spinning threads), so the split below is what it shows, not the rule the
# runtime applied. It counts only the calls whose stacks have a frame that
# the variable calls matches (a regular expression; the echo server's
# worker goroutines unless set), and prints one line of name=count:
#
#   syscalls  those calls, counted where they begin
#   lost      those that ended with the goroutine's P taken
#   stolen    of those, the P was taken by the thread of another goroutine
#             on its way out of a call of its own: in Go 1.26 a thread
#             leaving a call takes back the P it had when it entered,
#             from a thread in a call that holds it now (exitsyscall), which
#             is no taking of the monitor's; the trace shows the P going
#             idle on the line of that other goroutine
#   wanted    of the rest, no P was idle or a goroutine was runnable
#   long-call the rest whose call was 10 ms old or more
#   long-run  the rest whose goroutine had held its P 10 ms or more since
#             it last passed through the scheduler (or since the trace
#             first saw it)
#   handling  of long-run, the calls other than a Wait whose goroutine's
#             last Wait had returned 10 ms or more before: it was handling
#             that Wait's events
#             (a Wait is a call whose stack has a frame that the variable
#             waits matches: sockstate.Dequeue unless set)
#   other     the rest of the lost
#   yields    the yields (runtime.Gosched, or runtime.goyield, which the
#             trace shows as a preemption with its frame) whose stacks have
#             a frame that the variable yielder matches (the poller's yield
#             unless set)
#
# The moment a P went is its move to idle while its goroutine was in the
# call (Go 1.26 traces every taking so), else the call's end. A P that the
# trace has not shown yet is idle (it shows the running ones at its start).
# The runtime's clock of a run is the P's (schedtick): a goroutine that
# gets a P back on the way out of its call (the same thread, at once) runs
# on in the same run, and so does one woken to run next (runnext), whose
# new run this awk counts from then: a long run of the runtime's may be
# counted as neither (other).

function field(name,    i) {
	for (i = 5; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}

BEGIN {
	if (calls == "")
		calls = "echo\\.\\(\\*Server\\)\\.work"
	if (yielder == "")
		yielder = "sockstate/poller\\.yield @"
	if (waits == "")
		waits = "sockstate\\.Dequeue"
}

# A transition's stacks follow its line: they decide whether a call counts,
# whether it is a Wait's, and whether a Gosched is a yield.
/^M=/ { gosched = 0; entered = "" }
# gosched: 1 after a Gosched, 2 after a preemption, which is a yield once
# its stack shows runtime.goyield.
gosched == 2 && /^\truntime\.goyield @/ { gosched = 1 }
gosched == 1 && $0 ~ yielder { yields++; gosched = 0 }
entered != "" && $0 ~ calls { mine[entered] = 1 }
entered != "" && $0 ~ waits { iswait[entered] = 1 }

# Ps numbered GOMAXPROCS and up are gone (the trace shows no transition).
$4 == "Metric" && /Name="\/sched\/gomaxprocs:threads"/ {
	procs = $0
	sub(/.*Uint64\(/, "", procs)
	procs += 0
}

$4 == "StateTransition" {
	t = field("Time")
	g = field("GoID")
	pr = field("ProcID")
	tr = ""
	for (i = 5; i <= NF; i++)
		if ($i ~ /->/)
			tr = $i
	if (g != "")
		goroutine()
	else if (pr != "")
		proc()
}

function goroutine(    at) {
	if (tr == "Running->Syscall") {
		insys[g] = 1
		start[g] = t
		onp[g] = substr($2, 3)
		mine[g] = 0
		iswait[g] = 0
		refilled[g] = 0
		delete went[g]
		entered = g
	} else if (tr == "Syscall->Running" || tr == "Syscall->Runnable") {
		if (insys[g] && mine[g]) {
			syscalls++
			if (tr == "Syscall->Runnable") {
				lost++
				at = (g in went) ? went[g] : t
				if ((g in went) && stolen[g])
					stolenn++
				else if ((g in went) ? wantedat[g] : wanted_now())
					wanted++
				else if (at - start[g] >= 10e6)
					longcall++
				else if ((g in passed) && at - passed[g] >= 10e6) {
					longrun++
					if (!iswait[g] && (g in waitret) && at - waitret[g] >= 10e6)
						handling++
				} else
					other++
			}
		}
		if (insys[g] && iswait[g])
			waitret[g] = t
		keep[g] = tr == "Syscall->Runnable" && refilled[g]
		insys[g] = 0
		delete went[g]
	}
	if (tr ~ /->Runnable$/ && !(g in isrunnable)) {
		isrunnable[g] = 1
		runnable++
	} else if (tr !~ /->Runnable$/ && (g in isrunnable)) {
		delete isrunnable[g]
		runnable--
	}
	if (tr == "Runnable->Running" || tr ~ /^Undetermined->/) {
		if (!keep[g] || !(g in passed))
			passed[g] = t
		keep[g] = 0
	}
	if (tr == "Running->Runnable" && $0 ~ /Reason="runtime\.Gosched"/)
		gosched = 1
	else if (tr == "Running->Runnable" && $0 ~ /Reason="preempted"/)
		gosched = 2
}

function proc(    x, by) {
	if (tr ~ /->Idle$/) {
		by = substr($3, 3) # the goroutine on the line's thread, -1 for none (the monitor's)
		for (x in insys)
			if (insys[x] && onp[x] == pr && !(x in went)) {
				went[x] = t
				wantedat[x] = wanted_now()
				stolen[x] = by != "-1" && by != x && insys[by]
			}
	}
	if (tr ~ /->Running$/ && $3 != "G=-1") {
		# A thread in a call takes a P on its way out: the same thread,
		# at once.
		x = substr($3, 3)
		if (insys[x])
			refilled[x] = 1
	}
	pstate[pr] = tr
	sub(/.*->/, "", pstate[pr])
}

# wanted_now: whether no P is idle or a goroutine is runnable.
function wanted_now() {
	return idle() == 0 || runnable > 0
}

function idle(    p, n) {
	n = 0
	for (p = 0; p < procs; p++)
		if (!(p in pstate) || pstate[p] == "Idle")
			n++
	return n
}

END {
	printf "syscalls=%d lost=%d stolen=%d wanted=%d long-call=%d long-run=%d handling=%d other=%d yields=%d\n",
		syscalls, lost, stolenn, wanted, longcall, longrun, handling, other, yields
}

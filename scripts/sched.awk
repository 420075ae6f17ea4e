# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# sched.awk reads an execution trace as "go tool trace -d=parsed" prints it
# and counts how often a goroutine lost its P (processor) in a system call,
# and why it likely did, by Go's runtime's rules (retake in
# runtime/proc.go): the runtime's monitor (sysmon) takes the P of a
# goroutine in a call that has lasted 10 ms or more, of one that has run 10
# ms or more without passing through the scheduler (a yield, a wait), and
# of any goroutine in a call when other work wants the P. It prints one
# line of name=count:
#
#   syscalls  system calls that began and ended in the trace
#   lost      those after which the goroutine had lost its P
#   long-call of those, the call had lasted 10 ms or more when its P went
#   long-run  the rest of those whose goroutine had run 10 ms or more,
#             when its P went, since it last passed through the scheduler
#             (or since the trace first saw it running)
#   other     the rest of the lost: neither
#   yields    runtime.Gosched calls made by the poller's Wait (its yield),
#             or by the function that the variable yielder names (a
#             regular expression; scripts/schedtest.sh sets it)
#
# "When its P went" is the P's move to idle while the goroutine was in the
# call, or, where the trace shows none (the P given straight to another
# thread), the call's end: an upper bound.

function field(name,    i) {
	for (i = 5; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}

BEGIN {
	if (yielder == "")
		yielder = "poller\\.\\(\\*Poller\\)\\.yield"
}

# A transition's stacks follow its line: a Gosched counts if the yielder
# made it.
/^M=/ { gosched = 0 }
gosched && $0 ~ yielder { yields++; gosched = 0 }

$4 == "StateTransition" {
	t = field("Time")
	g = field("GoID")
	pr = field("ProcID")
	tr = ""
	for (i = 5; i <= NF; i++)
		if ($i ~ /->/)
			tr = $i
	if (g != "") {
		if (tr == "Running->Syscall") {
			insys[g] = 1
			start[g] = t
			onp[g] = $2
			delete went[g]
			syscalls++
		} else if (tr == "Syscall->Running" || tr == "Syscall->Runnable") {
			if (insys[g] && tr == "Syscall->Runnable") {
				at = (g in went) ? went[g] : t
				lost++
				if (at - start[g] >= 10e6)
					longcall++
				else if ((g in passed) && at - passed[g] >= 10e6)
					longrun++
				else
					other++
			}
			insys[g] = 0
			delete went[g]
		} else if (tr == "Runnable->Running" || tr == "Undetermined->Running") {
			# Back from a lost P the goroutine runs on without the
			# scheduler's count of its run starting again.
			if (prev[g] != "Syscall->Runnable" || !(g in passed))
				passed[g] = t
		}
		if (tr == "Running->Runnable" && $0 ~ /Reason="runtime\.Gosched"/)
			gosched = 1
		prev[g] = tr
	} else if (pr != "" && tr == "Running->Idle") {
		for (x in insys)
			if (insys[x] && onp[x] == "P=" pr && !(x in went))
				went[x] = t
	}
}

END {
	printf "syscalls=%d lost=%d long-call=%d long-run=%d other=%d yields=%d\n",
		syscalls, lost, longcall, longrun, other, yields
}

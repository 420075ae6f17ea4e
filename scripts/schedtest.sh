#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Checks scripts/sched.awk, which "scripts/bench.sh conns" runs on the
# execution traces of the poller's echo servers, against the trace of a
# native program whose goroutine makes calls with a known fate, phase by
# phase (testdata/sched; each phase is read on its own, by its function's
# name in the stacks), and against an excerpt of the echo server's own
# trace whose counts are fixed (testdata/sched/steal.parsed: 2 calls whose
# P another goroutine took on its way out of its call, which no program of
# one goroutine shows):
#
#   phaseSpare     40 calls, 40 yields, 3 lost at most, none a long call
#                  or a long run
#   phaseLong      1 call, lost, a long call
#   phaseRun       63 calls, no long call (its last call's P goes at its
#                  start, the run 10 ms old: counted at the call's end it
#                  would be a long call), 3 wanted at most (the trace's own
#                  goroutines), 10 handling at least and 5 long runs more
#                  (those after the second wait's call, 10 ms of it)
#   phaseBusyLong  1 call, lost, wanted (its P goes while the other Ps are
#                  busy: counted at the call's end it would be a long call)
#   phaseOneP      40 calls, 40 yields, 10 lost at least, every one wanted
#   phaseOnePLong  1 call, lost, wanted
#
# The counts of calls and yields are the program's; which calls lose their
# P is the runtime's doing, which a machine busy on every CPU can delay, so
# a run that misses is tried again, up to 5 runs. scripts/test.sh runs it
# (about 1 s); it fails on a difference.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/sched" ./testdata/sched

# counts PHASE: sched.awk's counts for that phase of $dir/parsed, into n.
declare -A n
counts() {
	local kv got
	got="$(awk -v calls="main\\\\.$1 " -v yielder="main\\\\.$1 " -v waits='main\\.wait ' -f scripts/sched.awk "$dir/parsed")"
	echo "  $1: $got"
	n=()
	for kv in $got; do n[${kv%%=*}]=${kv#*=}; done
	((n[lost] == n[stolen] + n[wanted] + n[long-call] + n[long-run] + n[other])) || echo "  $1: lost=${n[lost]} is not the sum of its kinds"
}
# want PHASE CONDITION...: prints each arithmetic condition that fails.
want() {
	local phase="$1" c
	shift
	for c in "$@"; do
		(("$c")) || echo "  $phase: not $c"
	done
}
# check: one run of the program; prints the counts, then what differs.
check() {
	"$dir/sched" "$dir/trace"
	go tool trace -d=parsed "$dir/trace" >"$dir/parsed"
	counts phaseSpare
	want phaseSpare 'n[syscalls] == 40' 'n[yields] == 40' 'n[lost] <= 3' 'n[long-call] + n[long-run] == 0'
	counts phaseLong
	want phaseLong 'n[syscalls] == 1' 'n[lost] == 1' 'n[long-call] == 1'
	counts phaseRun
	want phaseRun 'n[syscalls] == 63' 'n[long-call] == 0' 'n[wanted] <= 3' \
		'n[handling] >= 10' 'n[long-run] - n[handling] >= 5'
	counts phaseBusyLong
	want phaseBusyLong 'n[syscalls] == 1' 'n[lost] == 1' 'n[wanted] == 1'
	counts phaseOneP
	want phaseOneP 'n[syscalls] == 40' 'n[yields] == 40' 'n[lost] >= 10' 'n[wanted] == n[lost]'
	counts phaseOnePLong
	want phaseOnePLong 'n[syscalls] == 1' 'n[lost] == 1' 'n[wanted] == 1'
}
# The excerpt of a real trace (testdata/sched/steal.parsed), whose counts
# are fixed: 5 calls of the echo server's goroutines, 3 of them lost, 2 to
# the other goroutine leaving its call (the third's taker entered its call
# before the excerpt begins) and 1 wanted (the excerpt shows no P idle).
got="$(awk -f scripts/sched.awk testdata/sched/steal.parsed)"
if [ "$got" != "syscalls=5 lost=3 stolen=2 wanted=1 long-call=0 long-run=0 handling=0 other=0 yields=0" ]; then
	echo "schedtest: testdata/sched/steal.parsed: $got" >&2
	exit 1
fi
echo "schedtest: steal.parsed: $got"
for try in 1 2 3 4 5; do
	out="$(check)"
	if ! grep -q ': not \|is not the sum' <<<"$out"; then
		echo "schedtest: run $try:"
		echo "$out"
		exit 0
	fi
	echo "schedtest: run $try missed:" >&2
	echo "$out" >&2
done
echo "schedtest: sched.awk missed in 5 runs of testdata/sched" >&2
exit 1

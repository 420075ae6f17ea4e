#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Checks scripts/sched.awk, which "scripts/bench.sh conns" runs on the
# execution traces of the poller's echo servers, against the trace of a
# native program whose goroutine loses its P for known reasons
# (testdata/sched): a 50 ms call must be counted as the one long call, and
# 50 ms of 1 ms calls with no yield as long runs, 8 at least (each call
# after the first 10 ms loses its P; the runtime's monitor may miss some),
# and 50 ms of 1 ms calls and a 50 ms call, each after a yield, on the one
# P that another goroutine wants, as neither (other), 20 at least: the
# long call among them, whose P goes at its start, is not a long call; and the yields of the
# first 50 ms and the last (1 ms calls, a yield before each) at 80 at
# least. scripts/test.sh runs it (about 2 s); it fails on a difference.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/sched" ./testdata/sched
# check: runs the program and checks the counts; prints what differs.
check() {
	"$dir/sched" "$dir/trace"
	local got kv
	got="$(go tool trace -d=parsed "$dir/trace" | awk -v yielder='main\\.yield' -f scripts/sched.awk)"
	echo "schedtest: $got"
	local -A n
	for kv in $got; do n[${kv%%=*}]=${kv#*=}; done
	((n[long-call] == 1)) || echo "long-call=${n[long-call]}, not 1"
	((n[long-run] >= 8)) || echo "long-run=${n[long-run]}, below 8"
	((n[other] >= 20)) || echo "other=${n[other]}, below 20"
	((n[lost] == n[long-call] + n[long-run] + n[other])) || echo "lost=${n[lost]} is not the sum of its kinds"
	((n[yields] >= 80)) || echo "yields=${n[yields]}, below 80"
}
# The program's losses are the runtime's doing, which a machine busy on
# every CPU can delay: a run may miss and the next pass. A wrong count in
# sched.awk misses in every run.
for try in 1 2 3 4 5; do
	out="$(check)"
	echo "${out%%$'\n'*}"
	diff="$(tail -n +2 <<<"$out")"
	[ -z "$diff" ] && exit 0
	echo "schedtest: run $try: $diff" | tr '\n' ' ' >&2
	echo >&2
done
echo "schedtest: sched.awk missed in 5 runs of testdata/sched" >&2
exit 1

#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmarks: under Wine, the poller's AFD backend against the C loop of
# testdata/cloop (the same IOCTL_AFD_POLL, completion port and socket
# calls, nothing else) and, at many connections, against Go's net;
# natively on Linux, the epoll backend. CONTRIBUTING.md ("Benchmarks")
# lists the settings (BENCH_*, CONNS_*), doc/benchmarks.md the runs.
#
#   scripts/bench.sh [ROUNDS]         gc and conns (5 rounds unless told)
#   scripts/bench.sh gc [ROUNDS]      Go against C: Wait, echo, memory (at
#                                     least 3 rounds)
#   scripts/bench.sh conns [ROUNDS]   echo servers at many connections (1
#                                     round or more; 1 is a pass that only
#                                     shows they run)
#   scripts/bench.sh linux [ROUNDS]   natively, no Wine (1 round or more)
#
# gc: one Wait (C: one dequeue and one poll submitted) that finds 1
# readable UDP socket among N idle ones, N = 10 to 10,000; echo, 10
# clients sending 64-byte messages one at a time, against the poller's
# server (internal/cmd/echoserver) and C's, on 1 and on 2 goroutines or
# threads, each in a process of its own; the memory that registering
# 10,000 sockets adds.
#
# conns: the poller's echo server on 2 goroutines, C's on 2 threads and
# Go's net, one after another, driven over the loopback by connload
# (internal/cmd), natively on another CPU, which checks every byte and
# reads the server's (and the wineserver's) memory and CPU; at 1,000
# connections all echoing and at 10,000 with 1% echoing: messages/s, round
# trips, set-up time, memory and CPU a message, and a chart.
#
# linux: the poller's Wait (epoll) beside a loop on raw unix.EpollWait,
# in blocks of calls that alternate in one process
# (poller/bench_linux_test.go's BenchmarkWaitEpoll); then conns's
# workloads on the poller's server, C's epoll server (testdata/cepoll, the
# host's gcc) and Go's net, natively, all three at once, taking turns of
# 0.2 s at the echo (connload's doc).
#
# Every process under test runs pinned to one CPU (under Wine the
# wineserver too, in a prefix of this script's own, so that a wake-up never
# crosses CPUs and no other Wine run disturbs this one). Rounds are interleaved:
# each runs every benchmark once, the sides or servers in an order that
# changes from round to round. The tables (internal/cmd/benchtab) give
# medians (min–max) over the rounds, ratios taken a round at a time and,
# for linux, issue 39's goals: met, missed or not settled by the 95%
# interval of the median of the rounds' ratios (under 6 rounds, by the
# median). BENCH_RECORDS, a directory, keeps the rounds' records, from
# which the tables can be made again and several runs' rounds pooled
# (their round numbers, each line's first field, offset).
set -Eeuo pipefail # -E: the ERR trap below names a failing line in functions too
cd "$(dirname "$0")/.."
repo="$PWD"

mode=all
case "${1:-}" in
gc | conns | linux | all) mode="$1" && shift ;;
esac
rounds="${1:-5}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/bench.sh [all|gc|conns|linux] [ROUNDS]" >&2; exit 2; }
if [ "$mode" != conns ] && [ "$mode" != linux ] && ((rounds < 3)); then
	echo "bench.sh: at least 3 rounds for Go against C (conns and linux run with 1)" >&2
	exit 2
fi
cpu="${BENCH_CPU:-1}"
cpus="$(getconf _NPROCESSORS_ONLN)" # the machine's, not nproc's: this script may run pinned itself
load_cpu="${BENCH_LOAD_CPU:-$(((cpu + 1) % cpus))}" # connload's
wait_ops="${BENCH_WAIT_OPS:-2000}"
echo_msgs="${BENCH_ECHO_MSGS:-3000}"
conns_secs="${CONNS_SECS:-10}"
conns_all="${CONNS_ALL:-1000}"
conns_max="${CONNS_MAX:-10000}"
wait_time="${BENCH_WAIT_TIME:-1s}"
chart="${BENCH_CHART-doc/runs/conns.svg}"
[ "$mode" != linux ] || chart="${BENCH_CHART-doc/runs/linux-conns.svg}"
records="${BENCH_RECORDS:-}"
[ -z "$records" ] || { mkdir -p "$records" && records="$(cd "$records" && pwd)"; }
idles=(10 100 1000 10000)
((conns_all >= 10 && conns_max >= 100)) || { echo "bench.sh: CONNS_ALL at least 10, CONNS_MAX at least 100 (1% of them echo)" >&2; exit 2; }
# Go sizes GOMAXPROCS by the CPUs its affinity allows (pinned: 1). The Go
# programs get this machine's CPUs, unless GOMAXPROCS is set already.
GOMAXPROCS="${GOMAXPROCS:-$cpus}" && export GOMAXPROCS

if [ "$mode" != linux ]; then
	export SOCKSTATE_WINEPREFIX="${SOCKSTATE_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/sockstate/wine}-bench"
	mkdir -p "$(dirname "$SOCKSTATE_WINEPREFIX")"
	exec 9>"$SOCKSTATE_WINEPREFIX.run.lock" # not .lock: setup.sh takes that one
	flock -n 9 || { echo "bench.sh: another bench.sh uses $SOCKSTATE_WINEPREFIX" >&2; exit 1; }
	export SOCKSTATE_WINE32=no # windows/amd64 only
	# shellcheck source=scripts/setup.sh
	source scripts/setup.sh >&2 9>&- # its wineserver must not hold the lock
	# shellcheck source=scripts/lib.sh
	source scripts/lib.sh
fi
work="$(mktemp -d)"
# Under Wine, this prefix's wineserver is ours: setup.sh started it, serve restarts it.
trap '[ "$mode" = linux ] || wineserver -k </dev/null >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
# A SIGTERM to this shell alone would end it without the EXIT trap (and a
# subshell could start the pinned wineserver again): trapped, it exits.
trap 'exit 143' TERM
trap 'echo "${BASH_SOURCE[0]}: line $LINENO failed (exit status $?)" >&2' ERR
pin() { taskset -c "$cpu" "$@"; }
# serve: (re)starts this prefix's wineserver on the pinned CPU. The old one
# must be gone first (-w): a new server that finds it still there exits,
# and wine would then start one of its own, not pinned.
serve() {
	wineserver -k </dev/null >/dev/null 2>&1 || true
	wineserver -w </dev/null >/dev/null 2>&1 || true
	pin wineserver -p </dev/null >/dev/null 2>&1 9>&-
	pin wine cmd /c exit </dev/null >/dev/null 2>&1
}
# gobench COMMAND...: runs a Go test binary (wine BINARY under Wine), pinned;
# what is not a result (a failure, a panic) goes to stderr too.
gobench() {
	pin "$@" | awk '!/^(goos|goarch|pkg|cpu): |^Benchmark|^PASS$/ { print >"/dev/stderr" } { print }'
}

echo "==> building" >&2
win() { GOOS=windows GOARCH=amd64 "$@"; }
go build -o "$work/benchtab" ./internal/cmd/benchtab
go build -o "$work/connload" ./internal/cmd/connload
if [ "$mode" = linux ]; then
	go build -o "$work/echoserver" ./internal/cmd/echoserver
	gcc -O2 -Wall -Werror -pthread -o "$work/cepoll" testdata/cepoll/cepoll.c
	go test -c -o "$work/poller.test" ./poller
else
	win go build -o "$work/echoserver.exe" ./internal/cmd/echoserver
	x86_64-w64-mingw32-gcc -O2 -Wall -Werror -o "$work/cloop.exe" testdata/cloop/cloop.c -lws2_32 -lntdll -lpsapi
fi
if [ "$mode" = gc ] || [ "$mode" = all ]; then
	win go test -c -o "$work/poller.test.exe" ./poller
	win go test -c -o "$work/echo.test.exe" ./examples/echo
	SOCKSTATE_CLOOP="$(winepath -w "$work/cloop.exe" 2>/dev/null)"
	SOCKSTATE_ECHOSERVER="$(winepath -w "$work/echoserver.exe" 2>/dev/null)"
	export SOCKSTATE_CLOOP SOCKSTATE_ECHOSERVER
fi
cd "$work"

# The run's header: what a table from it must name.
echo "scripts/bench.sh $mode $rounds at $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . ':!doc' || echo ' (with changes)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
platform="no Wine" pinned="the wineserver too"
[ "$mode" = linux ] || platform="$(wine --version)"
echo "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cpus CPUs; Linux $(uname -r); $platform; $(go version | cut -d' ' -f3)"
[ "$mode" != linux ] || { pinned="connload on CPU $load_cpu" &&
	echo "These are native Linux figures, not Wine's: every process runs natively, the poller on its epoll backend."; }
echo "Pinned to CPU $cpu ($pinned); GOMAXPROCS=$GOMAXPROCS."

# keep FILE: keeps a benchmark's records in BENCH_RECORDS, if it is set.
keep() { [ -z "$records" ] || cp "$1" "$records/"; }

# Go against C: lines "METRIC VALUE" (benchtab's readGC) from each run.
go_wait() {
	local idle
	for idle in "${idles[@]}"; do
		serve
		gobench wine poller.test.exe -test.run '^$' -test.bench "WaitOneActive/poller-AFD/idle=$idle\$" -test.benchtime "${wait_ops}x" |
			awk -v i="$idle" '/^BenchmarkWaitOneActive/ { print "wait/" i, $3 }'
	done
}
c_wait() {
	local idle
	for idle in "${idles[@]}"; do
		serve
		pin wine cloop.exe wait "$idle" "$wait_ops" | awk -v i="$idle" '$1 == "ns/op" { print "wait/" i, $2 }'
	done
}
echo_bench() { # echo_bench SIDE: the servers go-* or c-*, a line "echo/N msgs/s" each
	serve
	gobench wine echo.test.exe -test.run '^$' -test.bench "Echo/^$1-" -test.benchtime "${echo_msgs}x" |
		awk '/^BenchmarkEcho/ { match($1, /-[0-9]+/); n = substr($1, RSTART + 1, RLENGTH - 1)
			for (i = 3; i < NF; i++) if ($(i + 1) == "msgs/s") print "echo/" n, $i }'
}
go_echo() { echo_bench go; }
c_echo() { echo_bench c; }
go_mem() {
	serve
	gobench wine poller.test.exe -test.run '^$' -test.bench 'RegisteredMemory' -test.benchtime 1x |
		awk '/^BenchmarkRegisteredMemory/ { for (i = 3; i < NF; i++) if ($(i + 1) ~ /-B\/socket$/) { sub(/-B\/socket$/, "", $(i + 1)); print "mem/" $(i + 1), $i } }'
}
c_mem() {
	serve
	pin wine cloop.exe mem 10000 | awk '$1 == "ws-B/socket" { print "mem/ws", $2 }'
}
gc_bench() {
	local r side bench sides
	: >gc.results
	for ((r = 1; r <= rounds; r++)); do
		echo "==> Go against C: round $r of $rounds" >&2
		sides=(go c)
		((r % 2)) || sides=(c go)
		for bench in wait mem echo; do
			for side in "${sides[@]}"; do
				"${side}_$bench" | awk -v r="$r" -v s="$side" '{ print r, s, $0 }' >>gc.results
			done
		done
	done
	keep gc.results
	printf '\n%s\n\n' "Go against C: $rounds interleaved rounds; $wait_ops Waits and $echo_msgs echoed messages a run."
	./benchtab gc gc.results
}

# The poller's Wait against raw epoll, natively: both sides in one process
# a round, in blocks that alternate (BenchmarkWaitEpoll).
wait_bench() {
	local r
	: >wait.results
	for ((r = 1; r <= rounds; r++)); do
		echo "==> Wait against raw epoll: round $r of $rounds" >&2
		gobench ./poller.test -test.run '^$' -test.bench '^BenchmarkWaitEpoll$' -test.benchtime "$wait_time" |
			awk -v r="$r" '/^Benchmark/ { print r, $0 }' >>wait.results
	done
	keep wait.results
	printf '\n%s\n\n' "The poller's Wait against raw epoll: $rounds round(s), $wait_time a case, both sides in one process, in alternating blocks."
	./benchtab wait wait.results
}

declare -A commands=([poller]="echoserver -server poller -goroutines 2" [net]="echoserver -server net"
	[c]="cloop.exe echo 2" [cepoll]="cepoll echo 2")
# conns_run N ACTIVE SERVER...: one run of the servers at N connections,
# ACTIVE of them echoing; natively all at once, taking turns (connload's
# doc), under Wine one. Prints "SERVER connload's line" for each.
conns_run() {
	local n="$1" active="$2" server exe args ws=0 line pid out hold lh lo addrs=() pids=() outs=() spids=()
	shift 2
	rm -f servers.in load.in load.out && mkfifo servers.in load.in load.out
	[ "$mode" = linux ] || { serve && ws="$(this_wineserver)"; } # before servers.in opens: Wine's server must not hold it
	exec {hold}<>servers.in # the servers' input, which only this shell writes: they end when it closes
	for server in "$@"; do
		read -ra args <<<"${commands[$server]}"
		exe="${args[0]}" args=("${args[@]:1}")
		rm -f server.out && mkfifo server.out
		if [ "$mode" = linux ]; then
			taskset -c "$cpu" "./$exe" "${args[@]}" <servers.in >server.out {hold}>&- &
		else
			[ "$exe" != echoserver ] || exe=echoserver.exe
			pin wine "$exe" "${args[@]}" <servers.in >server.out {hold}>&- &
		fi
		spids+=($!) && exec {out}<server.out && outs+=("$out")
		read -r line <&"$out" || { echo "bench.sh: the $server server ended before it printed its port" >&2; return 1; }
		line="${line%$'\r'}" # a Windows program's line end
		[[ "${line#port }" =~ ^[0-9]+$ ]] || { echo "bench.sh: the $server server printed $line" >&2; return 1; }
		addrs+=("127.0.0.1:${line#port }")
		pid="${spids[-1]}" # natively the process started is the server; under Wine, the newest that runs it
		[ "$mode" = linux ] || pid="$(pgrep -n -f "$exe")" || { echo "bench.sh: no process runs $exe" >&2; return 1; }
		pids+=("$pid")
	done
	exec {lh}<>load.in # connload holds its connections until this closes
	taskset -c "$load_cpu" ./connload -addr "$(IFS=, && echo "${addrs[*]}")" -pid "$(IFS=, && echo "${pids[*]}")" \
		-conns "$n" -active "$active" -duration "${conns_secs}s" -block 0.2s -wineserver "$ws" <load.in >load.out {hold}>&- {lh}>&- &
	local load=$! told=0
	exec {lo}<load.out
	for server in "$@"; do
		read -r line <&"$lo" || { echo "bench.sh: connload printed no figures for the $server server" >&2; break; }
		echo "$server $line" && told=$((told + 1))
	done
	# The servers end first, while connload holds its connections: closed
	# from the client side all at once they would make Wine's server spin
	# on every socket at its end of stream until the server has closed it.
	exec {hold}>&-
	for pid in "${spids[@]}"; do wait "$pid" || { echo "bench.sh: a server exited with status $?" >&2 && return 1; }; done
	exec {lh}>&-
	wait "$load" || { echo "bench.sh: connload failed (status $?)" >&2; return 1; }
	for out in "$lo" "${outs[@]}"; do exec {out}<&-; done
	((told == $#))
}
conns_bench() {
	local r k n active server servers=(poller c net) native=()
	[ "$mode" != linux ] || servers=(poller cepoll net) native=(-native)
	: >conns.results
	for ((r = 1; r <= rounds; r++)); do
		echo "==> conns: round $r of $rounds" >&2
		k=$((r % ${#servers[@]}))
		for n in "$conns_all" "$conns_max"; do
			active=$n
			((n == conns_all)) || active=$((n / 100))
			local order=("${servers[@]:k}" "${servers[@]:0:k}")
			echo "  ${order[*]}: $n connections, $active echoing" >&2
			if [ "$mode" = linux ]; then
				conns_run "$n" "$active" "${order[@]}"
			else
				for server in "${order[@]}"; do conns_run "$n" "$active" "$server"; done
			fi | awk -v r="$r" -v n="$n" -v a="$active" '{ s = $1; $1 = ""; print r, s, n, a $0 }' >>conns.results
		done
	done
	keep conns.results
	printf '\n%s\n%s\n\n' "Echo servers at many connections: $rounds round(s), the servers in an order that rotates; connload on CPU $load_cpu;" \
		"${conns_secs} s of echo a server and run, 64-byte messages$([ "$mode" != linux ] || echo '; the servers at once, taking turns of 0.2 s')."
	local svg=()
	if [ -n "$chart" ]; then
		[[ "$chart" == /* ]] || chart="$repo/$chart"
		mkdir -p "$(dirname "$chart")"
		svg=(-svg "$chart" -caption "scripts/bench.sh $mode $rounds at $(git -C "$repo" rev-parse --short HEAD), $(date -u +%Y-%m-%d); $platform")
	fi
	./benchtab conns "${native[@]}" "${svg[@]}" conns.results
	[ -z "$chart" ] || echo "The chart: ${chart#"$repo"/}" >&2 # a path in the repository: from its root
}

[ "$mode" != linux ] || wait_bench
[ "$mode" = conns ] || [ "$mode" = linux ] || gc_bench
[ "$mode" = gc ] || conns_bench

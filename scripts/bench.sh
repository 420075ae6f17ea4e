#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Go against C on the same syscalls, under Wine: the poller's AFD backend
# (poller.test, examples/echo's test binary) side by side with the C
# reference loop of testdata/cloop, which makes the same IOCTL_AFD_POLL,
# completion port and socket calls and nothing else.
#
#   scripts/bench.sh [ROUNDS]          (default 5; at least 3): everything
#                                      below but overhead and yield
#   scripts/bench.sh requests          only the request counts (below)
#   scripts/bench.sh overhead [ROUNDS] Process against the raw call (10)
#   scripts/bench.sh yield [ROUNDS]    Wait with and without its yield (10)
#   scripts/bench.sh conns [ROUNDS]    echo servers at many connections: the
#                                      poller's, C's, Go net's (scripts/conns.sh; 3)
#
# Every Wine process, the wineserver included, runs pinned to one CPU
# (BENCH_CPU, default 1) in a Wine prefix of this script's own
# (SOCKSTATE_WINEPREFIX with "-bench" appended), so that a wake-up never
# crosses CPUs and other Wine runs on the machine neither disturb this one
# nor are disturbed by it. The rounds are interleaved: each round runs every
# Go and every C benchmark once, Go first in odd rounds and C first in even
# ones. Every timed run, and each N of the Wait, is a process of its own on
# a wineserver started for it. For each benchmark it prints the median, min
# and max over the rounds, the Go/C ratio of each round with their median,
# and every round's values.
#
# Then, on a wineserver that traces every request (wineserver -d1), it
# counts the Wine server requests (each a round trip to the "kernel") per
# operation of each side: a run of 2K operations minus a run of K, divided
# by K, which leaves out start-up, the median of three such pairs (per_op,
# below), which outvotes one pair that the Go runtime's clock-driven
# requests threw off (a shortfall of every pair it shows as it is). For
# the echo it counts, per echoed message, the requests of the server's
# process alone and those of the whole system (the same Go
# clients, in the test binary's process, included).
#
# Workloads: one Wait (C: one dequeue and one poll submitted) that finds 1
# readable UDP socket among 10, 100, 1,000 and 10,000 idle ones; echo, 10
# clients each sending 64-byte messages one at a time, against the poller's
# server (AFD) on 1 and on 2 goroutines and the C server on 1 and on 2
# threads, each in a process of its own (BenchmarkEcho/go-* and c-*); and
# the memory that registering 10,000 sockets adds to the process.
#
# The overhead and yield modes compare two sub-benchmarks of one Go
# benchmark, each run a process of its own, interleaved and pinned as
# above, and print benchstat's comparison of the two (medians, their
# spread, and the p-value of the difference): overhead,
# BenchmarkABIStubProcess's raw generated call against Process, both
# calling the ABI stub (testdata/abistub), so that the OS's cost is out;
# yield, BenchmarkWaitYield's Wait with its yield of the processor
# (poller's yieldEvery) against the same Wait without it, then the Wine
# server requests of each, counted as below.
set -Eeuo pipefail # -E: the ERR trap below names a failing line in functions too
cd "$(dirname "$0")/.."

mode=all rounds="${1:-5}" timed=1 # timed: the Go against C rounds
case "${1:-}" in
requests) mode=requests rounds=3 timed=0 ;;
overhead | yield) mode="$1" rounds="${2:-10}" timed=0 ;;
conns) mode=conns rounds="${2:-3}" timed=0 ;;
esac
cpu="${BENCH_CPU:-1}"
# Go sizes GOMAXPROCS by the CPUs its affinity allows, so pinned it would
# run with 1: one P, which a goroutine blocked in a system call holds until
# the runtime's monitor takes it back, for all its goroutines, where C's
# threads run side by side. The Go programs, the native load generator of
# the conns mode included, get the value they would have unpinned, this
# machine's CPUs, unless GOMAXPROCS is set already; the poller's servers of
# the conns mode set their own (scripts/conns.sh). The overhead and yield
# modes, which compare Go with Go, run at what pinning gives, 1.
case "$mode" in
overhead | yield) export GOMAXPROCS=1 ;;
*) GOMAXPROCS="${GOMAXPROCS:-$(nproc)}" && export GOMAXPROCS ;;
esac
wait_ops="${BENCH_WAIT_OPS:-2000}"   # Waits per benchmark and round
echo_msgs="${BENCH_ECHO_MSGS:-3000}" # echoed messages per benchmark and round
calls="${BENCH_CALLS:-1000000}"      # calls of Process per run (overhead)
idles=(10 100 1000 10000)
[ "$rounds" -ge 3 ] || { echo "bench.sh: at least 3 rounds" >&2; exit 2; }

export SOCKSTATE_WINEPREFIX="${SOCKSTATE_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/sockstate/wine}-bench"
mkdir -p "$(dirname "$SOCKSTATE_WINEPREFIX")"
exec 9>"$SOCKSTATE_WINEPREFIX.run.lock" # not .lock: setup.sh takes that one
flock -n 9 || { echo "bench.sh: another bench.sh uses $SOCKSTATE_WINEPREFIX" >&2; exit 1; }
export SOCKSTATE_WINE32=no # windows/amd64 only
# shellcheck source=scripts/setup.sh
source scripts/setup.sh >&2 9>&- # its wineserver must not hold the lock
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
benchstat_version=v0.0.0-20260908200009-22c9c6c9d4da # golang.org/x/perf

work="$(mktemp -d)"
# The wineserver of this prefix is this script's: setup.sh started it, and
# it is restarted below, pinned.
at_exit=() # what else to call on exit, before the wineserver ends (conns.sh's)
on_exit() {
	local f
	for f in "${at_exit[@]}"; do "$f"; done
	wineserver -k </dev/null >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap on_exit EXIT
# A SIGTERM to this shell alone (not its process group, as a terminal's
# Ctrl-C is) would end it without on_exit, and a subshell under way could
# start the pinned wineserver again; trapped, it ends this script once the
# command under way has returned, through on_exit.
trap 'exit 143' TERM
trap 'echo "${BASH_SOURCE[0]}: line $LINENO failed (exit status $?)" >&2' ERR
pin() { taskset -c "$cpu" "$@"; }
# An awk function, median(A, N), that sorts A[1..N] and returns its median.
median_awk='
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'
# gobench BINARY ARGS...: runs a Go test binary and passes its output on;
# what is not a result (a failure, a panic) goes to stderr too, as the
# filters below drop it.
gobench() {
	pin wine "$@" | awk '!/^(goos|goarch|pkg|cpu): |^Benchmark|^PASS$/ { print >"/dev/stderr" } { print }'
}
# serve [ARGS]: (re)starts this prefix's wineserver on the pinned CPU. The
# old one must be gone first (-w): a new server that finds it still there
# exits, and wine would then start one of its own, not pinned. Without ARGS
# the server detaches once it is ready; with them (-f -d1, the traced one)
# it stays in the foreground, its trace going to $work/trace.
serve() {
	wineserver -k </dev/null >/dev/null 2>&1 || true
	wineserver -w </dev/null >/dev/null 2>&1 || true
	if (($#)); then
		pin wineserver -p "$@" </dev/null >/dev/null 2>>"$work/trace" 9>&- &
		sleep 1
	else
		pin wineserver -p </dev/null >/dev/null 2>&1 9>&-
	fi
	pin wine cmd /c exit </dev/null >/dev/null 2>&1
}

# conns_setup builds the native programs of the conns mode and reads its
# functions (scripts/conns.sh, whose settings are global).
conns_setup() {
	go build -o "$work/connload" ./internal/cmd/connload
	go build -o "$work/cachetouch" ./internal/cmd/cachetouch
	# shellcheck source=scripts/conns.sh
	source scripts/conns.sh
}

echo "==> building what the $mode mode runs" >&2
case "$mode" in
overhead)
	GOOS=windows GOARCH=amd64 go test -c -o "$work/sockstate.test.exe" .
	build_c_dll x86_64-w64-mingw32-gcc abistub "$work/abistub.dll"
	SOCKSTATE_ABI_STUB="$(winepath -w "$work/abistub.dll" 2>/dev/null)"
	export SOCKSTATE_ABI_STUB
	benchstat="$(tool benchstat golang.org/x/perf/cmd/benchstat "$benchstat_version")"
	;;
yield)
	GOOS=windows GOARCH=amd64 go test -c -o "$work/poller.test.exe" ./poller
	benchstat="$(tool benchstat golang.org/x/perf/cmd/benchstat "$benchstat_version")"
	;;
conns)
	GOOS=windows GOARCH=amd64 go test -c -o "$work/echo.test.exe" ./examples/echo
	x86_64-w64-mingw32-gcc -O2 -Wall -Werror -o "$work/cloop.exe" testdata/cloop/cloop.c -lws2_32 -lntdll -lpsapi
	conns_setup
	;;
*)
	GOOS=windows GOARCH=amd64 go test -c -o "$work/poller.test.exe" ./poller
	GOOS=windows GOARCH=amd64 go test -c -o "$work/echo.test.exe" ./examples/echo
	x86_64-w64-mingw32-gcc -O2 -Wall -Werror -o "$work/cloop.exe" testdata/cloop/cloop.c -lws2_32 -lntdll -lpsapi
	SOCKSTATE_CLOOP="$(winepath -w "$work/cloop.exe" 2>/dev/null)"
	export SOCKSTATE_CLOOP
	if [ "$mode" = all ]; then # the conns mode's runs come last
		conns_setup
	fi
	;;
esac
cd "$work"

# Results are lines "round side benchmark value" in $work/results.
# Each timed run has a process and a wineserver of its own (serve): a
# wineserver that served earlier runs is in another state (its heap, its
# lists), which alone can change the time of a Wait among 10,000 sockets.
go_wait() { # go_wait OPS: a line "idle=N ns" per idle count
	local idle
	for idle in "${idles[@]}"; do
		serve
		gobench poller.test.exe -test.run '^$' -test.bench "WaitOneActive/poller-AFD/idle=$idle\$" -test.benchtime "${1}x" |
			awk '/^BenchmarkWaitOneActive/ { n = split($1, f, "/"); sub(/-[0-9]+$/, "", f[n]); print f[n], $3 }'
	done
}
c_wait() { # c_wait OPS
	local idle
	for idle in "${idles[@]}"; do
		serve
		pin wine cloop.exe wait "$idle" "$1" | awk -v i="$idle" '$1 == "ns/op" { print "idle=" i, $2 }'
	done
}
echo_bench() { # echo_bench MSGS SIDE: a line "server msgs/s" per server SIDE-*
	serve
	gobench echo.test.exe -test.run '^$' -test.bench "Echo/^$2-" -test.benchtime "${1}x" |
		awk '/^BenchmarkEcho/ { n = split($1, f, "/"); sub(/-[0-9]+$/, "", f[n]);
			for (i = 3; i < NF; i++) if ($(i + 1) == "msgs/s") print f[n], $i }'
}
go_mem() {
	serve
	gobench poller.test.exe -test.run '^$' -test.bench 'RegisteredMemory' -test.benchtime 1x |
		awk '/^BenchmarkRegisteredMemory/ { for (i = 3; i < NF; i++) if ($(i + 1) ~ /B\/socket$/) print $(i + 1), $i }'
}
c_mem() {
	serve
	pin wine cloop.exe mem 10000 | awk '{ print $1, $2 }'
}

record() { # record ROUND SIDE: prefixes each line read
	awk -v r="$1" -v s="$2" '{ print r, s, $0 }' >>results
}

# versus BINARY BENCH A B ARGS...: runs sub-benchmarks A and B of
# BenchmarkBENCH, each alone in a process of its own (with ARGS), in
# $rounds interleaved rounds, A first in odd rounds and B first in even
# ones, and prints benchstat's comparison of B against A. Their names lose
# A and B, so that benchstat puts the two runs of a benchmark side by side,
# in columns named A and B without any "key=" (A.txt and B.txt hold them).
versus() {
	local bin="$1" bench="$2" a="$3" b="$4" r side
	shift 4
	for ((r = 1; r <= rounds; r++)); do
		echo "==> round $r of $rounds" >&2
		local sides=("$a" "$b")
		((r % 2)) || sides=("$b" "$a")
		for side in "${sides[@]}"; do
			serve
			gobench "$bin" -test.run '^$' -test.bench "^Benchmark$bench\$/^$side\$" "$@" |
				sed "s|^Benchmark$bench/$side|Benchmark$bench|" >>"${side#*=}.txt"
		done
	done
	"$benchstat" "${a#*=}=${a#*=}.txt" "${b#*=}=${b#*=}.txt"
}

case "$mode" in
overhead)
	echo
	echo "Process against the raw call, both calling the ABI stub: $rounds interleaved rounds, pinned to CPU $cpu, $calls calls a run."
	echo
	versus sockstate.test.exe ABIStubProcess raw slices -test.benchtime "${calls}x" -test.benchmem
	exit
	;;
conns)
	conns_bench
	exit
	;;
yield)
	echo
	echo "Wait with its yield and without: $rounds interleaved rounds, pinned to CPU $cpu, $wait_ops Waits a run."
	echo
	versus poller.test.exe WaitYield yield=on yield=off -test.benchtime "${wait_ops}x"
	;;
esac

for ((r = 1; timed && r <= rounds; r++)); do
	echo "==> round $r of $rounds" >&2
	sides=(go c)
	((r % 2)) || sides=(c go)
	for side in "${sides[@]}"; do "${side}_wait" "$wait_ops" | record "$r" "$side"; done
	for side in "${sides[@]}"; do "${side}_mem" | record "$r" "$side"; done
	for side in "${sides[@]}"; do echo_bench "$echo_msgs" "$side" | record "$r" "$side"; done
done

# stats: per benchmark, median/min/max per side and the per-round Go/C
# ratio (time: Go/C, lower is better for Go; throughput: Go/C, higher is).
stats() {
	awk "$median_awk"'
	function summary(key,    n, i, a, m) {
		n = 0; for (i = 1; i <= R; i++) if ((key, i) in v) a[++n] = v[key, i] + 0
		if (!n) return "-"
		m = median(a, n); return sprintf("%s (%s–%s)", fmt(m), fmt(a[1]), fmt(a[n])) # a sorted
	}
	function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
	function ratio(g, c, title,    n, i, a, rs) {
		n = 0; rs = ""
		for (i = 1; i <= R; i++) if ((g, i) in v && (c, i) in v && v[c, i] != 0) { a[++n] = v[g, i] / v[c, i]; rs = rs (rs == "" ? "" : " ") sprintf("%.2f", a[n]) }
		if (!n) return
		printf "| %s | %s | %s | %.2f | %s |\n", title, summary(g), summary(c), median(a, n), rs
	}
	{ v[$2 "/" $3, $1] = $4; if ($1 > R) R = $1 }
	END {
		print "| Wait, 1 ready among N idle (ns/op) | Go median (min–max) | C median (min–max) | Go/C median | Go/C per round |"
		print "| --- | --- | --- | --- | --- |"
		split("10 100 1000 10000", idle, " ")
		for (k = 1; k <= 4; k++) ratio("go/idle=" idle[k], "c/idle=" idle[k], "N = " idle[k])
		print ""
		print "| Echo, 10 clients x 64 B (msgs/s) | Go median (min–max) | C median (min–max) | Go/C median | Go/C per round |"
		print "| --- | --- | --- | --- | --- |"
		ratio("go/go-1goroutine", "c/c-1thread", "Go 1 goroutine / C 1 thread")
		ratio("go/go-2goroutines", "c/c-2threads", "Go 2 goroutines / C 2 threads")
		print ""
		print "| Memory, 10,000 registered sockets (bytes/socket) | Go median (min–max) | C median (min–max) | Go/C median | Go/C per round |"
		print "| --- | --- | --- | --- | --- |"
		ratio("go/ws-B/socket", "c/ws-B/socket", "working set")
		printf "| Go heap | %s | | | |\n", summary("go/heap-B/socket")
		print ""
		print "Per-round values (round 1 to " R "):"
		print ""
		nk = split("go/idle=10 c/idle=10 go/idle=100 c/idle=100 go/idle=1000 c/idle=1000 go/idle=10000 c/idle=10000 " \
			"go/go-1goroutine c/c-1thread go/go-2goroutines c/c-2threads go/ws-B/socket c/ws-B/socket go/heap-B/socket", order, " ")
		for (k = 1; k <= nk; k++) {
			line = ""; for (i = 1; i <= R; i++) line = line " " ((order[k], i) in v ? fmt(v[order[k], i]) : "-")
			print "    " order[k] ":" line
		}
	}' results
}
if ((timed)); then
	echo
	echo "Timed: $rounds interleaved rounds, everything pinned to CPU $cpu; $wait_ops Waits and $echo_msgs echoed messages per run."
	echo
	stats
fi

# Requests per operation, on a wineserver that traces them (-d1).
# requests FROM TO: the request lines between lines FROM and TO of the
# trace, per process started there, in order of start: a line "total
# name=count..." per process.
requests() {
	sed -n "$1,$2p" trace | awk '
	/^[0-9a-f]+: init_first_thread\(\) = / {
		match($0, /pid=[0-9a-f]+/); p = substr($0, RSTART + 4, RLENGTH - 4); pid[$1] = p
		if (!(p in seen)) { seen[p] = ++np; order[np] = p } }
	/^[0-9a-f]+: new_thread\(\) = 0/ { match($0, /tid=[0-9a-f]+/); if ($1 in pid) pid[substr($0, RSTART + 4, RLENGTH - 4) ":"] = pid[$1] }
	/^[0-9a-f]+: [a-z_]+\(/ && !/^[0-9a-f]+: [a-z_]+\(\) = / && ($1 in pid) {
		n[pid[$1]]++; split($2, f, "("); by[pid[$1], f[1]]++; th[$1]++
		if (f[1] ~ /^(ioctl|recv_socket|send_socket)$/) io[$1] = 1 }
	END {
		for (t in th) if (!(t in io)) idle[pid[t]] += th[t]
		for (i = 1; i <= np; i++) {
			p = order[i]; printf "%d %d", n[p], idle[p]
			for (k in by) { split(k, kk, SUBSEP); if (kk[1] == p) printf " %s=%d", kk[2], by[k] }
			printf "\n"
		} }'
}
# quiet CMD...: runs CMD; its output is shown only if it fails.
quiet() {
	"$@" >out 2>&1 || {
		local status=$?
		cat out >&2
		echo "bench.sh: $* failed (exit status $status)" >&2
		return "$status"
	}
}
# per_op K CMD...: runs CMD K, then CMD 2K, three times; prints, per
# process (in order of start), its requests per operation and the request
# names that make them, each the median of the three pairs' counts (2K's
# less K's, over K). One pair alone can be wrong: the Go runtime's threads
# make requests by the clock, not by the operation (a monitor that ticks
# faster in one run than in the other), which a median of three outvotes;
# where every pair falls short (the two-goroutine echo's at 5c373f4,
# README), the median does too.
per_op() {
	local k="$1" a b c pair
	shift
	: >pairs
	for pair in 1 2 3; do
		a=$(wc -l <trace)
		quiet "$@" "$k" || return
		b=$(wc -l <trace)
		quiet "$@" "$((2 * k))" || return
		c=$(wc -l <trace)
		requests "$((a + 1))" "$b" >once
		requests "$((b + 1))" "$c" >twice
		# A line a process: "PROCESS total idle name=count...", over K.
		paste -d'\n' once twice | awk -v k="$k" '
		NR % 2 { split("", one); one[""] = $1; one[" "] = $2; for (i = 3; i <= NF; i++) { split($i, f, "="); one[f[1]] = f[2] }; next }
		{	s = sprintf("%d %g %g", NR / 2, ($1 - one[""]) / k, ($2 - one[" "]) / k)
			for (i = 3; i <= NF; i++) { split($i, f, "="); s = s sprintf(" %s=%g", f[1], (f[2] - one[f[1]]) / k) }
			print s }' >>pairs
	done
	awk -v pairs=3 "$median_awk"'
	{	p = $1; if (p > np) np = p
		total[p] = total[p] " " $2; idle[p] = idle[p] " " $3
		for (i = 4; i <= NF; i++) { split($i, f, "="); got[p, f[1]] = got[p, f[1]] " " f[2]; names[f[1]] = 1 } }
	# med LIST: the median of the counts in LIST, a pair that has none
	# (the request not made in either run) counting 0.
	function med(list,    a, n, i) {
		n = split(list, a, " "); for (i = n + 1; i <= pairs; i++) a[i] = 0
		return median(a, pairs)
	}
	END {
		for (p = 1; p <= np; p++) {
			m = 0
			for (r in names) { d = med(got[p, r]); if (d >= 0.05) { name[++m] = r; per[m] = d } }
			for (i = 2; i <= m; i++) for (j = i; j > 1 && per[j-1] < per[j]; j--) { t = per[j]; per[j] = per[j-1]; per[j-1] = t; t = name[j]; name[j] = name[j-1]; name[j-1] = t }
			s = ""; for (i = 1; i <= m; i++) s = s (i > 1 ? ", " : "") sprintf("%s %.2f", name[i], per[i])
			s = s sprintf("; %.2f of them in threads that submit no poll and make no socket call", med(idle[p]))
			printf "%.2f\t%s\n", med(total[p]), s
		} }' pairs
}
go_wait_n() { pin wine poller.test.exe -test.run '^$' -test.bench "WaitOneActive/poller-AFD/idle=$idle\$" -test.benchtime "${1}x"; }
c_wait_n() { pin wine cloop.exe wait "$idle" "$1"; }
yield_n() { pin wine poller.test.exe -test.run '^$' -test.bench "WaitYield/^$1\$/^idle=$idle\$" -test.benchtime "${2}x"; } # yield_n SUB OPS
echo_n() { pin wine echo.test.exe -test.run '^$' -test.bench "Echo/^$1\$" -test.benchtime "${2}x"; } # echo_n SERVER MSGS
# sum FIRST: the requests per op of per_op's processes (its lines on
# stdin) FIRST and later, summed.
sum() { awk -F'\t' -v first="$1" 'NR >= first { s += $1 } END { printf "%.1f", s }'; }
# row TITLE FIRST GO C: a table row from per_op outputs, processes FIRST
# and later.
row() { printf '| %s | %s | %s |\n' "$1" "$(sum "$2" <<<"$3")" "$(sum "$2" <<<"$4")"; }
# where TITLE SIDE OUT: adds a line to $details: the requests of per_op
# output OUT by process (those with 0.05 or more an op) and by request.
where() {
	details+="$1, $2: $(awk -F'\t' '$1 >= 0.05 || $1 <= -0.05 { printf "%s[process %d: %s] ", (NR > 1 ? "+ " : ""), NR, $2 }' <<<"$3")"$'\n'
}

: >trace
serve -f -d1
echo
echo "Wine server requests per operation (a traced run, not timed; runs of 2K operations minus runs of K, over K, the median of 3 such pairs):"
echo
details=""
if [ "$mode" = yield ]; then
	echo "| Requests per Wait | yield=on | yield=off |"
	echo "| --- | --- | --- |"
	for idle in 10 1000; do
		on="$(per_op 1000 yield_n yield=on)"
		off="$(per_op 1000 yield_n yield=off)"
		row "N = $idle" 1 "$on" "$off"
		where "N = $idle" yield=on "$on"
		where "N = $idle" yield=off "$off"
	done
	echo
	printf '%s' "$details"
	exit
fi
echo "| Requests per op | Go | C |"
echo "| --- | --- | --- |"
for idle in 10 1000; do
	go="$(per_op 1000 go_wait_n)"
	c="$(per_op 1000 c_wait_n)"
	row "Wait, N = $idle" 1 "$go" "$c"
	where "Wait, N = $idle" Go "$go"
	where "Wait, N = $idle" C "$c"
done
for pair in "go-1goroutine / c-1thread" "go-2goroutines / c-2threads"; do
	read -r go_server _ c_server <<<"$pair"
	go="$(per_op 1000 echo_n "$go_server")"
	c="$(per_op 1000 echo_n "$c_server")"
	row "Echoed message, $pair: the server's process" 2 "$go" "$c"
	row "Echoed message, $pair: the whole system (clients included)" 1 "$go" "$c"
	where "Echoed message, $pair" Go "$go"
	where "Echoed message, $pair" C "$c"
done
echo
echo "For the echo, process 1 is the test binary (the clients) and the server's process counts every process after it:"
echo "process 3, the server of the measured run, and process 2, that of the benchmark's first run (N = 1: the same in the"
echo "runs of K and 2K, so about 0)."
echo
echo "Where they go (requests per op, by process and request; threads that submit no poll (ioctl) and make no socket"
echo "call are the Go runtime's: sysmon, and threads woken to take a processor):"
echo
printf '%s' "$details"
if [ "$mode" = all ]; then
	conns_bench
fi

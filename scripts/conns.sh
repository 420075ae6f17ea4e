# shellcheck shell=bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# "scripts/bench.sh conns [ROUNDS]": echo servers at many connections,
# sourced by bench.sh after it has built what this needs in $work
# (echo.test.exe, cloop.exe, the native load generator connload) and
# defined pin and serve. Six servers, each under Wine in a process of
# its own, pinned with its wineserver to CPU $cpu:
#
#   go    the poller's echo server (examples/echo, AFD) on 2 goroutines,
#         at GOMAXPROCS=3: a P more than the goroutines that wait, as the
#         poller's package documentation asked until 106eb35 (it now
#         weighs the Ps with these runs)
#   gol   the same with each goroutine locked to its thread
#         (SOCKSTATE_ECHO_LOCKED=1), which that documentation weighs
#   go2p  the same as go at GOMAXPROCS=2, a P a waiting goroutine (on a
#         2-CPU machine, what it has unpinned)
#   go1p  the same at GOMAXPROCS=1, what pinning alone gives it (Go sizes
#         GOMAXPROCS by the CPUs its affinity allows)
#   c     the C reference loop (testdata/cloop echo 2) on 2 threads
#   net   Go's net package, a goroutine and a 4 KiB buffer a connection, at
#         the GOMAXPROCS bench.sh exports: its goroutines wait in the
#         runtime's poller, which holds no P while it blocks
#
# (CONNS_SERVERS picks some of them, in this order: CONNS_SERVERS="go c"),
# and with CONNS_TOUCH=1 two more, C's server beside a native Go program
# on its CPU (internal/cmd/cachetouch) that wakes every 2 ms and writes
#
#   ct    a byte in each cache line of 1 MiB: memory traffic
#   cs    a byte in each of 4 KiB: its waking (and its runtime's) alone
#
# and the load generator (internal/cmd/connload) natively on the other CPU,
# over the loopback (Wine sockets are host sockets), every byte checked.
# Workloads, each server once a round, in an order that rotates by round:
#
#   all   1,000 connections (CONNS_ALL), all echoing for $conns_secs s
#   idle  10,000 connections (CONNS_MAX), 1% of them echoing for $conns_secs s
#
# For each: the set-up (connect and echo once on every connection); the
# server process's memory (VmRSS) a connection, its growth over the
# set-up's last nine tenths divided by their connections (the first tenth
# pays for what a server allocates once, such as threads, about 1 MB each
# under Wine, which a Go server starts when its scheduler needs them), and
# the threads the server started during them; the active phase's messages
# a second and round-trip p50 and p99; the CPU time per echoed message
# of the server process and of the wineserver (utime+stime from /proc);
# and, per echoed message, the times the wineserver was preempted
# (involuntary context switches: the CPU they share is busy, so each is
# mostly a thread of the server woken) and the times the server's threads
# waited (voluntary ones: under Wine each request waits for the
# wineserver's reply), both counted in /proc over the threads that run at
# each end of the echo; and the server thread that waited most during the
# echo, its waits a message and its CPU a wait (which thread that is the
# rows do not say, and it may differ from round to round: a thread that
# wakes more than any that serves, such as the Go runtime's monitor at
# its fastest, is the one they report); and the CPU a message of the
# server's threads but the two that waited most: each server but net
# serves on two threads, so this is what else runs, such as the Go
# runtime's monitor, which ticks while a goroutine blocked in Wait holds
# its P.
# Medians over the rounds with min and max, then, against C, the median
# (min–max) of the ratios of each round (whose servers ran one after
# another) with the goals of the README's "Connection scale".
# Then, where they can be counted
# (conns_walks_init), one run a server (CONNS_MAX connections, 1% echoing,
# not timed) counts the walks of Wine's server over its list of pending
# AFD polls per echoed message, which the idle table's wineserver CPU a
# message is divided by.
# Then one traced run a server (CONNS_TRACED connections, 2,000 unless
# told, 1% echoing) counts the Wine server requests of the active phase per
# echoed message, by name. Last, one run of each of the poller's servers
# (CONNS_SCHED connections, CONNS_MAX unless told, 1% echoing) writes an
# execution trace of its active phase (runtime/trace), from which
# scripts/sched.awk counts the system calls whose P the runtime took, and
# what the trace shows at those moments.

# shellcheck disable=SC2154 # cpu, work, rounds and median_awk are bench.sh's

conns_secs="${CONNS_SECS:-10}"
conns_all="${CONNS_ALL:-1000}"
conns_max="${CONNS_MAX:-10000}"
conns_traced="${CONNS_TRACED:-2000}" # 0: no traced pass
conns_sched="${CONNS_SCHED:-$conns_max}" # 0: no scheduling pass
# 1% of the connections echo in the idle workload and the traced and
# scheduling passes: at least one; and the first tenth of the set-up is at
# least one connection.
if ((conns_max < 100 || (conns_traced > 0 && conns_traced < 100) || (conns_sched > 0 && conns_sched < 100) || conns_all < 10)); then
	echo "bench.sh conns: CONNS_MAX, and CONNS_TRACED and CONNS_SCHED unless 0, must be at least 100, CONNS_ALL at least 10" >&2
	exit 2
fi
conns_awk="$PWD/scripts/sched.awk" # bench.sh works in $work
# The scheduling pass's trace file, as the server under Wine names it.
conns_trace="$(winepath -w "$work/sched.trace" 2>/dev/null)" || conns_trace=""
if ((conns_sched > 0)) && [ -z "$conns_trace" ]; then
	echo "bench.sh conns: winepath does not name $work/sched.trace for Wine" >&2
	exit 1
fi
# The servers, each with its column's title, in the order of the tables:
# CONNS_SERVERS picks some of them (all but ct and cs unless told), and
# CONNS_TOUCH=1 adds ct and cs.
conns_known="go=poller, GOMAXPROCS=3 (go)|gol=locked threads (gol)|go2p=GOMAXPROCS=2 (go2p)|go1p=GOMAXPROCS=1 (go1p)|c=C (cloop)|net=Go net|ct=C, 1 MiB touched (ct)|cs=C, 4 KiB touched (cs)"
conns_pick="${CONNS_SERVERS:-go gol go2p go1p c net}"
case "${CONNS_TOUCH:-0}" in
0) ;;
1) conns_pick+=" ct cs" ;;
*)
	echo "bench.sh conns: CONNS_TOUCH=$CONNS_TOUCH: 1 adds the servers ct and cs, 0 (the default) does not" >&2
	exit 2
	;;
esac
conns_servers="" conns_titles="" conns_names=""
IFS='|' read -ra conns_pairs <<<"$conns_known"
for conns_one in "${conns_pairs[@]}"; do
	conns_names+=" ${conns_one%%=*}"
	if [[ " $conns_pick " == *" ${conns_one%%=*} "* ]]; then
		conns_servers+="${conns_servers:+ }${conns_one%%=*}"
		conns_titles+="${conns_titles:+|}${conns_one#*=}"
	fi
done
for conns_one in $conns_pick; do
	if [[ "$conns_names " != *" $conns_one "* ]]; then
		echo "bench.sh conns: CONNS_SERVERS: no server $conns_one (the servers:$conns_names)" >&2
		exit 2
	fi
done
[ -n "$conns_servers" ] || { echo "bench.sh conns: CONNS_SERVERS names no server" >&2; exit 2; }
# An awk function that makes a table's header row: FIRST, then the titles.
conns_header='function header(first,    t, n, i, h, r) {
	n = split(titles, t, "|"); h = "| " first " |"; r = "|---|"
	for (i = 1; i <= n; i++) { h = h " " t[i] " |"; r = r "---|" }
	return h "\n" r
}'
other_cpu=$(((cpu + 1) % $(nproc)))
ticks=$(getconf CLK_TCK)

# cputicks PID: the process's user and system time, in clock ticks.
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# rsskb PID: its resident set, in KiB.
rsskb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# threads PID: its threads (a Windows thread is a thread of the process
# under Wine).
threads() { awk '/^Threads:/ { print $2 }' "/proc/$1/status"; }
# switches PID KIND: the KIND (voluntary or nonvoluntary) context switches
# of the process's threads that run now (a thread that ends between two
# readings takes its switches with it: a count over them may be short).
switches() {
	{ cat "/proc/$1"/task/*/status 2>/dev/null || true; } | # a thread may end as cat opens it
		awk -v k="$2_ctxt_switches:" '$1 == k { n += $2 } END { print n + 0 }'
}
# tasks PID: a line "TID waits cpu-ms" for each of the process's threads
# that run now: its voluntary context switches and the CPU time it has run
# (the scheduler's, to the nanosecond: /proc/PID/task/TID/sched, whose first
# line is "NAME (TID, #threads: N)"; Linux before 6.15 built without
# CONFIG_SCHED_DEBUG has no such file, and the rows made of it read "-").
tasks() {
	{ cat "/proc/$1"/task/*/sched 2>/dev/null || true; } | # a thread may end as cat opens it
		awk '/, #threads: [0-9]+\)$/ { tid = $(NF - 2); gsub(/[(,]/, "", tid) }
			$1 == "se.sum_exec_runtime" { cpu[tid] = $3 }
			$1 == "nr_voluntary_switches" { v[tid] = $3 }
			END { for (t in v) print t, v[t], cpu[t] }'
}

# Wine's server walks its list of every pending AFD poll, of every process,
# on each event of a socket and on each change of what its polls ask for
# (the loops of sock_get_poll_events and complete_async_polls in Wine 8's
# server/sock.c; README, "Connection scale"). conns_walks_init sets
# conns_probes to two uprobes on the starts of those walks in
# $conns_walk_bin, Debian's wineserver64 of wine64 8.0~repack-4 (the
# binary of that sha256: the offsets were found by reading its
# disassembly against Wine 8's source), which conns_walks counts with perf
# stat; or, where they cannot be set (not root, no perf, another build of
# Wine), it leaves conns_probes empty and says why in conns_walks_why.
# conns_cleanup removes them when bench.sh exits. The runs that count are
# not timed: each uprobe hit is a trap into this VM's kernel, and with
# 1,000 connections all echoing they slowed the echo two-hundredfold.
conns_walk_bin=/usr/lib/wine/wineserver64
conns_walk_sha256=e023cbc6f2129c0bd5eab64a429d22a7a49f29d677d6a5faca429e04372b6228
conns_walk_group="sockstate_walks_$$" # this run's own: another bench.sh keeps its own
conns_probes="" conns_walks_why="" conns_probed=0
conns_walks_init() {
	if (($(id -u) != 0)); then
		conns_walks_why="uprobes need root"
	elif ! command -v perf >/dev/null; then
		conns_walks_why="no perf (Debian: linux-perf)"
	elif [ "$(sha256sum <"$conns_walk_bin" 2>/dev/null)" != "$conns_walk_sha256  -" ]; then
		conns_walks_why="$conns_walk_bin is not the build whose walks this script knows (Debian's wine64 8.0~repack-4)"
	else
		conns_probed=1 # conns_cleanup removes what it sets, also if it fails halfway
		if perf probe -q -x "$conns_walk_bin" -a "$conns_walk_group:polls=0x48fea" -a "$conns_walk_group:complete=0x4a7ec" >/dev/null 2>&1; then
			conns_probes="$conns_walk_group:polls,$conns_walk_group:complete"
		else
			conns_walks_why="perf probe could not set uprobes on $conns_walk_bin"
		fi
	fi
}

# conns_run's helpers (the toucher, perf stat) are listed in $work/helpers
# while they run (conns_helper, conns_unhelper): conns_cleanup, on
# bench.sh's exit, ends those that a failed run left, before it removes
# the uprobes (perf stat holds them while it runs).
conns_helper() { echo "$1" >>"$work/helpers"; }
conns_unhelper() { sed -i "/^$1\$/d" "$work/helpers"; }
conns_cleanup() {
	local pid tries alive
	if [ -s "$work/helpers" ]; then
		while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$work/helpers"
		for ((tries = 0; tries < 20; tries++)); do # up to 2 s
			alive=0
			while read -r pid; do
				if kill -0 "$pid" 2>/dev/null; then alive=1; fi
			done <"$work/helpers"
			((alive)) || break
			sleep 0.1
		done
		if ((alive)); then
			while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$work/helpers"
			sleep 0.2
		fi
	fi
	if ((conns_probed)); then
		perf probe -q -d "$conns_walk_group:*" >/dev/null 2>&1 || true # fails too where none was set
		if perf probe -l 2>/dev/null | grep -q "$conns_walk_group:"; then
			echo "bench.sh conns: perf probe -d left the uprobes $conns_walk_group:* (perf probe -l lists them)" >&2
		fi
	fi
}
at_exit+=(conns_cleanup)

# conns_await PATTERN PID: waits until the load generator's output has a
# line that matches; fails if it (PID) ends first.
conns_await() {
	until grep -qs "$1" "$work/load.out"; do
		if ! kill -0 "$2" 2>/dev/null; then
			grep -qs "$1" "$work/load.out" && return
			echo "bench.sh conns: the load generator ended before it printed $1:" >&2
			cat "$work/load.out" >&2
			return 1
		fi
		sleep 0.1
	done
}

# conns_run SERVER CONNS ACTIVE [traced|sched]: one run; prints
# "setup-s mem-B/conn threads msgs/s p50-us p99-us server-ms/msg
# wineserver-ms/msg preempted/msg waited/msg busiest-waited/msg
# busiest-us/wait rest-us/msg" (threads: those the server started while
# its memory was measured; preempted: the wineserver's involuntary
# switches; waited: the server's voluntary ones; busiest: its thread that
# waited most; rest: the CPU of its threads but the two that waited most),
# or, traced, on a wineserver that traces every request, what the active
# phase asked of it: "msgs name=count..." (requests by name, and
# ioctl-pending=the poll submissions that found nothing ready yet),
# or, sched (a Go server), what the execution trace of its active phase
# shows: "msgs name=count..." as scripts/sched.awk counts them,
# or, walks, the walks of the poll list in the active phase: "msgs walks".
conns_run() {
	local server="$1" n="$2" active="$3" pass="${4:-}" exe args=() env=() touch=0
	case "$server" in
	go) exe=echo.test.exe env=(SOCKSTATE_ECHO_SERVER=2 GOMAXPROCS=3) ;;
	gol) exe=echo.test.exe env=(SOCKSTATE_ECHO_SERVER=2 SOCKSTATE_ECHO_LOCKED=1 GOMAXPROCS=3) ;;
	go2p) exe=echo.test.exe env=(SOCKSTATE_ECHO_SERVER=2 GOMAXPROCS=2) ;;
	go1p) exe=echo.test.exe env=(SOCKSTATE_ECHO_SERVER=2 GOMAXPROCS=1) ;;
	net) exe=echo.test.exe env=(SOCKSTATE_ECHO_SERVER=net) ;;
	c) exe=cloop.exe args=(echo 2) ;;
	ct) exe=cloop.exe args=(echo 2) touch=1024 ;;
	cs) exe=cloop.exe args=(echo 2) touch=4 ;;
	esac
	if [ "$pass" = sched ]; then
		rm -f "$work/sched.trace"
		env+=("SOCKSTATE_ECHO_TRACE=$conns_trace")
	fi
	if [ "$pass" = traced ]; then
		: >"$work/trace"
		serve -f -d1
	else
		serve
	fi
	local ws toucher=""
	ws="$(this_wineserver)" || { echo "bench.sh conns: its wineserver did not start" >&2; return 1; }
	if ((touch)); then
		# Its own standard streams: not the pipe this run's output goes
		# to, which a helper left running would hold open.
		GOMAXPROCS=1 taskset -c "$cpu" ./cachetouch -kib "$touch" -every 2ms </dev/null >/dev/null 2>&1 &
		toucher=$!
		conns_helper "$toucher"
	fi
	coproc SERVER { env "${env[@]}" taskset -c "$cpu" wine "$exe" "${args[@]}" 2>&1; }
	# Bash unsets SERVER and SERVER_PID once the coprocess has ended: keep
	# them.
	local spid="$SERVER_PID" sin="${SERVER[1]}" sout="${SERVER[0]}"
	local line port pid
	if ! read -r line <&"$sout"; then
		local status=0 state="still runs"
		wait "$spid" || status=$?
		kill -0 "$ws" 2>/dev/null || state="is gone"
		echo "bench.sh conns: the $server server ended (status $status) with no output, before it printed its port;" \
			"the wineserver it was started on (pid $ws) $state" >&2
		return 1
	fi
	line="${line%$'\r'}" # a Windows program's line end
	port="${line#port }"
	[[ "$port" =~ ^[0-9]+$ ]] || { echo "bench.sh conns: $server printed $line" >&2; return 1; }
	# The newest: the server, under wine's exec chain.
	pid="$(pgrep -n -f "$exe")" || { echo "bench.sh conns: no process runs $exe after the $server server printed its port" >&2; return 1; }
	local rss0 rss1 th0 th1 s0 w0 s1 w1
	mkfifo "$work/go.fifo"
	rm -f "$work/load.out" # not the last run's lines
	taskset -c "$other_cpu" ./connload -addr "127.0.0.1:$port" -conns "$n" -base $((n / 10)) \
		-active "$active" -duration "${conns_secs}s" <"$work/go.fifo" >"$work/load.out" {sin}>&- {sout}<&- &
	local load=$!
	exec {gofd}>"$work/go.fifo"
	conns_await '^base ' "$load" || return 1
	rss0="$(rsskb "$pid")" th0="$(threads "$pid")"
	echo base >&"$gofd"
	conns_await '^ready$' "$load" || return 1
	rss1="$(rsskb "$pid")" th1="$(threads "$pid")" s0="$(cputicks "$pid")" w0="$(cputicks "$ws")"
	local v0 v1 p0 p1
	v0="$(switches "$pid" voluntary)" p0="$(switches "$ws" nonvoluntary)"
	tasks "$pid" >"$work/tasks0"
	local t0=0 t1=0
	[ "$pass" != traced ] || t0="$(wc -l <"$work/trace")"
	if [ "$pass" = sched ]; then
		echo trace >&"$sin" # the server starts its trace, then says so
		line=""
		read -r line <&"$sout" || true
		if [ "${line%$'\r'}" != tracing ]; then
			echo "bench.sh conns: $server did not start its trace (${line:-no line})" >&2
			return 1
		fi
	fi
	local walker="" walks
	if [ "$pass" = walks ]; then
		[ "$(readlink "/proc/$ws/exe")" = "$conns_walk_bin" ] ||
			{ echo "bench.sh conns: $server's wineserver runs $(readlink "/proc/$ws/exe"), not $conns_walk_bin" >&2; return 1; }
		perf stat -x, -e "$conns_probes" -p "$ws" -o "$work/walks" </dev/null >/dev/null 2>"$work/walks.err" &
		walker=$!
		conns_helper "$walker"
		sleep 0.5 # attached before the echo starts: until then nothing walks
	fi
	echo go >&"$gofd"
	conns_await '^active ' "$load" || return 1
	s1="$(cputicks "$pid")" w1="$(cputicks "$ws")"
	v1="$(switches "$pid" voluntary)" p1="$(switches "$ws" nonvoluntary)"
	tasks "$pid" >"$work/tasks1"
	if [ -n "$walker" ]; then
		kill -INT "$walker" 2>/dev/null || true # its status says if it had ended
		local status=0
		wait "$walker" || status=$?
		conns_unhelper "$walker"
		# It ends with the status of the SIGINT that stopped it, 130.
		((status == 130)) || { echo "bench.sh conns: perf stat exited with status $status on $server's wineserver:" >&2; cat "$work/walks.err" >&2; return 1; }
		walks="$(awk -F, '$1 ~ /^[0-9]+$/ { n += $1; k++ } END { if (k == 2) print n }' "$work/walks")"
		[ -n "$walks" ] || { echo "bench.sh conns: perf stat did not count both walks:" >&2; cat "$work/walks" >&2; return 1; }
	fi
	[ "$pass" != traced ] || t1="$(wc -l <"$work/trace")"
	# The server ends first, while the load generator holds its
	# connections: closed from the client side all at once they would make
	# Wine's server spin (README, "Connection scale"), which is not what
	# this measures.
	exec {sin}>&- # the server serves until its standard input ends
	wait "$spid" || { echo "bench.sh conns: $server exited with status $?" >&2; return 1; }
	if [ -n "$toucher" ]; then
		kill "$toucher" 2>/dev/null || true # it may have died already
		wait "$toucher" 2>/dev/null || true # killed: its status says so
		conns_unhelper "$toucher"
	fi
	exec {gofd}>&-
	wait "$load" || { echo "bench.sh conns: the load generator failed against $server:" >&2; cat "$work/load.out" >&2; return 1; }
	rm -f "$work/go.fifo"
	local msgs
	msgs="$(awk '$1 == "active" { split($2, f, "="); print f[2] }' "$work/load.out")"
	if [ "$pass" = sched ]; then
		((msgs > 0)) || { echo "bench.sh conns: $server echoed no message in its traced run" >&2; return 1; }
		local counts
		counts="$(go tool trace -d=parsed "$work/sched.trace" | awk -f "$conns_awk")" ||
			{ echo "bench.sh conns: $server's execution trace does not read" >&2; return 1; }
		# The poller yields every 5 ms of a P's calls: a trace of its
		# echo with none counted is a sched.awk that no longer knows the
		# poller's yield by its frame (its variable yielder).
		[[ " $counts " != *" yields=0 "* ]] ||
			{ echo "bench.sh conns: sched.awk counted no yield of the poller in $server's trace; does its yielder match the poller's yield frame?" >&2; return 1; }
		echo "$msgs $counts"
		return
	fi
	if [ "$pass" = walks ]; then
		((msgs > 0)) || { echo "bench.sh conns: $server echoed no message in its counting run" >&2; return 1; }
		echo "$msgs $walks"
		return
	fi
	if [ "$pass" = traced ]; then
		((t1 > t0)) || { echo "bench.sh conns: no request traced in $server's active phase" >&2; return 1; }
		sed -n "$((t0 + 1)),${t1}p" "$work/trace" | awk -v msgs="$msgs" '
			/^[0-9a-f]+: [a-z_]+\(/ && !/^[0-9a-f]+: [a-z_]+\(\) = / { split($2, f, "("); n[f[1]]++ }
			/^[0-9a-f]+: ioctl\(\) = PENDING/ { n["ioctl-pending"]++ }
			END { printf "%s", msgs; for (k in n) printf " %s=%d", k, n[k]; printf "\n" }'
		return
	fi
	# The thread that waited most over the echo (one that started
	# meanwhile counts from 0; one that ended is not counted): its waits
	# and the CPU it ran; and the CPU of the threads but the two that
	# waited most. Each server serves on two threads (cloop's two; the
	# two goroutines of the Go servers, each in Wait or serving, which
	# settle on two threads), so the rest is what else runs: the Go
	# runtime's monitor and its other threads, Wine's own (not so net's,
	# whose goroutines serve on any thread). At 0 when no other thread
	# ran (not -0 from the sums' rounding).
	local busiest bv bms rest
	busiest="$(awk 'FILENAME == ARGV[1] { v[$1] = $2; c[$1] = $3; next }
		{ dv = $2 - v[$1]; dc = $3 - c[$1]; all += dc
		  if (dv > n1) { n2 = n1; c2 = c1; n1 = dv; c1 = dc } else if (dv > n2) { n2 = dv; c2 = dc } }
		END { r = all - c1 - c2; printf "%d %.6f %.6f\n", n1, c1, (r > 0 ? r : 0) }' "$work/tasks0" "$work/tasks1")"
	read -r bv bms rest <<<"$busiest"
	awk -v rss0="$rss0" -v rss1="$rss1" -v th=$((th1 - th0)) -v ds=$((s1 - s0)) -v dw=$((w1 - w0)) -v hz="$ticks" \
		-v dp=$((p1 - p0)) -v dv=$((v1 - v0)) -v bv="$bv" -v bms="$bms" -v rest="$rest" '
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[$1, kv[1]] = kv[2] } }
		END {
			conns = f["setup", "conns"] - f["base", "conns"]; msgs = f["active", "msgs"]
			if (conns < 1 || msgs < 1) { print "bench.sh conns: no connection after the first tenth, or no message echoed" > "/dev/stderr"; exit 1 }
			# No sched file, or no wait: "-" for the rows made of them.
			busiest = bv < 1 ? "- - -" : sprintf("%.2f %.1f %.2f", bv / msgs, bms * 1000 / bv, rest * 1000 / msgs)
			printf "%s %.0f %d %s %s %s %.3f %.3f %.2f %.2f %s\n", f["setup", "seconds"], (rss1 - rss0) * 1024 / conns, th,
				f["active", "msgs/s"], f["active", "p50-us"], f["active", "p99-us"],
				ds * 1000 / hz / msgs, dw * 1000 / hz / msgs, dp / msgs, dv / msgs, busiest
		}' "$work/load.out"
}

conns_bench() {
	local r workload server n active servers k
	: >conns.results
	for ((r = 1; r <= rounds; r++)); do
		echo "==> round $r of $rounds" >&2
		read -ra servers <<<"$conns_servers"
		k=$((r % ${#servers[@]}))
		servers=("${servers[@]:k}" "${servers[@]:0:k}")
		for workload in all idle; do
			if [ "$workload" = all ]; then n="$conns_all" active="$conns_all"; else n="$conns_max" active=$((conns_max / 100)); fi
			for server in "${servers[@]}"; do
				echo "  $workload: $server, $n connections, $active active" >&2
				conns_run "$server" "$n" "$active" | awk -v r="$r" -v w="$workload" -v s="$server" '{ print r, w, s, $0 }' >>conns.results
			done
		done
	done
	echo
	echo "Echo servers at many connections under Wine: $rounds rounds; servers pinned to CPU $cpu with their wineserver,"
	echo "the native load generator on CPU $other_cpu; 'all': $conns_all connections all echoing, 'idle': $conns_max with 1% echoing,"
	echo "${conns_secs} s each, 64-byte messages. Median (min–max) over the rounds."
	echo
	awk -v list="$conns_servers" -v titles="$conns_titles" "$conns_header$median_awk"'
	function cell(w, s, c,    n, i, a) {
		n = 0; for (i = 1; i <= R; i++) if ((w, s, i) in have && v[w, s, i, c] != "-") a[++n] = v[w, s, i, c] + 0
		if (!n) return "-"
		return sprintf("%s (%s–%s)", fmt(median(a, n)), fmt(a[1]), fmt(a[n]))
	}
	function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
	# ratio(w, a, b, c): column c of server a over that of server b, a
	# round at a time: the median (min–max) of those ratios, and how many
	# rounds they are if not all (a round of either missing, or b at 0:
	# a memory growth under a page over the connections reads 0).
	function ratio(w, a, b, c,    n, i, y, r, mid) {
		if (a == b) return "-"
		n = 0
		for (i = 1; i <= R; i++) if ((w, a, i) in have && (w, b, i) in have) {
			y = v[w, b, i, c] + 0
			if (y > 0) r[++n] = v[w, a, i, c] / y
		}
		if (!n) return "-"
		mid = median(r, n)
		return sprintf("%.2f (%.2f–%.2f)%s", mid, r[1], r[n], n < R ? sprintf(", %d of %d rounds", n, R) : "")
	}
	{ have[$2, $3, $1] = 1; for (c = 4; c <= NF; c++) v[$2, $3, $1, c] = $c; if ($1 > R) R = $1 }
	END {
		rows = split("setup s|memory B/conn|threads started meanwhile|msgs/s|p50 µs|p99 µs|server CPU ms/msg|wineserver CPU ms/msg|wineserver preempted /msg|server threads waited /msg|- the thread that waited most /msg|- its CPU µs a wait|- the threads but the two that waited most: CPU µs a message", names, "|")
		split("all idle", ws, " "); m = split(list, ss, " ")
		for (k = 1; k <= 2; k++) {
			print header(ws[k])
			for (c = 4; c < 4 + rows; c++) {
				row = "| " names[c - 3] " |"
				for (j = 1; j <= m; j++) row = row " " cell(ws[k], ss[j], c) " |"
				print row
			}
			print ""
		}
		# Against the goals (README, "Connection scale"): the ratio of
		# each round, whose servers ran one after another.
		print "Against C (and Go net), a round at a time: the median (min–max) of the ratios of the rounds."
		print ""
		# Each row: its title; then which server over which, and the
		# column ("this": the server of the table column).
		q = split("msgs/s, this / C (goal at least 0.9);this c 7|set-up speed, time of C / time of this (goal at least 0.9);c this 4|server CPU a message, this / C (goal at most 1.1);this c 10|wineserver CPU a message, this / C (goal at most 1.1);this c 11|memory a connection, this / C (goal at most 1.5);this c 5|memory a connection, Go net / this (goal at least 30);net this 5", rs, "|")
		for (k = 1; k <= 2; k++) {
			print header(ws[k] ", against C")
			for (i = 1; i <= q; i++) {
				split(rs[i], t, ";"); split(t[2], f, " ")
				row = "| " t[1] " |"
				for (j = 1; j <= m; j++)
					row = row " " ratio(ws[k], f[1] == "this" ? ss[j] : f[1], f[2] == "this" ? ss[j] : f[2], f[3]) " |"
				print row
			}
			print ""
		}
	}' conns.results
	conns_walks
	conns_requests
	conns_scheduling
}

# conns_pass PASS LABEL N FILE SERVER...: one run of conns_run's PASS a
# server at N connections with 1% echoing, each run's line in FILE after
# its server's name.
conns_pass() {
	local pass="$1" label="$2" n="$3" file="$4" server
	shift 4
	: >"$file"
	for server; do
		echo "  $label: $server, $n connections, $((n / 100)) active" >&2
		conns_run "$server" "$n" $((n / 100)) "$pass" | awk -v s="$server" '{ print s, $0 }' >>"$file"
	done
}

# conns_walks: one run a server at $conns_max connections with 1% echoing,
# not timed, counting the walks of Wine's server over its list of pending
# AFD polls; prints them per echoed message, and the idle table's median
# wineserver CPU a message divided by them.
conns_walks() {
	conns_walks_init
	echo
	if [ -z "$conns_probes" ]; then
		echo "Walks of Wine's server over its list of pending AFD polls: not counted: $conns_walks_why."
		return
	fi
	# shellcheck disable=SC2086 # the servers are words
	conns_pass walks walks "$conns_max" conns.walks $conns_servers
	echo "Walks of Wine's server over its list of pending AFD polls (sock_get_poll_events and complete_async_polls"
	echo "in server/sock.c), $conns_max connections with 1% echoing: one run a server with uprobes on their starts"
	echo "in $conns_walk_bin, counted by perf stat, not timed (each walk a trap). Per echoed message:"
	echo
	awk -v list="$conns_servers" -v titles="$conns_titles" "$conns_header$median_awk"'
	FILENAME == "conns.walks" { walks[$1] = $3 / $2; next }
	$2 == "idle" { cpu[$3, ++n[$3]] = $11 }
	END {
		m = split(list, ss, " ")
		print header("a message")
		row1 = "| walks of the poll list |"; row2 = "| wineserver CPU a walk (the median above / the walks) |"
		for (j = 1; j <= m; j++) {
			s = ss[j]; k = 0
			for (i = 1; i <= n[s]; i++) a[++k] = cpu[s, i]
			row1 = row1 sprintf(" %.2f |", walks[s])
			# net has no poll for them to walk: its wineserver CPU goes elsewhere.
			row2 = row2 (s == "net" || !walks[s] || !k ? " - |" : sprintf(" %.3g µs |", median(a, k) * 1000 / walks[s]))
		}
		print row1; print row2
	}' conns.walks conns.results
}

# conns_requests: one traced run a server at $conns_traced connections
# with 1% echoing; prints the Wine server requests per echoed message by
# name, and the share of poll submissions that found nothing ready.
conns_requests() {
	((conns_traced > 0)) || return 0
	# shellcheck disable=SC2086 # the servers are words
	conns_pass traced traced "$conns_traced" conns.requests $conns_servers
	echo "Wine server requests per echoed message, $conns_traced connections with 1% echoing (one traced run a server, not timed):"
	echo
	awk -v list="$conns_servers" -v titles="$conns_titles" "$conns_header"'
	{ s = $1; msgs[s] = $2; for (i = 3; i <= NF; i++) { split($i, kv, "="); n[s, kv[1]] = kv[2]; names[kv[1]] = 1 } }
	END {
		ns = split(list, ss, " ")
		print header("requests a message")
		m = 0
		for (k in names) if (k != "ioctl-pending") sorted[++m] = k
		for (i = 2; i <= m; i++) for (j = i; j > 1 && sorted[j-1] > sorted[j]; j--) { t = sorted[j]; sorted[j] = sorted[j-1]; sorted[j-1] = t }
		for (i = 1; i <= m; i++) {
			k = sorted[i]
			row = ""; keep = 0
			for (j = 1; j <= ns; j++) { v = n[ss[j], k] / msgs[ss[j]]; if (v >= 0.05) keep = 1; row = row sprintf(" %.2f |", v) }
			if (keep) printf "| %s |%s\n", k, row
		}
		row = ""
		for (j = 1; j <= ns; j++) row = row (n[ss[j], "ioctl"] ? sprintf(" %.0f%% |", 100 * n[ss[j], "ioctl-pending"] / n[ss[j], "ioctl"]) : " - |")
		printf "| poll submissions that found nothing ready |%s\n", row
	}' conns.requests
	echo
	echo "recv_socket, send_socket, ioctl (a poll submitted), set_async_direct_result and get_async_result (a poll that"
	echo "completed later, fetched by the thread that submitted it) touch a socket, after which Wine re-evaluates its"
	echo "events, walking its list of pending polls (server/sock.c); select, set_timer and event_op are waits, timers"
	echo "and wake-ups."
}

# conns_scheduling: one run of each of the poller's servers at
# $conns_sched connections with 1% echoing, its active phase traced by Go's
# runtime; prints, per echoed message, the system calls of its goroutines
# that wait and serve, those in which the runtime took their P and what
# the trace shows at that moment (scripts/sched.awk), and the poller's
# yields in their calls.
conns_scheduling() {
	((conns_sched > 0)) || return 0
	local server servers=()
	for server in $conns_servers; do
		case "$server" in go*) servers+=("$server") ;; esac # the poller's
	done
	conns_pass sched scheduling "$conns_sched" conns.sched "${servers[@]}"
	echo
	echo "The poller's servers as Go's runtime saw them, $conns_sched connections with 1% echoing: one run a server, not"
	echo "timed, with an execution trace from before the echo to the server's end (a fraction of a second longer);"
	echo "per echoed message:"
	echo
	awk -v list="${servers[*]}" -v titles="$conns_titles" -v all="$conns_servers" "$conns_header"'
	BEGIN {
		# The titles of these servers, in the order of all the servers.
		na = split(all, a, " "); split(titles, t, "|"); n = split(list, ss, " ")
		titles = ""
		for (j = 1; j <= n; j++) for (i = 1; i <= na; i++) if (a[i] == ss[j]) titles = titles (j > 1 ? "|" : "") t[i]
	}
	{ msgs[$1] = $2; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[$1, kv[1]] = kv[2] } }
	END {
		# Each row: the count of sched.awk, then its title.
		rows = split("syscalls=system calls|lost=of which the P was taken|stolen=- by another goroutine leaving its call|wanted=- else no P idle, or a goroutine runnable|long-call=- else the call 10 ms old|long-run=- else the P held 10 ms without the scheduler|handling=  - the last Wait 10 ms back or more|other=- else|yields=yields of the poller", rs, "|")
		print header("a message")
		for (k = 1; k <= rows; k++) {
			key = substr(rs[k], 1, index(rs[k], "=") - 1)
			row = "| " substr(rs[k], index(rs[k], "=") + 1) " |"
			for (j = 1; j <= n; j++) row = row sprintf(" %.3f |", v[ss[j], key] / msgs[ss[j]])
			print row
		}
	}' conns.sched
	echo
	echo "The calls are those of the goroutines that wait and serve (echo.(*Server).work). Their P is taken by the"
	echo "thread of another goroutine on its way out of a call of its own, which takes back the P it had (exitsyscall in"
	echo "Go 1.26: no wake-up, no monitor), or by Go's runtime's monitor (retake in runtime/proc.go) from a call it sees"
	echo "on two ticks unless no goroutine waits in the P's queue, a P is idle and the call is younger than 10 ms, and"
	echo "at once from a P held 10 ms without passing through the scheduler; each of the monitor's takings makes it tick"
	echo "every 20 µs again, and under Wine each tick waits on the wineserver (the runtime's usleep). The rows split the"
	echo "takings by what the trace shows at the moment (scripts/sched.awk), not by the rule the runtime applied: the"
	echo "trace does not show each P's queue or spinning threads, and a long run of the runtime's count may be one of"
	echo "this awk's 'else'."
}

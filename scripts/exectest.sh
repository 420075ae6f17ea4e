#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Checks scripts/wine/go_windows_amd64_exec against a stand-in for wine (a
# script that prints how it was started, then sleeps or exits as told), so
# without Wine: the bound it puts on a test binary, read from
# -test.timeout, none for benchmarks and fuzzing, what it says of a binary
# that ends with no PASS or FAIL line, that its watcher kills one that
# outlives its bound (about 31 s; timeout(1), 10 s later, is only a
# backstop), saying what its threads and its wineserver were doing, and
# one whose wineserver ends under it at once, and that it leaves no
# process behind. scripts/test.sh runs it; it fails on the first
# difference.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
# The stand-in: its parent's command line is the backstop (timeout ...) or
# the exec script itself. It execs sleep, so that nothing else holds the pipe.
cat >"$dir/wine" <<'EOF'
#!/usr/bin/env bash
echo "parent: $(ps -o args= -p "$PPID")"
echo "the binary's standard error" >&2
[ -n "${FAKE_OUT:-}" ] && echo "$FAKE_OUT"
[ -n "${FAKE_SLEEP:-}" ] && exec -a "$1" sleep "$FAKE_SLEEP" # named as the binary
exit "${FAKE_STATUS:-0}"
EOF
chmod +x "$dir/wine"
exec_script="$PWD/scripts/wine/go_windows_amd64_exec"
# A prefix whose wineserver never runs.
export WINEPREFIX="$dir/prefix"

fail() { echo "exectest: $*" >&2; exit 1; }
# run ARGS...: the exec script on x.test.exe, its stdout and stderr in
# $dir/out, its status in $status.
run() {
	status=0
	PATH="$dir:$PATH" "$exec_script" x.test.exe "$@" >"$dir/out" 2>&1 || status=$?
}
# expect_parent ARGS... -- WANT: the stand-in's parent for ARGS starts with
# WANT.
expect_parent() {
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	run "${args[@]}"
	grep -q "^parent: $2" "$dir/out" || fail "with ${args[*]}: want the parent $2, got: $(cat "$dir/out")"
}
bound="timeout --foreground -s KILL"
expect_parent -test.timeout=10m0s -- "$bound 640 wine"
expect_parent -test.timeout=1h2m3.5s -- "$bound 3764 wine"
expect_parent -test.timeout=500ms -- "$bound 41 wine"
expect_parent -test.timeout=0s -- "bash $exec_script"
expect_parent -test.timeout=0 -- "bash $exec_script"
expect_parent -test.timeout=-1s -- "bash $exec_script"
expect_parent -test.timeout=10m0s -test.bench=. -- "bash $exec_script"
expect_parent -test.timeout=10m0s '-test.bench=^$' -- "$bound 640 wine"
expect_parent -test.timeout=10m0s -test.fuzz=FuzzX -- "bash $exec_script"
# want WHAT STATUS PATTERN: the last run ended with STATUS and its output
# has a line that matches PATTERN (with ! before it: has none that says
# "no PASS or FAIL").
want() {
	local ok=1
	[ "$status" = "$2" ] || ok=0
	if [ "$3" = ! ]; then
		! grep -q "no PASS or FAIL" "$dir/out" || ok=0
	else
		grep -q "$3" "$dir/out" || ok=0
	fi
	[ "$ok" = 1 ] || fail "$1: status $status, $(cat "$dir/out")"
}
run -test.timeout=10x
want "a bad -test.timeout" 2 "cannot read -test.timeout=10x"
# A binary that ends with PASS or FAIL: its status, no word from the
# script.
FAKE_OUT=PASS run -test.timeout=10m0s
want "a PASS" 0 !
want "the binary's standard error" 0 "^the binary's standard error$"
FAKE_OUT=FAIL FAKE_STATUS=1 run -test.timeout=10m0s
want "a FAIL" 1 !
# One that ends with neither: its status, and what the script knows.
FAKE_STATUS=3 run -test.timeout=10m0s
want "no PASS or FAIL line" 3 "status 3 and no PASS or FAIL line (a panic shows above.*whose wineserver no longer runs: Wine lost it)"
FAKE_STATUS=3 WINEPREFIX='' run -test.timeout=10m0s
want "no WINEPREFIX" 3 "WINEPREFIX is not set"
# One that outlives its bound (31 s): killed by the watcher, before the
# backstop at 41 s.
start=$SECONDS
FAKE_SLEEP=300 run -test.timeout=1s
want "a binary past its bound" 137 "it was killed at 3[1-3] s, its bound 30 s past its -test.timeout"
want "what it did before the kill" 137 "^  before the kill: no wineserver of $WINEPREFIX runs"
want "its threads before the kill" 137 "^  before the kill: *[0-9]* *[0-9]* S+\? .* sleep$"
! grep -q "Killed" "$dir/out" || fail "bash's word on the killed pipeline shows: $(cat "$dir/out")"
[ $((SECONDS - start)) -lt 40 ] || fail "a binary past its bound ran $((SECONDS - start)) s: not killed by the watcher"
# One whose wineserver ends under it (a stand-in: sleep, named wineserver,
# in this prefix, killed after 5 s, when it writes its last words to the
# log): killed within a few seconds, and said so, quoting only what the
# log gained while it ran.
mkdir "$dir/server" && cp "$(command -v sleep)" "$dir/server/wineserver"
"$dir/server/wineserver" 300 &
server=$!
echo "an old abort" >"$WINEPREFIX.wineserver.log"
(read -rt 5 <> <(:) || true; echo "wineserver: server/fd.c:1644: set_fd_events: Assertion failed." >>"$WINEPREFIX.wineserver.log"; kill "$server") &
start=$SECONDS
FAKE_SLEEP=300 run -test.timeout=10m0s
wait "$server" 2>/dev/null || true
want "a binary whose wineserver ended" 137 "its wineserver ended while it ran (pid $server), and it was killed at [0-9]* s"
want "the server's last words" 137 "^  the wineserver's last words: .*fd.c:1644"
! grep -q "an old abort" "$dir/out" || fail "the server's last words quote what the log held before the run: $(cat "$dir/out")"
want "its threads before that kill" 137 "^  before the kill: *[0-9]* *[0-9]* S+\? .* sleep$"
[ $((SECONDS - start)) -lt 20 ] || fail "a binary whose wineserver ended ran $((SECONDS - start)) s"
# Every watcher (which would have taken a snapshot before a kill) ended
# with its script, the runs above ending at once or killed: no process of
# this run's prefix is left that runs the script or sleeps.
for p in $(pgrep -f "go_windows_amd64_exec x[.]test[.]exe|^sleep [0-9]+\$|^x[.]test[.]exe [0-9]+\$"); do
	! in_prefix "$p" || fail "left behind: $(tr '\0' ' ' <"/proc/$p/cmdline")"
done
echo "go_windows_amd64_exec: bounds, messages, a kill past 31 s and one when the wineserver ends, as expected"

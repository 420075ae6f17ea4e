# shellcheck shell=bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# What scripts/test.sh, scripts/bench.sh and scripts/wine/go_windows_amd64_exec
# need; sourced by them.

# tool NAME PACKAGE VERSION: installs the Go command PACKAGE at VERSION
# once, into a cache of pinned tools (~/.cache/sockstate/tools), and prints
# its path. The tools stay out of go.mod, whose only dependency is
# golang.org/x/sys.
tool() {
	local tools="${XDG_CACHE_HOME:-$HOME/.cache}/sockstate/tools"
	local bin="$tools/$1-$3" tmp
	if [ ! -x "$bin" ]; then
		tmp="$(mktemp -d)"
		GOBIN="$tmp" GOFLAGS='' go install "$2@$3" >&2
		mkdir -p "$tools"
		mv "$tmp/$1" "$bin"
		rmdir "$tmp"
	fi
	echo "$bin"
}

# build_c_dll CC NAME OUT LIBS...: the C files of testdata/NAME into a DLL.
build_c_dll() {
	local cc="$1" name="$2" out="$3"
	shift 3
	"$cc" -shared -O2 -Wall -Werror -o "$out" "testdata/$name/"*.c "testdata/$name/$name.def" \
		-Wl,--kill-at -Wl,--enable-stdcall-fixup "$@"
}

# in_prefix PID: whether process PID runs in $WINEPREFIX.
in_prefix() {
	{ tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null | grep -qxF "WINEPREFIX=${WINEPREFIX:-}"
}

# this_wineserver: the pid of the wineserver of $WINEPREFIX; fails, saying
# so, if none runs.
this_wineserver() {
	local p
	for p in $(pgrep wineserver); do # wineserver64 on Debian
		if in_prefix "$p"; then
			echo "$p"
			return
		fi
	done
	echo "no wineserver of ${WINEPREFIX:-the default prefix} runs" >&2
	return 1
}

# binary_pids EXE: the processes of $WINEPREFIX that run EXE (a path or a
# name), not the shells and timeout(1) that started them; fails if none.
binary_pids() {
	local p found=1
	for p in $(pgrep -f -- "(^|[/\\])$(basename "$1" | sed 's/[.]/[.]/g')"); do
		case "$(cat "/proc/$p/comm" 2>/dev/null)" in bash | timeout | "") continue ;; esac
		in_prefix "$p" && echo "$p" && found=0
	done
	return $found
}

# snapshot EXE: a line for the wineserver of $WINEPREFIX and one for each
# thread of the processes of that prefix that run EXE: state, CPU time,
# seconds since it started, the kernel function it waits in; then the
# wineserver's line again a second later (a server that spins has gained
# a second of CPU).
snapshot() {
	local ws pids fields=pid=,stat=,time=,etimes=,wchan:32=,comm=
	if ws="$(this_wineserver 2>&1)"; then
		ps -o "$fields" -p "$ws" | sed 's/^/wineserver /'
	else
		echo "$ws"
	fi
	if ! pids="$(binary_pids "$1")"; then
		echo "no process of this prefix runs $1"
		return
	fi
	ps -L -o "pid=,tid=,${fields#pid=,}" -p "$(paste -sd, <<<"$pids")"
	if [[ "$ws" =~ ^[0-9]+$ ]]; then
		read -rt 1 <> <(:) || true # a second, in bash's own read
		ps -o "$fields" -p "$ws" | sed 's/^/wineserver a second later /'
	fi
}

# lost_server_only FILE: whether every package that failed in FILE (go
# test -json) failed because its wineserver ended under it, as
# go_windows_amd64_exec says (CONTRIBUTING.md, "Under Wine 8").
lost_server_only() {
	awk '
	match($0, /"Package":"[^"]*"/) { p = substr($0, RSTART + 11, RLENGTH - 12) }
	/"Action":"fail"/ && !/"Test":/ { failed[p] = 1 }
	/its wineserver ended while it ran/ { lost[p] = 1 }
	END { n = 0; for (p in failed) { n++; if (!(p in lost)) exit 1 }; exit n == 0 }
	' "$1"
}

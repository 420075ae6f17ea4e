#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's demo command, on a Linux (Debian) machine: the echo server
# demo (cmd/echodemo, one source for both systems), 100 clients x 200
# messages, each byte checked, twice: natively on Linux, the poller on
# epoll; then as the Windows binary under Wine, on the best backend Wine
# has (AFD), after examples/probe tells whether this Windows has
# ProcessSocketNotifications. Then both runs' figures, one under the other.
# Before the Wine run it installs what that needs (see scripts/setup.sh).
#
# Flags given here (see -help) are added to those of both runs, so
# "scripts/demo.sh -messages 50" changes only the messages; -backend goes
# to the Wine run alone ("scripts/demo.sh -backend AFD"), as the Linux run
# has epoll only.
#
# On Windows, or on Linux without Wine, run "go run ./cmd/echodemo" instead.
set -euo pipefail
cd "$(dirname "$0")/.."
set -- -clients 100 -messages 200 "$@" # the last of a flag given twice wins
native=()
skip=0
for arg in "$@"; do
	if ((skip)); then
		skip=0
		continue
	fi
	case "$arg" in
	-backend | --backend) skip=1 ;;
	-backend=* | --backend=*) ;;
	*) native+=("$arg") ;;
	esac
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

printf '\n==> go run ./cmd/echodemo %s (linux/%s, natively)\n' "${native[*]}" "$(go env GOHOSTARCH)"
GOOS=linux GOARCH="$(go env GOHOSTARCH)" go run ./cmd/echodemo "${native[@]}" | tee "$out/linux"

# shellcheck source=scripts/setup.sh
SOCKSTATE_WINE32=no source scripts/setup.sh
printf '\n==> go run ./examples/probe (windows/amd64, under Wine)\n'
GOOS=windows GOARCH=amd64 go run ./examples/probe
printf '\n==> go run ./cmd/echodemo %s (windows/amd64, under Wine)\n' "$*"
GOOS=windows GOARCH=amd64 go run ./cmd/echodemo "$@" | tee "$out/wine"

printf '\n==> both runs of the echo demo\n'
for run in linux wine; do
	case "$run" in
	linux) echo "Linux, natively:" ;;
	wine) echo "Windows binary, under Wine (not Windows):" ;;
	esac
	grep -E '^(backend|[0-9]+ connections|throughput|latency|server memory)' "$out/$run" | sed 's/^/  /'
done

#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The main job, on a Linux (Debian) machine: the README's demo command. It
# installs what it needs (see scripts/setup.sh), then, under Wine, tells
# whether this Windows has ProcessSocketNotifications (examples/probe) and
# runs the echo server demo on the best backend (cmd/echodemo): 100 clients
# x 200 messages, with the flags given here (see -help) added to those, so
# "scripts/demo.sh -backend AFD" is still 100 x 200 and "-messages 50"
# changes only the messages.
#
# On Windows, run "go run ./cmd/echodemo" instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup.sh
SOCKSTATE_WINE32=no source scripts/setup.sh
set -- -clients 100 -messages 200 "$@" # the last of a flag given twice wins
printf '\n==> go run ./examples/probe\n'
GOOS=windows GOARCH=amd64 go run ./examples/probe
printf '\n==> go run ./cmd/echodemo %s\n' "$*"
GOOS=windows GOARCH=amd64 go run ./cmd/echodemo "$@"

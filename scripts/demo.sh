#!/usr/bin/env bash
# The main job, on a Linux (Debian) machine: the README's demo command. It
# installs what it needs (see scripts/setup.sh) and runs every program under
# examples/ under Wine, stopping at the first that fails.
#
# On Windows, run "go run ./examples/NAME" instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup.sh
SOCKSTATE_WINE32=no source scripts/setup.sh
for dir in examples/*/; do
	printf '\n==> go run ./%s\n' "${dir%/}"
	GOOS=windows GOARCH=amd64 go run "./${dir%/}"
done

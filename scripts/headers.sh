#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The license header of every source file of the repository (tracked or
# new, not ignored): Go, C, module-definition and shell files, and every
# file that starts with #!. Generated Go files ("// Code generated ... DO
# NOT EDIT.") are left as their generator writes them.
#
#   scripts/headers.sh check   lists the files without the header; fails if any
#   scripts/headers.sh fix     adds the header where it is missing
set -euo pipefail
cd "$(dirname "$0")/.."

copyright="Copyright 2026 The sockstate Authors. All rights reserved."
spdx="SPDX-License-Identifier: BSD-3-Clause"

# sources prints the source files, one a line.
sources() {
	git ls-files --cached --others --exclude-standard | while IFS= read -r f; do
		if [ ! -f "$f" ] || [ -L "$f" ]; then continue; fi # a link's target is listed itself
		case "$f" in
		*.go)
			grep -qE '^// Code generated .* DO NOT EDIT\.$' "$f" || echo "$f" ;;
		*.c | *.h | *.def | *.sh) echo "$f" ;;
		*) [ "$(head -c 2 "$f")" != '#!' ] || echo "$f" ;;
		esac
	done
}

has_header() { head -n 5 "$1" | grep -qF "$spdx"; }

# add FILE: writes the header in the file's comment syntax, after a
# first line that is a #! line or a directive for shellcheck.
add() {
	local f="$1" c="#" tmp
	case "$f" in
	*.go | *.c | *.h) c="//" ;;
	*.def) c=";" ;;
	esac
	tmp="$(mktemp)"
	{
		if [ "$c" = "#" ] && head -n 1 "$f" | grep -qE '^(#!|# shellcheck )'; then
			head -n 1 "$f"
			printf '%s %s\n%s %s\n%s\n' "$c" "$copyright" "$c" "$spdx" "$c"
			tail -n +2 "$f"
		else
			printf '%s %s\n%s %s\n\n' "$c" "$copyright" "$c" "$spdx"
			cat "$f"
		fi
	} >"$tmp"
	cat "$tmp" >"$f" # keeps the file's mode
	rm -f "$tmp"
}

missing=()
while IFS= read -r f; do
	has_header "$f" || missing+=("$f")
done < <(sources)

case "${1:-}" in
check)
	if [ ${#missing[@]} -gt 0 ]; then
		printf 'no license header (scripts/headers.sh fix adds it): %s\n' "${missing[@]}" >&2
		exit 1
	fi
	echo "license header: every source file has it"
	;;
fix)
	for f in "${missing[@]}"; do add "$f"; done
	echo "license header added to ${#missing[@]} files"
	;;
*)
	echo "usage: scripts/headers.sh check|fix" >&2
	exit 2
	;;
esac

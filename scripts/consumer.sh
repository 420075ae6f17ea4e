#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The consumer check, as a user of this module sees it: a module outside the
# repository requires github.com/sockstate/sockstate (a replace to this
# clone), vendors it, holds every Go snippet of README.md as a program and
# every example file of the module's packages pasted unchanged (only the
# package clause follows the new directory), then
#   - its module graph must be this module and golang.org/x/sys alone;
#   - it builds and vets (tests and examples included) for windows/386,
#     amd64 and arm64 with -mod=vendor;
#   - under Wine, its tests run (the examples with an Output line are
#     checked), and each README program and examples/probe, pasted as a
#     program, runs and must succeed and print what its "// prints:"
#     comments say; with SOCKSTATE_PSN_MODEL_DLL set, again against the
#     reference model (labelled model), to their end;
#   - examples/echo, copied as a package of its own, builds there with
#     cmd/echodemo for the three Windows GOARCHes and for linux/amd64 and
#     linux/arm64 (one source: only their socket files differ by OS);
#     cmd/echodemo runs it under Wine and natively on Linux (epoll) and
#     checks every byte echoed.
# Called by scripts/test.sh; runs alone too (it sources scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
if ! command -v go_windows_amd64_exec >/dev/null; then
	# shellcheck source=scripts/setup.sh
	SOCKSTATE_WINE32=no source scripts/setup.sh
fi

fail() { echo "FAIL: $*" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
consumer="$work/consumer"
mkdir -p "$consumer"

xsys="$(go list -m -f '{{.Version}}' golang.org/x/sys)"
cat >"$consumer/go.mod" <<MOD
module example.com/consumer

go $(go list -m -f '{{.GoVersion}}')

require (
	github.com/sockstate/sockstate v0.0.0-00010101000000-000000000000
	golang.org/x/sys $xsys
)

replace github.com/sockstate/sockstate => $repo
MOD
cp go.sum "$consumer/go.sum"

# The README's Go snippets, each a program of its own.
awk -v dir="$consumer/readme" '
	/^```go$/ { n++; file = sprintf("%s%d/main.go", dir, n); system("mkdir -p " dir n); inside = 1; next }
	/^```$/ && inside { inside = 0; close(file); next }
	inside { print > file }
' README.md
snippets=("$consumer"/readme*)
[ -e "${snippets[0]}" ] || fail "README.md has no Go snippet"

# Every example file, pasted into a package directory of the consumer.
examples=0
while IFS= read -r f; do
	pkg="$(dirname "$f")"
	dest="$consumer/examples/${pkg//\//_}"
	[ "$pkg" != . ] || dest="$consumer/examples/sockstate"
	mkdir -p "$dest"
	sed '0,/^package /s/^package .*/package examples_test/' "$f" >"$dest/$(basename "$f")"
	examples=$((examples + 1))
done < <(git ls-files --cached --others --exclude-standard -- '*example_test.go' '*example_*_test.go' ':!:internal/**' ':!:cmd/**')
[ "$examples" -gt 0 ] || fail "no example files found"
# The complete example program, pasted as a program of the consumer.
mkdir -p "$consumer/probe"
cp examples/probe/main.go "$consumer/probe/main.go"
snippets+=("$consumer/probe")
# The echo server as a user starts from it: examples/echo's files (tests
# aside) copied unchanged into a package of the consumer, and the demo that
# drives it, its import of the package pointed at the copy. Only the public
# API can build there: an internal package of this module cannot be imported.
mkdir -p "$consumer/echo" "$consumer/echodemo"
for f in examples/echo/*.go; do
	[[ "$f" == *_test.go ]] || cp "$f" "$consumer/echo/"
done
for f in cmd/echodemo/*.go; do
	[[ "$f" == *_test.go ]] ||
		sed 's|"github.com/sockstate/sockstate/examples/echo"|"example.com/consumer/echo"|' "$f" >"$consumer/echodemo/$(basename "$f")"
done
grep -q '"example.com/consumer/echo"' "$consumer/echodemo/main.go" || fail "cmd/echodemo no longer imports examples/echo"
echo "consumer: ${#snippets[@]} programs (README snippets, examples/probe), $examples example files, examples/echo and cmd/echodemo"

cd "$consumer"
go mod vendor
graph="$(go list -mod=readonly -m all | sort)"
want="$(printf '%s\n' example.com/consumer "github.com/sockstate/sockstate v0.0.0-00010101000000-000000000000 => $repo" "golang.org/x/sys $xsys" | sort)"
[ "$graph" = "$want" ] || fail "the consumer's module graph is not this module and x/sys alone:
$graph"

for arch in 386 amd64 arm64; do
	CGO_ENABLED=0 GOOS=windows GOARCH=$arch go build -mod=vendor ./...
	CGO_ENABLED=0 GOOS=windows GOARCH=$arch go vet -mod=vendor ./...
	echo "consumer: windows/$arch builds and vets with -mod=vendor"
done
# On Linux the echo server and its demo alone: the README's programs and the
# example files are Windows code.
for arch in amd64 arm64; do
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -mod=vendor ./echo ./echodemo
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go vet -mod=vendor ./echo ./echodemo
	echo "consumer: the copied echo server and echodemo build and vet for linux/$arch with -mod=vendor"
done

GOOS=windows GOARCH=amd64 go test -mod=vendor -count=1 ./...
echo "consumer: go run ./echodemo (the copied echo server) under Wine"
GOOS=windows GOARCH=amd64 go run -mod=vendor ./echodemo -clients 20 -messages 200 -size 100 || fail "the copied echo server failed under Wine"
echo "consumer: go run ./echodemo (the copied echo server) natively on Linux"
GOOS=linux GOARCH="$(go env GOHOSTARCH)" go run -mod=vendor ./echodemo -clients 20 -messages 200 -size 100 || fail "the copied echo server failed on Linux"
# run_program DIR LABEL [FLAGS...]: runs a program of the consumer; what it
# prints must be the lines its source marks "// prints: ..." (if any), or,
# outside the model run, the one line of ProcessSocketNotifications'
# absence, the fallback the README documents.
run_program() {
	local dir="$1" label="$2" out want
	shift 2
	echo "consumer: go run ./$dir $label"
	out="$(GOOS=windows GOARCH=amd64 go run -mod=vendor "$@" "./$dir")" || { echo "$out"; fail "program $dir failed ($label)"; }
	echo "$out"
	want="$(sed -n 's|.*// prints: ||p' "$dir"/*.go)"
	[ -n "$want" ] && [ "$out" != "$want" ] || return 0
	if [ "$label" != "$model_label" ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q 'has no ProcessSocketNotifications export' <<<"$out"; then
		echo "consumer: $dir took its documented fallback: this Windows lacks ProcessSocketNotifications"
		return 0
	fi
	fail "program $dir ($label) printed
$out
where its source says it prints
$want"
}
model_label="against the reference model of ProcessSocketNotifications (model, not Windows)"
for s in "${snippets[@]}"; do
	run_program "$(basename "$s")" "under Wine"
done
# With the model's DLL (scripts/test.sh passes it), the same programs run
# to their end through the model, which only this module's build tag can
# switch on.
if [ -n "${SOCKSTATE_PSN_MODEL_DLL:-}" ]; then
	for s in "${snippets[@]}"; do
		run_program "$(basename "$s")" "$model_label" -tags sockstate_psnmodel
	done
else
	echo "consumer: SOCKSTATE_PSN_MODEL_DLL is unset: the programs did not run against the reference model"
fi

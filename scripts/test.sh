#!/usr/bin/env bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The whole test suite, on a Linux (Debian) machine: the README's test
# command, and what .ci/run calls. It installs what it needs (see
# scripts/setup.sh), runs the Windows tests under Wine, and stops at the
# first failure with a non-zero exit. It ends by listing every skipped test
# with its reason and a count line.
#
# Modes: "scripts/test.sh model" runs only the passes against the reference
# model; "scripts/test.sh stress" only the stress tests, at full size on
# both backends (about 10 minutes here).
#
# On Windows, run "go test ./..." instead.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
step() { printf '\n==> [%3ds] %s\n' $((SECONDS - start)) "$*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "setup"
# shellcheck source=scripts/setup.sh
source scripts/setup.sh

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
work="$(mktemp -d)"
trap '[ -z "${exectest_pid:-}" ] || kill "$exectest_pid" 2>/dev/null; rm -rf "$work"' EXIT
state="$work/tests"
staticcheck_version=v0.8.2  # staticcheck 2026.2.2
actionlint_version=v1.7.12
arches=(386 amd64 arm64)
linux_arches=(386 arm arm64 loong64 mips mips64 mips64le mipsle ppc64 ppc64le riscv64 s390x)
fuzztime=400000x # a count, not a duration: a timed run can end in "context deadline exceeded" while a slow Wine worker stops
# The check of go_windows_amd64_exec spends about 31 s waiting out a bound,
# asleep, in a Wine prefix of its own that no wineserver runs: in the
# whole suite it runs beside the steps below, and is reported at its step.
if [ -z "${1:-}" ]; then
	scripts/exectest.sh >"$work/exectest" 2>&1 &
	exectest_pid=$!
fi

step "gofmt"
unformatted="$(gofmt -l .)"
[ -z "$unformatted" ] || fail "gofmt would change: $unformatted"

step "license headers (scripts/headers.sh fix adds a missing one)"
scripts/headers.sh check

step "build and vet: windows/${arches[*]}; linux/amd64 and every GOARCH with epoll; the systems with no backend"
for arch in "${arches[@]}"; do
	CGO_ENABLED=0 GOOS=windows GOARCH=$arch go build ./...
	CGO_ENABLED=0 GOOS=windows GOARCH=$arch go vet ./...
done
go vet ./...
# The packages with Linux code, vetted with their tests, for every GOARCH
# whose golang.org/x/sys/unix has epoll (what runs natively here is amd64).
for arch in "${linux_arches[@]}"; do
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build ./...
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go vet ./poller ./examples/... ./cmd/... ./internal/sockettest
done
# Elsewhere poller.New returns an error matching errors.ErrUnsupported:
# the module builds and its tests compile.
for goos in darwin freebsd; do
	CGO_ENABLED=0 GOOS=$goos go vet ./...
done

step "go generate: no drift in generated files"
generated() { find . -name 'zsyscall_*.go' -not -path './.git/*' -print0 | sort -z | xargs -0 sha256sum; }
before="$(generated)"
go generate ./...
if [ "$(generated)" != "$before" ]; then
	git diff --stat -- '*zsyscall_*.go' || true
	fail "go generate ./... changed generated files: commit its output"
fi

step "SocketNotificationRetrieveEvents inlines"
GOOS=windows go build -gcflags=github.com/sockstate/sockstate=-m . 2>&1 |
	grep -q 'can inline SocketNotificationRetrieveEvents' ||
	fail "SocketNotificationRetrieveEvents is no longer inlinable"

step "C DLLs: the ABI stub (testdata/abistub), the reference model (testdata/psnmodel)"
# Each run builds its own copies: a DLL that another run has loaded is never
# rewritten under it.
build_c_dll x86_64-w64-mingw32-gcc abistub "$work/abistub-amd64.dll"
build_c_dll i686-w64-mingw32-gcc abistub "$work/abistub-386.dll" # the 386 C layout compiles
build_c_dll x86_64-w64-mingw32-gcc psnmodel "$work/psnmodel-amd64.dll" -lws2_32 -lntdll -lpsapi
build_c_dll i686-w64-mingw32-gcc psnmodel "$work/psnmodel-386.dll" -lws2_32 -lntdll -lpsapi
stub_path() { winepath -w "$work/abistub-$1.dll" 2>/dev/null; }
model_path="$(winepath -w "$work/psnmodel-amd64.dll" 2>/dev/null)"

go build -o "$work/testreport" ./internal/cmd/testreport
# run_tests LABEL ENV... -- GO TEST ARGS...: one go test run, reported.
# Under Wine, a run whose every failed package lost its wineserver runs
# once more, whole, on a server started again, and that run is the one
# counted.
run_tests() {
	local label="$1"
	shift
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	step "go test: $label"
	if env "${env[@]}" go test -count=1 -json "$@" ./... | tee "$work/run.json" | "$work/testreport" -label "$label"; then
		"$work/testreport" -label "$label" -state "$state" <"$work/run.json" >/dev/null
	elif lost_server_only "$work/run.json"; then
		step "go test: $label, again: Wine's server aborted under a test binary (above)"
		start_wineserver
		env "${env[@]}" go test -count=1 -json "$@" ./... | "$work/testreport" -label "$label" -state "$state" ||
			fail "go test: $label failed"
	else
		"$work/testreport" -label "$label" -state "$state" <"$work/run.json" >/dev/null || true
		fail "go test: $label failed"
	fi
}

# model_runs: the whole suite against the reference model of
# ProcessSocketNotifications (testdata/psnmodel/SPEC.md), then the tests of
# the raw call and its rows, the scenarios, the poller's suite, the echo
# example and the facts recorder once per value of each switch; both but
# for the AFD backend's subtests. Labelled "model": never a Windows pass.
# The AFD backend's subtests (TestX/AFD), which the model passes skip: the
# model is not in their path, and the windows/amd64 passes ran them.
afd_subtests='/^AFD$'
model_switches=(trigger=refuse remove_packet=coalesced remove_closed=call second_port=ignore second_port=move
	empty_call=einval level=change result=one overlapped=junk tied_socket=refuse)
# switch_run SW: model_runs' packages with the model's switch SW, as
# test2json output.
switch_run() {
	local sw="$1" pkg
	# result=one is contradicted by every observation through ws2_32
	# (SPEC.md, B30): only the recorder, which must detect it, runs.
	local run=("${pkgs[@]}")
	[ "$sw" = result=one ] && run=(./internal/psnfacts)
	for pkg in "${run[@]}"; do
		# -test.timeout as go test sets it: a hang ends in a panic with
		# every goroutine's stack, not in CI's own time limit; timeout(1)
		# for a hang of Wine itself. (The echo example's stress tests run
		# on the model once, in stress_runs below.)
		(cd "$pkg" && env "${env[@]}" SOCKSTATE_PSN_MODEL="$sw" timeout -k 30 660 \
			wine "$work/model/$(basename "$(realpath .)").exe" -test.v=test2json -test.count=1 -test.timeout=10m \
			-test.skip "$afd_subtests" 2>&1 |
			go tool test2json -t -p "github.com/sockstate/sockstate${pkg#.}")
	done
}
model_runs() {
	local env=(GOOS=windows GOARCH=amd64 SOCKSTATE_ABI_STUB="$(stub_path amd64)" SOCKSTATE_PSN_MODEL_DLL="$model_path")
	run_tests "windows/amd64 model" "${env[@]}" -- -tags sockstate_psnmodel -skip "$afd_subtests"
	local pkgs=(. ./poller ./examples/echo ./internal/psnfacts) pkg
	mkdir -p "$work/model"
	for pkg in "${pkgs[@]}"; do
		env "${env[@]}" go test -c -tags sockstate_psnmodel -o "$work/model/$(basename "$(realpath "$pkg")").exe" "$pkg"
	done
	# Two switches at a time, each its own Wine processes on the prefix's
	# server; their output is reported in order once all have ended. (Each
	# wait names its jobs: a bare one would reap the exectest job too.)
	local sw pair=()
	for sw in "${model_switches[@]}"; do
		switch_run "$sw" >"$work/model/$sw.json" 2>&1 &
		pair+=($!)
		if ((${#pair[@]} == 2)); then
			wait "${pair[@]}" || true # reported below
			pair=()
		fi
	done
	((${#pair[@]} == 0)) || wait "${pair[@]}" || true
	for sw in "${model_switches[@]}"; do
		step "go test: windows/amd64 model [$sw]"
		"$work/testreport" -label "windows/amd64 model [$sw]" -state "$state" <"$work/model/$sw.json"
	done
}
# soak N: the state-machine test of the poller (poller/statemachine_test.go)
# for N sequences per backend, with -race and checkptr: epoll natively, AFD
# under Wine, and ProcessSocketNotifications on the reference model, from
# one seed. A failure prints its seed and its shortest sequence; the other
# pass runs all the same, and the exit status is non-zero if either failed.
if [ "${1:-}" = soak ]; then
	sequences="${2:?usage: scripts/test.sh soak N}"
	seed="$(date +%s%N)"
	soak_args=(-count=1 -race -gcflags=all=-d=checkptr -timeout 0 -run '^TestStateMachine$' -v ./poller -sequences="$sequences" -seed="$seed")
	soak_lines='^(---|ok|FAIL|panic)|^\s+(---|statemachine)|WARNING: DATA RACE'
	failed=0
	step "soak: TestStateMachine, $sequences sequences, -race, natively (epoll)"
	go test "${soak_args[@]}" | grep -E "$soak_lines" || failed=1
	step "soak: TestStateMachine, $sequences sequences per backend, -race, under Wine (AFD; the model)"
	CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc GOOS=windows GOARCH=amd64 SOCKSTATE_PSN_MODEL_DLL="$model_path" \
		go test -tags sockstate_psnmodel "${soak_args[@]}" | grep -E "$soak_lines" || failed=1
	exit "$failed"
fi
if [ "${1:-}" = model ]; then
	model_runs
	"$work/testreport" -summary "$state"
	exit
fi

# stress_runs MODEL_SOCKETS TIMEOUT: the echo stress tests with -race, on
# AFD at full size, then with the PSN backend on the reference model with
# MODEL_SOCKETS sockets on one poller. The model's own worker and its reads
# of each socket's state cost Wine's server more per socket than AFD does
# (testdata/psnmodel/SPEC.md, "Cost"): CI runs it at 2,000 sockets, and
# "scripts/test.sh stress" at the full 10,000.
stress_runs() {
	step "stress under Wine with -race: 10,000 sockets on one poller; 1,000,000 messages echoed"
	CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc GOOS=windows GOARCH=amd64 \
		go test -count=1 -race -gcflags=all=-d=checkptr -timeout "$2" -run '^TestStress' -v ./examples/echo -stress |
		grep -E '^(---|ok|FAIL|panic)|echo_test.go|WARNING: DATA RACE'
	step "stress again with the ProcessSocketNotifications backend on the reference model (model, not Windows): $1 sockets"
	CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc GOOS=windows GOARCH=amd64 SOCKSTATE_PSN_MODEL_DLL="$model_path" \
		go test -count=1 -race -tags sockstate_psnmodel -timeout "$2" -run '^TestStress' -v ./examples/echo -stress -stress.sockets "$1" |
		grep -E '^(---|ok|FAIL|panic)|echo_test.go|WARNING: DATA RACE'
}
if [ "${1:-}" = stress ]; then
	stress_runs 10000 30m
	exit
fi
run_tests "windows/amd64" GOOS=windows GOARCH=amd64 SOCKSTATE_ABI_STUB="$(stub_path amd64)" --
run_tests "windows/amd64 -race" GOOS=windows GOARCH=amd64 SOCKSTATE_ABI_STUB="$(stub_path amd64)" \
	CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc -- -race -gcflags=all=-d=checkptr
if [ "$WINE32" = 1 ]; then
	run_tests "windows/386" GOOS=windows GOARCH=386 SOCKSTATE_ABI_STUB="$(stub_path 386)" --
else
	step "go test: windows/386 not run: wine32 is not installed (see setup above); 386 was built and vetted"
fi
# The state-machine test at 1,000 sequences natively: real epoll is the
# oracle of the poller's promises (about a minute).
run_tests "linux/amd64 natively (epoll) -race" SOCKSTATE_SEQUENCES=1000 -- -race
step "stress natively with -race: 10,000 sockets on one epoll poller; 1,000,000 messages echoed"
go test -count=1 -race -timeout 10m -run '^TestStress' -v ./examples/echo -stress |
	grep -E '^(---|ok|FAIL|panic)|echo_test.go|WARNING: DATA RACE'
model_runs

step "consumer: a module that vendors this one, pastes the README snippets and the examples"
SOCKSTATE_PSN_MODEL_DLL="$model_path" scripts/consumer.sh

for target in FuzzFormat FuzzCheckRegistration; do
	step "fuzz $target for $fuzztime inputs under Wine (windows/amd64; seed corpus in testdata/fuzz)"
	fuzz() { GOOS=windows GOARCH=amd64 go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" . >"$work/fuzz" 2>&1; }
	if ! fuzz; then
		# A failing input found by the fuzzer is written to testdata/fuzz
		# and fails the retry too; a hiccup of Wine's worker processes
		# does not. Show the first failure either way.
		cat "$work/fuzz"
		echo "fuzzing $target failed; once more, to tell a finding from a Wine hiccup"
		fuzz || { cat "$work/fuzz"; fail "fuzzing $target"; }
	fi
	tail -n 3 "$work/fuzz"
done

stress_runs 2000 10m

step "benchmarks under Wine, a short pass that must run, not time (scripts/bench.sh times them)"
x86_64-w64-mingw32-gcc -O2 -Wall -Werror -o "$work/cloop.exe" testdata/cloop/cloop.c -lws2_32 -lntdll -lpsapi
GOOS=windows GOARCH=amd64 go build -o "$work/echoserver.exe" ./internal/cmd/echoserver
SOCKSTATE_CLOOP="$(winepath -w "$work/cloop.exe" 2>/dev/null)" SOCKSTATE_ECHOSERVER="$(winepath -w "$work/echoserver.exe" 2>/dev/null)" \
	GOOS=windows GOARCH=amd64 go test -run '^$' -bench 'WaitOneActive|Echo' -benchtime 20x ./poller ./examples/echo |
	grep -E '^(Benchmark|ok|FAIL|panic)'
GOOS=windows GOARCH=amd64 go test -run '^$' -bench 'RegisteredMemory' -benchtime 1x ./poller |
	grep -E '^(Benchmark|ok|FAIL|panic)'
wine "$work/cloop.exe" wait 10 20
wine "$work/cloop.exe" mem 100
step "scripts/bench.sh conns, a short pass that must run, not time: the poller, C and net at 50 and 200 connections, 1 s"
# In a Wine prefix of this run's own: bench.sh restarts its wineserver, and
# two runs on one machine must not share it.
SOCKSTATE_WINEPREFIX="$work/wine" CONNS_SECS=1 CONNS_ALL=50 CONNS_MAX=200 BENCH_CHART="$work/conns.svg" scripts/bench.sh conns 1 2>&1 |
	grep -vE '^  [a-z]+: [0-9]+ connections|^==> conns: round'
[ -s "$work/conns.svg" ] || fail "scripts/bench.sh conns drew no chart"
step "scripts/bench.sh linux, a short native pass that must run, not time: Wait against raw epoll; the poller, C (epoll) and net at 50 and 200 connections, 1 s"
CONNS_SECS=1 CONNS_ALL=50 CONNS_MAX=200 BENCH_WAIT_TIME=100x BENCH_CHART="$work/linux.svg" scripts/bench.sh linux 1 2>&1 |
	grep -vE '^  [a-z]+: [0-9]+ connections|^==> (conns|Wait against raw epoll): round'
[ -s "$work/linux.svg" ] || fail "scripts/bench.sh linux drew no chart"

step "staticcheck $staticcheck_version"
staticcheck="$(tool staticcheck honnef.co/go/tools/cmd/staticcheck $staticcheck_version)"
GOOS=windows "$staticcheck" ./...
"$staticcheck" ./...

step "go_windows_amd64_exec against a stand-in for wine: its bound and its messages (scripts/exectest.sh, run beside the steps above)"
exectest_status=0
wait "$exectest_pid" || exectest_status=$?
exectest_pid= # reaped: the exit trap must not signal a number the system may give again
cat "$work/exectest"
[ "$exectest_status" = 0 ] || fail "scripts/exectest.sh (exit status $exectest_status)"

step "shellcheck, actionlint $actionlint_version"
shellcheck -x scripts/*.sh .ci/run scripts/wine/go_windows_amd64_exec
actionlint="$(tool actionlint github.com/rhysd/actionlint/cmd/actionlint $actionlint_version)"
"$actionlint" -pyflakes=

step "done in $((SECONDS - start)) s"
"$work/testreport" -summary "$state"

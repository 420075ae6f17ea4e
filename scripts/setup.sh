# shellcheck shell=bash
# Copyright 2026 The sockstate Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Sourced by scripts/test.sh, scripts/demo.sh, scripts/consumer.sh and
# scripts/bench.sh (not in its linux mode): makes this Linux machine able to
# build and run the module's Windows binaries under Wine.
#
# - installs wine, the mingw-w64 cross compilers and shellcheck with apt-get
#   if missing;
# - tries Debian's wine32 (i386 multiarch) for the windows/386 tests, and
#   removes the i386 architecture again if that install fails;
# - makes a Wine prefix that reports Windows 10 and holds the ProcessPrng
#   shim that Go 1.24+ binaries need (scripts/wine/bcryptprimitives.c):
#   SOCKSTATE_WINEPREFIX if set, else ~/.cache/sockstate/wine-<hash>, one
#   prefix for each version of the shim, shared by the checkouts and runs
#   that have that version (a prefix takes about 700 MB). Making it, and
#   putting the shim in, happen under a lock (<prefix>.lock), so runs that
#   start together make it once;
# - starts the prefix's wineserver if none runs, persistent for
#   SOCKSTATE_WINESERVER_PERSIST seconds (600) after its last Wine process
#   exits, so each test binary starts in ~0.1 s and the server then exits
#   by itself. It never stops a wineserver: other runs (the tests and the
#   demo at once, two checkouts, two CI jobs) may be using it.
# - puts scripts/wine (go_windows_amd64_exec) on PATH.
#
# Idempotent: a second run installs and builds nothing. It sets WINE32=1
# when windows/386 binaries can run; SOCKSTATE_WINE32=no skips the attempt.

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wine_dir="$root_dir/scripts/wine"

say() { printf '==> %s\n' "$*"; }

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		echo "setup: need root (or sudo) to run: $*" >&2
		return 1
	fi
}

apt_install() {
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "$@"
}

install_packages() {
	local missing=()
	command -v wine >/dev/null || missing+=(wine wine64)
	command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-x86-64)
	command -v i686-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-i686)
	command -v shellcheck >/dev/null || missing+=(shellcheck)
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing ${missing[*]}"
	as_root apt-get -o DPkg::Lock::Timeout=300 update -q
	apt_install "${missing[@]}"
}

# wine32 lets windows/386 test binaries run. Debian ships it for i386 only,
# through multiarch, and the install often fails (mirror skew, held amd64
# libraries). On failure the i386 architecture is removed again so that apt
# is left as it was.
try_wine32() {
	WINE32=0
	if dpkg -s wine32:i386 >/dev/null 2>&1; then
		WINE32=1
		return 0
	fi
	if [ "${SOCKSTATE_WINE32:-}" = no ]; then
		return 0
	fi
	say "trying wine32 (i386 multiarch) for the windows/386 tests"
	local had_i386=0
	dpkg --print-foreign-architectures | grep -qx i386 && had_i386=1
	local log
	log="$(mktemp)"
	if as_root dpkg --add-architecture i386 &&
		as_root apt-get -o DPkg::Lock::Timeout=300 update -q >"$log" 2>&1 &&
		apt_install wine32:i386 >>"$log" 2>&1; then
		WINE32=1
		say "wine32 installed: windows/386 tests will run"
	else
		say "wine32 could not be installed; windows/386 stays at build and vet. apt said:"
		grep -E '^(E|W):|Depends:' "$log" | head -n 8 | sed 's/^/    /'
		if [ "$had_i386" = 0 ]; then
			as_root dpkg --remove-architecture i386 || true
			as_root apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null 2>&1 || true
		fi
	fi
	rm -f "$log"
}

# build_dll CC SOURCE DEF OUT [LIBS...]: cross-compiles a DLL when OUT is
# missing or older than its sources.
build_dll() {
	local cc="$1" src="$2" def="$3" out="$4"
	shift 4
	if [ -f "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$def" ]; then
		return 0
	fi
	mkdir -p "$(dirname "$out")"
	"$cc" -O2 -shared -s -Wall -Werror -o "$out" "$src" "$def" "$@"
}

# with_lock FILE COMMAND...: runs COMMAND while holding an exclusive lock on
# FILE, waiting for it up to 10 minutes. The lock's descriptor is not passed
# on to COMMAND's children: a wineserver that inherited it would hold the
# lock for as long as it runs.
with_lock() {
	local file="$1"
	shift
	mkdir -p "$(dirname "$file")"
	(
		flock -w 600 9 || { echo "setup: waited 10 minutes for $file" >&2; exit 1; }
		"$@" 9>&-
	) 9>"$file"
}

default_prefix() {
	local hash
	hash="$(cat "$wine_dir/bcryptprimitives.c" "$wine_dir/bcryptprimitives.def" | sha256sum | cut -c1-12)"
	echo "${XDG_CACHE_HOME:-$HOME/.cache}/sockstate/wine-$hash"
}

# make_prefix: creates $WINEPREFIX if it is not there and installs the
# shims. Called under the prefix's lock.
make_prefix() {
	local system32="$WINEPREFIX/drive_c/windows/system32"
	if [ ! -d "$system32" ]; then
		say "creating the Wine prefix $WINEPREFIX"
		mkdir -p "$WINEPREFIX"
		wineboot --init </dev/null >/dev/null 2>&1
		# Report Windows 10 rather than Wine's default of Windows 7.
		wine reg add 'HKCU\Software\Wine' /v Version /t REG_SZ /d win10 /f </dev/null >/dev/null 2>&1
		# Let the server that wineboot started write the registry and
		# exit by itself (nobody else uses this new prefix yet).
		timeout 120 wineserver --wait </dev/null >/dev/null 2>&1 || true
	fi
	local shim="$WINEPREFIX/sockstate/bcryptprimitives-amd64.dll"
	build_dll x86_64-w64-mingw32-gcc "$wine_dir/bcryptprimitives.c" "$wine_dir/bcryptprimitives.def" "$shim" -ladvapi32
	cmp -s "$shim" "$system32/bcryptprimitives.dll" || cp "$shim" "$system32/bcryptprimitives.dll"
	if [ "$WINE32" = 1 ] && [ -d "$WINEPREFIX/drive_c/windows/syswow64" ]; then
		local shim32="$WINEPREFIX/sockstate/bcryptprimitives-386.dll"
		build_dll i686-w64-mingw32-gcc "$wine_dir/bcryptprimitives.c" "$wine_dir/bcryptprimitives.def" "$shim32" -ladvapi32 -Wl,--kill-at
		cmp -s "$shim32" "$WINEPREFIX/drive_c/windows/syswow64/bcryptprimitives.dll" ||
			cp "$shim32" "$WINEPREFIX/drive_c/windows/syswow64/bcryptprimitives.dll"
	fi
}

setup_prefix() {
	export WINEPREFIX="${SOCKSTATE_WINEPREFIX:-$(default_prefix)}"
	export WINEDEBUG="${WINEDEBUG:--all}"
	export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"
	with_lock "$WINEPREFIX.lock" make_prefix
}

# The wineserver and Wine's services (services.exe and friends) outlive this
# script. They are started here with their standard streams detached: a
# daemon that inherits a pipe holds it open, and whoever reads that pipe
# (CI, "| tee", go test) would wait for ever. "wineserver -p" exits at once
# when the prefix has a server already, which then stays as it is. The
# server's standard error goes to $WINEPREFIX.wineserver.log, a file: what
# it says if it aborts, which go_windows_amd64_exec then reports.
start_wineserver() {
	wineserver -p"${SOCKSTATE_WINESERVER_PERSIST:-600}" </dev/null >/dev/null 2>>"$WINEPREFIX.wineserver.log" || true
	wine cmd /c exit </dev/null >/dev/null 2>&1
}

with_lock "${XDG_CACHE_HOME:-$HOME/.cache}/sockstate/apt.lock" install_packages
# apt and dpkg changes of runs that start together go one at a time; the
# attempt runs in a subshell, so its result is read back from dpkg.
with_lock "${XDG_CACHE_HOME:-$HOME/.cache}/sockstate/apt.lock" try_wine32
WINE32=0
dpkg -s wine32:i386 >/dev/null 2>&1 && WINE32=1
setup_prefix
start_wineserver
export PATH="$wine_dir:$PATH"

#!/usr/bin/env bash
# Fuzz smoke run for CI: builds the fuzz targets (scan, validate, parts, escape, sarif_uri, warc) on
# the STABLE toolchain and runs each for a fixed time (default 30 s), one
# after the other.
#
#   exit 0   no crash and no broken invariant (or SKIPPED: see below)
#   exit 1   a target crashed, broke an invariant, hung or ran out of
#            memory; the input is in fuzz/artifacts/<target>/ and printed
#            in hex below, and the log says how to replay it
#
# It installs what it needs: g++ from Debian (libFuzzer is C++) if there is
# no C++ compiler, and cargo-fuzz from crates.io if `cargo fuzz` is
# missing. If that is impossible (offline, not root) it prints
# "fuzz smoke: SKIPPED: <why>" and exits 0 within seconds, so a machine
# without the tools does not fail CI; a build or run failure once the
# tools are there is a real failure.
#
# Usage: fuzz/smoke.sh [SECONDS_PER_TARGET]    (or FUZZ_SECONDS=N)
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
secs="${1:-${FUZZ_SECONDS:-30}}"
log="${TMPDIR:-/tmp}/urlsift-fuzz-smoke.$$"
mkdir -p "$log"

skip() {
  echo "fuzz smoke: SKIPPED: $*" >&2
  exit 0
}
fail() {
  echo "fuzz smoke: FAILED: $*" >&2
  exit 1
}

# Network use fails fast instead of retrying for minutes.
export CARGO_NET_RETRY=0 CARGO_HTTP_TIMEOUT=20 CARGO_TERM_COLOR=never

command -v cargo >/dev/null || skip "cargo not found"

if ! command -v c++ >/dev/null && ! command -v g++ >/dev/null && ! command -v clang++ >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "fuzz smoke: installing g++ from Debian" >&2
    { apt-get install -y -q g++ || { apt-get update -q && apt-get install -y -q g++; }; } \
      >"$log/apt.log" 2>&1 || skip "no C++ compiler and apt-get could not install g++ (see $log/apt.log)"
  else
    skip "no C++ compiler for libFuzzer (install g++)"
  fi
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke: installing cargo-fuzz from crates.io" >&2
  cargo install cargo-fuzz --locked --version '^0.13' >"$log/install.log" 2>&1 \
    || skip "could not install cargo-fuzz from crates.io (see $log/install.log)"
fi

# Dependencies first: failing to download them is "cannot install", not a bug.
cargo fetch >"$log/fetch.log" 2>&1 || skip "could not fetch the fuzz crate's dependencies (see $log/fetch.log)"

./seed.sh

# `-s none`: no sanitizer, hence no `-Z` flag and no nightly. The checking
# is Rust's own (bounds, overflow and debug assertions, which cargo fuzz
# turns on) plus the invariants inside the targets.
echo "fuzz smoke: building the targets" >&2
cargo fuzz build -s none >"$log/build.log" 2>&1 || {
  tail -n 40 "$log/build.log" >&2
  fail "the fuzz targets do not build"
}

status=0
for target in scan validate parts escape sarif_uri warc; do
  seeds="seeds/$target"
  case "$target" in
    scan) max_len=4096 ;;
    validate) max_len=512 ;;
    parts | warc) max_len=4096 seeds=seeds/scan ;;
    escape | sarif_uri) max_len=512 seeds=seeds/validate ;;
  esac
  mkdir -p "corpus/$target" "artifacts/$target"
  echo "fuzz smoke: $target for ${secs}s" >&2
  cargo fuzz run -s none "$target" "corpus/$target" "$seeds" -- \
    -max_total_time="$secs" -dict=dict/urls.dict -max_len="$max_len" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log/$target.log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log/$target.log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log/$target.log")
  if [ "$rc" -eq 0 ]; then
    echo "fuzz smoke: $target ok: ${execs:-?} executions, ${rate:-?}/s" >&2
  else
    status=1
    echo "fuzz smoke: $target FAILED (exit $rc); the end of its log:" >&2
    grep -v '^ *[0-9]*: \|^ *at ' "$log/$target.log" | tail -n 30 >&2
    for f in $(ls -t "artifacts/$target" 2>/dev/null | head -n 3); do
      echo "--- fuzz/artifacts/$target/$f (replay: cargo fuzz run -s none $target fuzz/artifacts/$target/$f):" >&2
      od -A d -c "artifacts/$target/$f" | head -n 40 >&2
    done
  fi
done
[ "$status" -eq 0 ] && echo "fuzz smoke: ok" >&2
exit "$status"

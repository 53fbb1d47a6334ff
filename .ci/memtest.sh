#!/usr/bin/env bash
# Memory test of the release binary (issue 20): peak resident memory must
# not grow with the size of an input. For each shape of .ci/memgen.py
# (URL-dense plain text, a mailbox of many small messages, one message with
# a big base64 part, one with a big quoted-printable part, one big plain
# message, a mailbox with one huge message among small ones) it writes
# inputs of 100 and 400 MB to a temporary directory and runs `urlsift
# extract` and `urlsift lint` on them with two threads under GNU time, as
# a file and, for three shapes (plain text, the mailbox with a huge
# message, the message with a base64 part), piped to standard input; then
# checks, for every shape:
#
#   peak(400 MB) < 1.5 x peak(100 MB) + 32 MB
#
# (the README's bound: threads x part size; one big message is read from
# its file, or from the spool of standard input, and its text parts
# decoded and scanned as streams, where it was held whole before),
#
# and that no run crashed (exit 0, or 1 for lint's findings). About
# 6 minutes on 2 cores, 2.5 GB of temporary disk (and as much again for
# the spool of a message on standard input).
#
# Usage: .ci/memtest.sh [URLSIFT_BINARY]   (default: builds release)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/time ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q time >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q time >/dev/null 2>&1; } || true
  fi
  [ -x /usr/bin/time ] || { echo "memtest: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
fi

bin="${1:-}"
if [ -z "$bin" ]; then
  cargo build --release --locked --quiet
  bin="${CARGO_TARGET_DIR:-target}/release/urlsift"
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/urlsift-memtest.XXXXXX")"
trap 'rm -rf "$work"' EXIT

failed=0
# Inputs of 400 MB, and a message piped to standard input is spooled to
# $TMPDIR as it is read: a full disk would fail runs for no fault of ours.
free_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((2 * 1024 * 1024)) ]; then
  echo "memtest: needs 2 GiB free in ${TMPDIR:-/tmp} (has ${free_kb:-0} KB)" >&2
  exit 1
fi
# peak KB of one run (of the file, or piped to standard input when $3 is
# "stdin"); fails the test on a crash or an error exit. It runs in a
# command substitution, a subshell, so it marks the failure in a file:
# `failed=1` there would be lost (it was: a full disk passed as ok).
peak() {
  local cmd=$1 file=$2 via=${3:-file} rc
  set +e
  if [ "$via" = stdin ]; then
    # Through cat, so that standard input is a pipe, not the file.
    cat "$file" | /usr/bin/time -o "$work/time" -f '%M' "$bin" "$cmd" -j2 - >/dev/null 2>"$work/err"
  else
    /usr/bin/time -o "$work/time" -f '%M' "$bin" "$cmd" -j2 "$file" >/dev/null 2>"$work/err"
  fi
  rc=$?
  set -e
  if [ "$rc" -gt 1 ] || { [ "$cmd" = extract ] && [ "$rc" -ne 0 ]; }; then
    echo "memtest: $cmd $file exited $rc: $(head -c 300 "$work/err")" >&2
    touch "$work/failed"
  fi
  tail -n 1 "$work/time"
}

printf '%-13s %-8s %12s %12s %8s\n' shape command "100 MB (KB)" "400 MB (KB)" ratio
# shape, and `stdin` for the runs piped to standard input
for spec in text text:stdin mbox base64 base64:stdin qp plain mboxbig mboxbig:stdin; do
  shape=${spec%%:*}
  via=file
  [ "$spec" = "$shape" ] || via=${spec#*:}
  for size in 100 400; do
    [ -e "$work/$shape-$size" ] || python3 .ci/memgen.py "$shape" "$size" "$work/$shape-$size"
  done
  for cmd in extract lint; do
    p100=$(peak "$cmd" "$work/$shape-100" "$via")
    p400=$(peak "$cmd" "$work/$shape-400" "$via")
    printf '%-13s %-8s %12s %12s %8s\n' "$spec" "$cmd" "$p100" "$p400" \
      "$(awk -v a="$p400" -v b="$p100" 'BEGIN { printf "%.2f", a / b }')"
    if [ "$p400" -ge $((p100 * 3 / 2 + 32 * 1024)) ]; then
      echo "memtest: $spec $cmd: peak grows with the input ($p100 KB at 100 MB, $p400 KB at 400 MB)" >&2
      failed=1
    fi
  done
  # The next spec of the same shape reads the same files.
  case " text base64 mboxbig " in
    *" $shape "*) [ "$via" = stdin ] && rm -f "$work/$shape-100" "$work/$shape-400" ;;
    *) rm -f "$work/$shape-100" "$work/$shape-400" ;;
  esac
done
if [ "$failed" -ne 0 ] || [ -e "$work/failed" ]; then
  echo "memtest: FAILED" >&2
  exit 1
fi
echo "memtest: ok"

#!/usr/bin/env bash
# Memory test of the release binary (issue 20): peak resident memory must
# not grow with the size of an input. For each shape of .ci/memgen.py
# (URL-dense plain text, a mailbox of many small messages, one message with
# a big base64 part, one with a big quoted-printable part, one big plain
# message) it writes inputs of 100 and 400 MB to a temporary directory and
# runs `urlsift extract` and `urlsift lint` on them with two threads under
# GNU time, then checks, for every shape:
#
#   peak(400 MB) < 1.5 x peak(100 MB) + 32 MB
#
# (the README's bound: threads x part size; one big message is read from
# its file and its text parts decoded and scanned as streams, where it was
# held whole before),
#
# and that no run crashed (exit 0, or 1 for lint's findings). About
# 3 minutes on 2 cores, 2.5 GB of temporary disk.
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
# peak KB of one run; fails the test on a crash
peak() {
  local cmd=$1 file=$2 rc
  set +e
  /usr/bin/time -o "$work/time" -f '%M' "$bin" "$cmd" -j2 "$file" >/dev/null 2>"$work/err"
  rc=$?
  set -e
  if [ "$rc" -gt 1 ] || { [ "$cmd" = extract ] && [ "$rc" -ne 0 ]; }; then
    echo "memtest: $cmd $file exited $rc: $(head -c 300 "$work/err")" >&2
    failed=1
  fi
  tail -n 1 "$work/time"
}

printf '%-7s %-8s %12s %12s %8s\n' shape command "100 MB (KB)" "400 MB (KB)" ratio
for shape in text mbox base64 qp plain; do
  for size in 100 400; do
    python3 .ci/memgen.py "$shape" "$size" "$work/$shape-$size"
  done
  for cmd in extract lint; do
    p100=$(peak "$cmd" "$work/$shape-100")
    p400=$(peak "$cmd" "$work/$shape-400")
    printf '%-7s %-8s %12s %12s %8s\n' "$shape" "$cmd" "$p100" "$p400" \
      "$(awk -v a="$p400" -v b="$p100" 'BEGIN { printf "%.2f", a / b }')"
    if [ "$p400" -ge $((p100 * 3 / 2 + 32 * 1024)) ]; then
      echo "memtest: $shape $cmd: peak grows with the input ($p100 KB at 100 MB, $p400 KB at 400 MB)" >&2
      failed=1
    fi
  done
  rm -f "$work/$shape-100" "$work/$shape-400"
done
if [ "$failed" -ne 0 ]; then
  echo "memtest: FAILED" >&2
  exit 1
fi
echo "memtest: ok"

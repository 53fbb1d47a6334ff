#!/usr/bin/env bash
# A compressed file read in process against the pipe people use today
# (issue 17): `urlsift extract -j1 F.gz` against `zcat F.gz | urlsift
# extract -j1 -`, against ripgrep's `-z` with the ten-scheme regex, and
# the plain file for scale, for gzip, and for bzip2, xz and zstd where
# their command-line tools are installed.
#
#   bash benches/compressed.sh [FILE]
#
# FILE defaults to ../shared/corpus concatenated (or the bundled corpus/
# repeated to about 100 MB). Reports hyperfine medians (RUNS runs,
# default 5) and MB/s of decompressed text.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
work=${WORK:-/tmp/urlsift-bench}
mkdir -p "$work"
command -v hyperfine >/dev/null || { echo "hyperfine is needed (Debian: hyperfine)" >&2; exit 1; }
cargo build --release --quiet
bin=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/urlsift

plain=${1:-}
if [ -z "$plain" ]; then
  plain=$work/compressed-input.txt
  if [ ! -s "$plain" ]; then
    if [ -d ../shared/corpus ]; then
      find ../shared/corpus -type f | sort | xargs cat >"$plain"
    else
      for _ in $(seq 400); do find corpus -type f | sort | xargs cat; done >"$plain"
    fi
  fi
fi
mb=$(( $(stat -c %s "$plain") / 1000000 ))
regex='(https?|ftp|gopher|news|nntp|telnet|wais|file|prospero|mailto):[^[:space:]<>"]+'
echo "input: $plain ($mb MB decompressed)"

run() { # NAME "COMMAND" (run by a shell)
  local name=$1
  hyperfine --style none --runs "$runs" --warmup 1 --export-json "$work/h.json" "$2 >/dev/null" >/dev/null
  python3 - "$name" "$mb" "$work/h.json" <<'PY'
import json, sys
name, mb, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
r = json.load(open(path))["results"][0]
print(f"| {name} | {r['median']:.3f} | {mb / r['median']:.0f} |")
PY
}

echo "| command | median s | MB/s |"
echo "|---|---:|---:|"
run "urlsift extract -j1 (plain)" "'$bin' extract -j1 --no-config '$plain'"
for fmt in gz:gzip bz2:bzip2 xz:xz zst:zstd; do
  ext=${fmt%%:*}; tool=${fmt##*:}
  command -v "$tool" >/dev/null || { echo "| $tool: not installed | | |"; continue; }
  f=$plain.$ext
  [ -s "$f" ] || "$tool" -c "$plain" >"$f"
  cat="$tool -dc"
  run "urlsift extract -j1 F.$ext" "'$bin' extract -j1 --no-config '$f'"
  run "$cat F.$ext \| urlsift extract -j1 -" "$cat '$f' | '$bin' extract -j1 --no-config -"
  if command -v rg >/dev/null; then
    run "rg -z -o (ten schemes) F.$ext" "rg -z -o -e '$regex' '$f'"
  fi
done

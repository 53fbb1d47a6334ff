#!/usr/bin/env bash
# How well a tree run uses a second thread: `urlsift lint` on a docs tree
# with -j1 and -j2, timed alternately (so that load from elsewhere hits
# both alike), median of RUNS runs each, and the ratio -j2 / -j1 (the
# issue's target is at most 0.6).
#
#   bash benches/threads.sh [TREE]   (default ../shared/corpus/docs, or corpus/)
#
# RUNS sets the number of timed runs per setting (default 15).
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:-}
if [ -z "$tree" ]; then
  if [ -d ../shared/corpus/docs ]; then tree=../shared/corpus/docs; else tree=corpus; fi
fi
runs=${RUNS:-15}
cargo build --release --quiet
bin=target/release/urlsift
# Warm the page cache and the binary.
for _ in 1 2 3; do "$bin" lint -j1 "$tree" >/dev/null 2>&1 || true; done
t1=() t2=()
now() { date +%s%N; }
for _ in $(seq "$runs"); do
  for j in 1 2; do
    s=$(now)
    "$bin" lint -j"$j" "$tree" >/dev/null 2>&1 || true
    e=$(now)
    if [ "$j" = 1 ]; then t1+=($(( (e - s) / 1000 ))); else t2+=($(( (e - s) / 1000 ))); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
m1=$(median "${t1[@]}")
m2=$(median "${t2[@]}")
echo "tree: $tree  runs: $runs  load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lint -j1 median: $(awk -v m="$m1" 'BEGIN {printf "%.1f", m / 1000}') ms"
echo "lint -j2 median: $(awk -v m="$m2" 'BEGIN {printf "%.1f", m / 1000}') ms"
echo "ratio -j2/-j1: $(awk -v a="$m1" -v b="$m2" 'BEGIN {printf "%.2f", b / a}')"

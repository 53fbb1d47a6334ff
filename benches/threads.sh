#!/usr/bin/env bash
# How well a tree run uses a second thread: `urlsift lint` on a docs tree
# with -j1 and -j2, timed by hyperfine (no shell in between), RUNS runs
# each, in ROUNDS rounds (so that load from elsewhere hits both settings
# alike); prints the medians of each round and the ratio -j2 / -j1 (the
# issue's target is at most 0.6).
#
#   bash benches/threads.sh [TREE]   (default ../shared/corpus/docs, or corpus/)
#
# RUNS (default 15) and ROUNDS (default 3) set the counts. Installs
# hyperfine from Debian if it is missing and this runs as root.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:-}
if [ -z "$tree" ]; then
  if [ -d ../shared/corpus/docs ]; then tree=../shared/corpus/docs; else tree=corpus; fi
fi
runs=${RUNS:-15}
rounds=${ROUNDS:-3}
if ! command -v hyperfine >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get install -y -q hyperfine >/dev/null 2>&1 || true
fi
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 1; }
cargo build --release --quiet
bin=target/release/urlsift
json=$(mktemp)
trap 'rm -f "$json"' EXIT
echo "tree: $tree  runs: $runs x $rounds  load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  # lint exits 1 when it finds something: -i accepts that.
  hyperfine -N -i -w 3 -r "$runs" --export-json "$json" \
    "$bin lint -j1 $tree" "$bin lint -j2 $tree" >/dev/null 2>&1
  python3 - "$json" "$r" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
m1, m2 = (r["median"] * 1000 for r in res)
print(f"round {sys.argv[2]}: lint -j1 median {m1:.1f} ms, -j2 median {m2:.1f} ms, ratio {m2 / m1:.2f}")
PY
done

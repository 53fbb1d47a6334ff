#!/usr/bin/env bash
# Online checks against lychee (issue 21): URLS links spread over HOSTS
# web servers on loopback addresses (127.0.0.1, 127.0.0.2, ...: lychee
# counts hosts by address), each answering after LATENCY ms
# (examples/linkfarm.rs), checked with no cache by urlsift (default
# politeness: 2 per server, 128 in all) and by lychee (installed from
# crates.io if absent): with its defaults (10 per host, 50 ms between a
# host's requests) and as polite as urlsift, alternated run by run; medians of
# wall time and checks per second. Only the loopback address is used.
#
#   bash benches/online.sh                 # 2000 URLs, 50 hosts, 20 ms
#   URLS=5000 HOSTS=100 RUNS=7 bash benches/online.sh
set -euo pipefail
cd "$(dirname "$0")/.."

URLS=${URLS:-2000}
HOSTS=${HOSTS:-50}
LATENCY=${LATENCY:-20}
RUNS=${RUNS:-5}
work=${TMPDIR:-/tmp}/urlsift-onlinebench
mkdir -p "$work"

cargo build --release --quiet --example linkfarm
cargo build --release --quiet
target_dir=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
urlsift=${URLSIFT:-$target_dir/release/urlsift}
if ! command -v lychee >/dev/null; then
  echo "online bench: installing lychee from crates.io (several minutes)" >&2
  cargo install --locked lychee >/dev/null
fi

# The farm runs until its standard input (this fifo) closes.
fifo="$work/farm.stdin"
rm -f "$fifo"
mkfifo "$fifo"
"$target_dir/release/examples/linkfarm" --hosts "$HOSTS" --urls "$URLS" \
  --latency-ms "$LATENCY" --out "$work/farm.md" --seconds 1800 <"$fifo" &
farm=$!
exec 9>"$fifo"
trap 'exec 9>&-; wait $farm 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$work/farm.md" ] && break; sleep 0.1; done
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY

now() { date +%s.%N; }
declare -A times
run() { # name command...
  local name=$1
  shift
  local t0 t1
  t0=$(now)
  "$@" >"$work/$name.out" 2>"$work/$name.err" || true
  t1=$(now)
  times[$name]+="$(echo "$t1 - $t0" | bc) "
}
for _ in $(seq "$RUNS"); do
  run urlsift "$urlsift" lint --no-config --online --no-cache --online-include 127 "$work/farm.md"
  run lychee lychee --no-progress "$work/farm.md"
  # lychee as polite as urlsift's defaults (2 at once per host, no pause
  # between a host's requests): the same work.
  run lychee-hc2 lychee --no-progress --host-concurrency 2 --host-request-interval 0ms "$work/farm.md"
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "$URLS URLs on $HOSTS loopback servers, ${LATENCY} ms each; medians of $RUNS runs, alternated"
for name in urlsift lychee lychee-hc2; do
  m=$(echo "${times[$name]}" | median)
  printf '%-10s %8.3f s  %8.0f checks/s\n' "$name" "$m" "$(echo "$URLS / $m" | bc -l)"
done
echo "findings: urlsift $(wc -l <"$work/urlsift.out") lines; lychee: $(tail -n 3 "$work/lychee.out" | tr '\n' ' ')"

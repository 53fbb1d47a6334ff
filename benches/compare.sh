#!/usr/bin/env bash
# urlsift against the tools people use today, in one table.
#
#   bash benches/compare.sh [SIZE]     (default SIZE=1000M for the generated corpus)
#
# Builds urlsift and the baseline counters in release mode, then times, on
#   1. a generated corpus (examples/gencorpus.rs, mixed mail/news/RFC/docs
#      text with planted URLs),
#   2. a generated link list (examples/genlinks.rs, 150 MB, 2.35 million
#      URLs; the count urlsift finds is checked),
#   3. ../shared/corpus concatenated into one file, when that exists,
#   4. the docs tree ../shared/corpus/docs as a tree (or corpus/ if absent),
# each of: cat, memchr's `:` count, ripgrep with a literal, ripgrep with
# a regex for the ten RFC 1738 schemes, linkify, URI::Find, lychee
# --dump --offline, and urlsift extract with 1 and 2 threads.
# Reports median seconds (hyperfine), MB/s, ratio to urlsift -j1, peak RSS
# (GNU time) and URLs found. Baselines that are not installed are skipped;
# it installs only from Debian's packages (hyperfine, ripgrep, time,
# liburi-find-perl) and builds only this crate. URIFIND=1 adds URI::Find
# (slow: a few MB/s); RUNS sets the number of timed runs (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1000M}
runs=${RUNS:-5}
work=${WORK:-/tmp/urlsift-bench}
mkdir -p "$work"

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q "$2" >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$2" >/dev/null 2>&1; } || true
  fi
  command -v "$1" >/dev/null 2>&1
}
need hyperfine hyperfine || { echo "hyperfine is needed" >&2; exit 1; }
need /usr/bin/time time || { echo "GNU time is needed" >&2; exit 1; }
need rg ripgrep || true
perl -MURI::Find -e1 2>/dev/null || need urifind liburi-find-perl || true

cargo build --release --quiet
cargo build --release --quiet --example gencorpus
cargo bench --bench baselines --no-run --quiet 2>/dev/null
baselines=$(ls -t target/release/deps/baselines-* | grep -v '\.d$' | head -n1)
urlsift=target/release/urlsift

# The regex a user would write for the ten RFC 1738 schemes.
rfc_re='(?:(?:https?|ftp|gopher|nntp|telnet|wais|file|prospero)://|mailto:|news:)[^\s<>"]+'

files=()
gen="$work/generated-$size.txt"
[ -f "$gen" ] || target/release/examples/gencorpus --seed 1 --size "$size" --style mixed --out "$gen" >/dev/null
files+=("$gen")
# Link-dense text (issue 15): a Markdown link list, read as plain text by
# every tool (as .md urlsift would read it as Markdown); every URL in it
# is valid, so urlsift must find exactly as many as were written.
cargo build --release --quiet --example genlinks
links="$work/links-150M.txt"
if [ ! -f "$links" ] || [ ! -f "$links.count" ]; then
  target/release/examples/genlinks --seed 1 --size 150M --out "$links" >"$links.count"
fi
found=$($urlsift extract -j1 --no-config "$links" | wc -l)
if [ "$found" != "$(cat "$links.count")" ]; then
  echo "link list: urlsift found $found URLs, genlinks wrote $(cat "$links.count")" >&2
  exit 1
fi
files+=("$links")
if [ -d ../shared/corpus ]; then
  real="$work/shared-corpus.txt"
  if [ ! -f "$real" ]; then
    { find ../shared/corpus/mail ../shared/corpus/news ../shared/corpus/docs ../shared/corpus/rfc -type f | sort | xargs cat; } >"$real"
  fi
  files+=("$real")
fi

# name@command (FILE is substituted)@how to count URLs
tools=(
  "cat@cat FILE@"
  "memchr ':' count@$baselines colons FILE@"
  "ripgrep literal 'http'@rg --no-config --count-matches -F http FILE@"
  "ripgrep 10-scheme regex@rg --no-config --count-matches -e '$rfc_re' FILE@count"
  "linkify@$baselines linkify FILE@count"
  "URI::Find@perl -MURI::Find -e 'my \$n=0; my \$f=URI::Find->new(sub{\$n++; \$_[1]}); while(<>){\$f->find(\\\$_)} print \"\$n\\n\"' FILE@count"
  "lychee --dump --offline@lychee --dump --offline FILE@lines"
  "urlsift extract -j1@$urlsift extract -j1 --no-config FILE@lines"
  "urlsift extract -j2@$urlsift extract -j2 --no-config FILE@lines"
  "urlsift lint -j1@$urlsift lint -j1 --no-config FILE@"
  "urlsift lint -j2@$urlsift lint -j2 --no-config FILE@"
)

available() {
  case "$1" in
    rg*) command -v rg >/dev/null ;;
    # URI::Find runs at a few MB/s: a minute per run on the real corpus,
    # so it is measured only when asked for (URIFIND=1).
    perl*) [ "${URIFIND:-0}" = 1 ] && perl -MURI::Find -e1 2>/dev/null ;;
    lychee*) command -v lychee >/dev/null ;;
    *) true ;;
  esac
}

table() { # target  (a file, or a directory for the tree case)
  local target=$1 bytes base=""
  if [ -d "$target" ]; then bytes=$(find "$target" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
  else bytes=$(stat -c %s "$target"); fi
  echo
  echo "### $(basename "$target"): $((bytes / 1000000)) MB"
  echo
  echo "| tool | median s | MB/s | vs urlsift -j1 | peak RSS MB | URLs |"
  echo "|---|---:|---:|---:|---:|---:|"
  local rows=()
  for t in "${tools[@]}"; do
    IFS='@' read -r name cmd counting <<<"$t"
    available "$cmd" || continue
    if [ -d "$target" ]; then
      # A tree: every tool gets the file list the way it can take it.
      case "$name" in
        cat) cmd="find FILE -type f -exec cat {} +" ;;
        "memchr ':' count") cmd="find FILE -type f -exec $baselines colons {} +" ;;
        linkify) cmd="find FILE -type f -exec $baselines linkify {} +" ;;
        URI::Find) continue ;;
      esac
    fi
    local c=${cmd//FILE/$target}
    hyperfine -N -i -w 1 -r "$runs" --export-json "$work/h.json" "$c" >/dev/null 2>&1 \
      || hyperfine -i -w 1 -r "$runs" --export-json "$work/h.json" "$c" >/dev/null 2>&1 || continue
    local med
    med=$(python3 -c "import json;print(json.load(open('$work/h.json'))['results'][0]['median'])")
    local rss
    /usr/bin/time -o "$work/rss.txt" -f '%M' bash -c "$c" >"$work/out.txt" 2>/dev/null || true
    rss=$(tail -n1 "$work/rss.txt")
    [[ "$rss" =~ ^[0-9]+$ ]] || rss=0
    local urls="-"
    case "$counting" in
      count) urls=$(awk -F: '{s+=$NF} END {print s}' "$work/out.txt") ;;
      lines) urls=$(wc -l <"$work/out.txt") ;;
    esac
    [ "$name" = "urlsift extract -j1" ] && base=$med
    rows+=("$name@$med@$rss@$urls")
  done
  for r in "${rows[@]}"; do
    IFS='@' read -r name med rss urls <<<"$r"
    python3 - "$name" "$med" "$rss" "$urls" "$bytes" "${base:-0}" <<'PY'
import sys
name, med, rss, urls, size, base = sys.argv[1:]
med, size, base = float(med), int(size), float(base)
ratio = f"{med / base:.2f}x" if base else "-"
print(f"| {name} | {med:.3f} | {size / 1e6 / med:,.0f} | {ratio} | {int(rss) / 1024:.0f} | {urls} |")
PY
  done
}

echo "## urlsift benchmarks, $(date -u +%Y-%m-%d), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo
echo "Medians of $runs runs (hyperfine, page cache warm). 'vs urlsift -j1' is time / urlsift's time: above 1 is slower than urlsift."
for f in "${files[@]}"; do table "$f"; done
if [ -d ../shared/corpus/docs ]; then table ../shared/corpus/docs; else table corpus; fi

#!/usr/bin/env bash
# A WET file (Common Crawl's text extracts: one `conversion` record per
# page) against the same text as one plain file (issue 17): what reading
# record by record costs. Makes both in WORK from ../shared/corpus (or the
# bundled corpus/ repeated), every file one record, cycled to about MB
# megabytes, and times `extract -j1` on each, plain, gzip'd per record
# (as Common Crawl ships them) and as one gzip stream.
#
#   bash benches/warc.sh [MB]
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-100}
runs=${RUNS:-5}
work=${WORK:-/tmp/urlsift-bench}
mkdir -p "$work"
command -v hyperfine >/dev/null || { echo "hyperfine is needed (Debian: hyperfine)" >&2; exit 1; }
cargo build --release --quiet
bin=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/urlsift
src=../shared/corpus
[ -d "$src" ] || src=corpus
python3 - "$src" "$mb" "$work" <<'PY'
import gzip, os, sys, uuid
src, mb, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs)
texts = [open(p, 'rb').read() for p in files]
plain, wet, wetgz = (open(os.path.join(work, n), 'wb') for n in ('warc-plain.txt', 'warc.wet', 'warc.wet.gz'))
size, i = 0, 0
while size < mb * 1_000_000:
    t = texts[i % len(texts)]
    i += 1
    # Records of a few kB, as WET pages are.
    for at in range(0, len(t), 8192):
        body = t[at:at + 8192]
        head = (f'WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: http://page{i}.example/{at}\r\n'
                f'WARC-Record-ID: <urn:uuid:{uuid.UUID(int=i * 100000 + at)}>\r\nContent-Type: text/plain\r\n'
                f'Content-Length: {len(body)}\r\n\r\n').encode()
        rec = head + body + b'\r\n\r\n'
        plain.write(body)
        wet.write(rec)
        wetgz.write(gzip.compress(rec, 1))
        size += len(body)
for f in (plain, wet, wetgz):
    f.close()
PY
echo "| input | urls | median s | MB/s of text |"
echo "|---|---:|---:|---:|"
text_mb=$(( $(stat -c %s "$work/warc-plain.txt") / 1000000 ))
for f in warc-plain.txt warc.wet warc.wet.gz; do
  urls=$("$bin" extract -j1 --no-config "$work/$f" | wc -l)
  hyperfine --style none --runs "$runs" --warmup 1 --export-json "$work/h.json" "'$bin' extract -j1 --no-config '$work/$f' >/dev/null" >/dev/null
  python3 - "$f" "$urls" "$text_mb" "$work/h.json" <<'PY'
import json, sys
f, urls, mb, path = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
r = json.load(open(path))["results"][0]
print(f"| {f} | {urls} | {r['median']:.3f} | {mb / r['median']:.0f} |")
PY
done

#!/usr/bin/env bash
# Document readers against plain text on the same bytes (issue 13's speed
# target: Markdown and HTML at no less than half the plain-text speed).
#
#   bash benches/docs.sh [MB]      (default 32: the size of each input)
#
# Builds urlsift in release mode, then makes two inputs from real docs on
# this machine, in a fixed order so every run reads the same bytes:
#   docs.md    README/CHANGELOG-style Markdown: /usr/share/doc/**/*.md and
#              the crates' *.md under ~/.cargo/registry/src, cycled to MB;
#   docs.html  Python's HTML docs (/usr/share/doc/python3*) and the Rust
#              toolchain's (book, reference, std), half and half.
# Each is kept under 64 MiB, the size past which a document is read as
# text anyway. Then two trees of the real files, as a docs tree is linted:
#   md-tree    every *.md above, copied with its path (a few hundred
#              files, from a few bytes to node's multi-MB changelogs);
#   html-tree  every *.html of Python's docs (/usr/share/doc/python3.11
#              or the first python3* with html/) and the Rust toolchain's
#              book and reference.
# Times `urlsift extract -j1` and `lint -j1` on each, read as its format
# and with `--format-of EXT=text`, and prints median seconds (hyperfine),
# MB/s and the ratio format/text. RUNS sets the number of timed runs
# (default 5); URLSIFT names another binary to time.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-32}
runs=${RUNS:-5}
work=${WORK:-/tmp/urlsift-docbench}
mkdir -p "$work"
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 1; }

if [ -z "${URLSIFT:-}" ]; then
  cargo build --release --quiet
  URLSIFT=${CARGO_TARGET_DIR:-target}/release/urlsift
fi
limit=$((mb * 1000 * 1000))

# Concatenates the files listed on standard input, in order and cycling,
# into $1 until it holds $limit bytes.
fill() {
  local out=$1 list
  list=$(mktemp)
  cat >"$list"
  [ -s "$list" ] || { echo "no input files for $out" >&2; exit 1; }
  : >"$out.tmp"
  while [ "$(stat -c %s "$out.tmp")" -lt "$limit" ]; do
    while read -r f; do
      cat "$f" >>"$out.tmp"
      printf '\n' >>"$out.tmp"
      [ "$(stat -c %s "$out.tmp")" -lt "$limit" ] || break
    done <"$list"
  done
  head -c "$limit" "$out.tmp" >"$out"
  rm -f "$out.tmp" "$list"
}

md="$work/docs-$mb.md"
html="$work/docs-$mb.html"
[ -f "$md" ] || {
  find /usr/share/doc ~/.cargo/registry/src -name '*.md' -type f 2>/dev/null | LC_ALL=C sort
} | fill "$md"
[ -f "$html" ] || {
  rust=$(ls -d ~/.rustup/toolchains/*/share/doc/rust/html 2>/dev/null | LC_ALL=C sort | head -n1)
  py=$(find /usr/share/doc/python3* -name '*.html' -type f 2>/dev/null | LC_ALL=C sort)
  rs=$(find "$rust"/book "$rust"/reference "$rust"/std -name '*.html' -type f 2>/dev/null | LC_ALL=C sort)
  # Alternate the two sources so a cut at $limit keeps both.
  paste -d '\n' <(printf '%s\n' "$py") <(printf '%s\n' "$rs") | grep -v '^$'
} | fill "$html"

# Copies the files listed on standard input under $1, keeping their
# paths (two crates' README.md must not collide) with no hidden
# directory in them (`.cargo` would be skipped by the walk).
tree() {
  local out=$1 to
  rm -rf "$out.tmp"
  mkdir -p "$out.tmp"
  while read -r f; do
    to="$out.tmp/$(printf '%s' "$f" | sed 's|/\.|/_|g')"
    mkdir -p "$(dirname "$to")"
    cp "$f" "$to"
  done
  mv "$out.tmp" "$out"
}
mdtree="$work/md-tree"
htmltree="$work/html-tree"
[ -d "$mdtree" ] || {
  find /usr/share/doc ~/.cargo/registry/src -name '*.md' -type f 2>/dev/null | LC_ALL=C sort
} | tree "$mdtree"
[ -d "$htmltree" ] || {
  rust=$(ls -d ~/.rustup/toolchains/*/share/doc/rust/html 2>/dev/null | LC_ALL=C sort | head -n1)
  pyhtml=/usr/share/doc/python3.11/html
  [ -d "$pyhtml" ] || pyhtml=$(ls -d /usr/share/doc/python3*/html 2>/dev/null | LC_ALL=C sort | head -n1)
  find ${pyhtml:+"$pyhtml"} ${rust:+"$rust/book" "$rust/reference"} -name '*.html' -type f 2>/dev/null \
    | LC_ALL=C sort
} | tree "$htmltree"

echo "| input | command | as format s | as text s | format MB/s | text MB/s | format/text |"
echo "|---|---|---:|---:|---:|---:|---:|"
median() {
  hyperfine -N -i -w 1 -r "$runs" --export-json "$work/h.json" "$1" >/dev/null 2>&1
  python3 -c "import json;print(json.load(open('$work/h.json'))['results'][0]['median'])"
}
for input in "$md" "$html" "$mdtree" "$htmltree"; do
  case $input in
    *md-tree) ext=md ;;
    *html-tree) ext=html ;;
    *) ext=${input##*.} ;;
  esac
  bytes=$(find "$input" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
  for cmd in extract lint; do
    as_doc=$(median "$URLSIFT $cmd -j1 --no-config $input")
    as_text=$(median "$URLSIFT $cmd -j1 --no-config --format-of $ext=text $input")
    python3 - "$input" "$cmd" "$as_doc" "$as_text" "$bytes" <<'EOF'
import os, sys
name, cmd, d, t, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
mb = n / 1e6
what = os.path.basename(name)
if os.path.isdir(name):
    what += f", {sum(len(f) for _, _, f in os.walk(name))} files"
print(f"| {what} ({mb:.0f} MB) | {cmd} -j1 | {d:.3f} | {t:.3f} | {mb/d:.0f} | {mb/t:.0f} | {t/d:.2f} |")
EOF
  done
done

#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the repository's own
# fixtures, into fuzz/seeds/<target>/ (git-ignored, rebuilt in a second):
#
#   scan      corpus/** split at line boundaries into chunks of at most
#             1500 bytes (libFuzzer sizes its inputs after the seeds, so
#             small seeds keep executions fast)
#   validate  every string literal holding a `:` in tests/*.rs and every
#             back-quoted URL in corpus/EXPECTED.md, one per file
#
# Usage: fuzz/seed.sh   (idempotent: wipes and rewrites fuzz/seeds/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
seeds="$here/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/scan" "$seeds/validate"

n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  split --line-bytes=1500 -d -a 4 "$f" "$seeds/scan/c$n-"
done < <(find "$root/corpus" -type f ! -name '*.md' -print0 | sort -z)

# One URL per file. A literal's escapes are kept as written; the fuzzer
# mutates from there.
{
  grep -ohE '"[^"\\]*:[^"\\]*"' "$root"/tests/*.rs | sed -e 's/^"//' -e 's/"$//'
  grep -ohE '`[a-zA-Z][a-zA-Z0-9+.-]*:[^`]+`' "$root/corpus/EXPECTED.md" | tr -d '`'
} | sort -u | while IFS= read -r url; do
  printf '%s' "$url" >"$seeds/validate/$(printf '%s' "$url" | sha1sum | cut -c1-16)"
done

cp "$seeds"/validate/* "$seeds/scan/"
echo "seeds: $(ls "$seeds/scan" | wc -l) for scan, $(ls "$seeds/validate" | wc -l) for validate"

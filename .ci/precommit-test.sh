#!/usr/bin/env bash
# Integration test: urlsift as a hook of the real pre-commit tool (from
# PyPI). A commit adding a broken URL must be refused with urlsift's
# message; the fixed commit must pass. Uses the committed HEAD of this
# repository, as a user's pre-commit would use a tag.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check pre-commit
rev=$(git -C "$repo" rev-parse HEAD)
export PRE_COMMIT_HOME="$work/cache"

mkdir "$work/project"
cd "$work/project"
git init --quiet
git config user.email ci@example.org
git config user.name "urlsift CI"
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $repo
    rev: $rev
    hooks:
      - id: urlsift
YAML
git add .pre-commit-config.yaml
git commit --quiet -m "pre-commit config"
"$work/venv/bin/pre-commit" install >/dev/null

printf 'Docs at <URL:http://www.example.com:99999/>.\n' > doc.txt
git add doc.txt
if git commit -m "broken URL" >"$work/out.txt" 2>&1; then
  echo "FAIL: the commit with a broken URL was accepted" >&2
  cat "$work/out.txt" >&2
  exit 1
fi
if ! grep -q 'doc.txt:1:37: error\[port-range\]' "$work/out.txt"; then
  echo "FAIL: urlsift's message is missing from the refusal" >&2
  cat "$work/out.txt" >&2
  exit 1
fi

printf 'Docs at <URL:http://www.example.com:8080/>.\n' > doc.txt
git add doc.txt
if ! git commit -m "fixed URL" >"$work/out.txt" 2>&1; then
  echo "FAIL: the fixed commit was refused" >&2
  cat "$work/out.txt" >&2
  exit 1
fi
echo "pre-commit: a broken URL was refused and the fix accepted"

#!/usr/bin/env bash
# Integration test: urlsift as a hook of the real pre-commit tool (from
# PyPI). A commit adding a broken URL must be refused with urlsift's
# message; the fixed commit must pass. Uses the committed HEAD of this
# repository, as a user's pre-commit would use a tag. Both hooks: `urlsift`
# (pre-commit builds it with cargo) and `urlsift-system` (the binary given
# as $1, a release binary, found on PATH; nothing is built).
#
#   bash .ci/precommit-test.sh path/to/urlsift
set -euo pipefail
binary=$(realpath "${1:?usage: precommit-test.sh path/to/urlsift}")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check pre-commit
rev=$(git -C "$repo" rev-parse HEAD)
export PRE_COMMIT_HOME="$work/cache"

scenario() {
  local hook=$1
  mkdir "$work/project-$hook"
  cd "$work/project-$hook"
  git init --quiet
  git config user.email ci@example.org
  git config user.name "urlsift CI"
  cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $repo
    rev: $rev
    hooks:
      - id: $hook
YAML
  git add .pre-commit-config.yaml
  git commit --quiet -m "pre-commit config"
  "$work/venv/bin/pre-commit" install >/dev/null

  printf 'Docs at <URL:http://www.example.com:99999/>.\n' > doc.txt
  git add doc.txt
  if git commit -m "broken URL" >"$work/out.txt" 2>&1; then
    echo "FAIL ($hook): the commit with a broken URL was accepted" >&2
    cat "$work/out.txt" >&2
    exit 1
  fi
  if ! grep -q 'doc.txt:1:37: error\[port-range\]' "$work/out.txt"; then
    echo "FAIL ($hook): urlsift's message is missing from the refusal" >&2
    cat "$work/out.txt" >&2
    exit 1
  fi

  printf 'Docs at <URL:http://www.example.com:8080/>.\n' > doc.txt
  git add doc.txt
  if ! git commit -m "fixed URL" >"$work/out.txt" 2>&1; then
    echo "FAIL ($hook): the fixed commit was refused" >&2
    cat "$work/out.txt" >&2
    exit 1
  fi
  echo "pre-commit ($hook): a broken URL was refused and the fix accepted"
}

scenario urlsift

# The fixing hook: the commit fails with the file fixed in place; added
# again, it passes.
mkdir "$work/project-fix"
cd "$work/project-fix"
git init --quiet
git config user.email ci@example.org
git config user.name "urlsift CI"
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $repo
    rev: $rev
    hooks:
      - id: urlsift-fix
YAML
git add .pre-commit-config.yaml
git commit --quiet -m "pre-commit config"
"$work/venv/bin/pre-commit" install >/dev/null
printf 'See http://h.example/50%%off and http://h.example/a%%20b.\r\n' > doc.txt
git add doc.txt
if git commit -m "fixable URL" >"$work/out.txt" 2>&1; then
  echo "FAIL (urlsift-fix): the commit with a fixable URL was accepted unfixed" >&2
  cat "$work/out.txt" >&2
  exit 1
fi
if [ "$(cat doc.txt)" != "$(printf 'See http://h.example/50%%25off and http://h.example/a%%20b.\r')" ]; then
  echo "FAIL (urlsift-fix): the file was not fixed as expected:" >&2
  od -c doc.txt >&2
  cat "$work/out.txt" >&2
  exit 1
fi
git add doc.txt
if ! git commit -m "fixed URL" >"$work/out.txt" 2>&1; then
  echo "FAIL (urlsift-fix): the fixed commit was refused" >&2
  cat "$work/out.txt" >&2
  exit 1
fi
echo "pre-commit (urlsift-fix): the URL was fixed in place and the fixed commit accepted"
# The binary hook finds urlsift on PATH, as a user's installed one.
mkdir "$work/bin"
cp "$binary" "$work/bin/urlsift"
PATH="$work/bin:$PATH" scenario urlsift-system

#!/usr/bin/env bash
# The Python package (python/): clippy on its crate, the abi3 wheel built
# with maturin, installed into a virtual environment kept between runs,
# and its pytest suite, Spark's local[2] tests included. Tools come from
# PyPI, pinned; Java from Debian if absent. Where PyPI cannot be reached
# it prints "python: SKIPPED: <why>" and exits 0; a build or test failure
# once the tools are there is a real failure. About 4 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo "python: SKIPPED: $*" >&2
  exit 0
}

cargo clippy -p urlsift-python --locked -- -D warnings

venv="${XDG_CACHE_HOME:-$HOME/.cache}/urlsift-ci/python-venv"
log="${TMPDIR:-/tmp}/urlsift-python-pip.log"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || skip "python3 -m venv failed"
# Fails fast offline instead of retrying for minutes.
"$venv/bin/pip" install --quiet --disable-pip-version-check --retries 1 --timeout 30 \
  'maturin==1.16.0' 'pyspark==4.3.0' 'pyarrow==26.0.1' 'pandas==2.3.3' 'pytest==9.2.0' \
  >"$log" 2>&1 || { cat "$log" >&2; skip "pip could not install the pinned tools from PyPI"; }

if ! command -v java >/dev/null; then
  echo "python: installing Java 17 from Debian for Spark" >&2
  { apt-get install -y -q openjdk-17-jre-headless ||
    { apt-get update -q && apt-get install -y -q openjdk-17-jre-headless; }; } >/dev/null
fi

# The wheel as users get it (not an editable install), into the venv.
rm -rf target/wheels
"$venv/bin/maturin" build --release --locked --manifest-path python/Cargo.toml --out target/wheels --quiet
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall target/wheels/urlsift-*.whl

# The tests compare with the CLI's release binary; Spark's must run.
cargo build --release --locked --quiet
export URLSIFT_REQUIRE_SPARK=1
# Run from the tests' folder so that `import urlsift` is the installed
# wheel, not python/urlsift without its native module.
cd python/tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider .

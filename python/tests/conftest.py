"""Shared fixtures: the repository, its corpus and the CLI binary the
package is compared with."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Spark starts its Python workers (and spark-submit its driver) with
# `python3` from PATH unless told otherwise: that interpreter need not be
# the one the package is installed in (a virtual environment, as in
# .ci/python.sh). The tests' own interpreter is.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
SHARED = Path(os.environ.get("URLSIFT_SHARED_CORPUS", ROOT.parent / "shared" / "corpus"))


def cli_path() -> str:
    """The urlsift binary: $URLSIFT_BIN, else the release build of this
    tree (.ci/run builds it before the Python tests)."""
    env = os.environ.get("URLSIFT_BIN")
    if env:
        return env
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    for profile in ("release", "debug"):
        p = Path(target) / profile / "urlsift"
        if p.exists():
            return str(p)
    found = shutil.which("urlsift")
    if found:
        return found
    pytest.fail("no urlsift binary: run `cargo build --release` or set URLSIFT_BIN")


@pytest.fixture(scope="session")
def cli():
    exe = cli_path()

    def run(*args, input=None):
        p = subprocess.run([exe, *args], input=input, capture_output=True, check=False)
        assert p.returncode in (0, 1), p.stderr.decode()
        return p.stdout

    return run


def corpus_files():
    """Every file of corpus/ that the CLI reads when walking it."""
    return sorted(
        p for p in CORPUS.rglob("*") if p.is_file() and p.name not in (".ignore", "README.md", "EXPECTED.md")
    )

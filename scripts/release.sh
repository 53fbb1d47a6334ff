#!/usr/bin/env bash
# Builds what a release ships, into dist/: a static Linux binary (musl)
# with its completions and manual pages, the crate as `cargo publish`
# would upload it, and SHA256SUMS over both. Tagging and uploading are
# left to the maintainer (README, "Releasing").
#
#   bash scripts/release.sh            # x86_64-unknown-linux-musl
#   TARGET=aarch64-unknown-linux-musl bash scripts/release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

target=${TARGET:-x86_64-unknown-linux-musl}
version=$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])')
name="urlsift-$version-$target"
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

# The changelog must have a section for the version being released.
if ! grep -q "^## $version\b" CHANGELOG.md; then
  echo "release: CHANGELOG.md has no section '## $version'" >&2
  exit 1
fi

rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target"
# zstd's C library is compiled for the target: a musl target needs a musl
# C compiler (Debian's musl-tools gives musl-gcc for the host's arch).
case "$target" in
  *-linux-musl)
    cc_var="CC_$(echo "$target" | tr - _)"
    if [ -z "${!cc_var:-}" ] && ! command -v "${target%%-unknown-*}-linux-musl-gcc" >/dev/null; then
      if ! command -v musl-gcc >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y -q musl-tools >/dev/null 2>&1 ||
          { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q musl-tools >/dev/null 2>&1; } || true
      fi
      command -v musl-gcc >/dev/null || { echo "release: no C compiler for $target (install musl-tools)" >&2; exit 1; }
      export "$cc_var=musl-gcc"
    fi
    ;;
esac
echo "release: building $name"
cargo build --release --locked --target "$target" --quiet
bin="$target_dir/$target/release/urlsift"

# Static: nothing for the loader to find on the user's machine.
if ldd "$bin" >/dev/null 2>&1 && ! ldd "$bin" 2>&1 | grep -q "statically linked"; then
  echo "release: $bin is dynamically linked:" >&2
  ldd "$bin" >&2
  exit 1
fi
"$bin" --version | grep -qx "urlsift $version" || {
  echo "release: $bin --version does not say $version" >&2
  exit 1
}
# The README's first command, with the binary that ships.
set +e
"$bin" lint corpus/ >/dev/null
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "release: lint corpus/ exited $rc, expected 1" >&2; exit 1; }

rm -rf dist && mkdir -p "dist/$name/complete" "dist/$name/doc"
cp "$bin" README.md LICENSE CHANGELOG.md "dist/$name/"
for shell in bash zsh fish elvish powershell; do
  "$bin" completions "$shell" >"dist/$name/complete/urlsift.$shell"
done
"$bin" man >"dist/$name/doc/urlsift.1"
for cmd in extract lint check explain; do
  "$bin" man "$cmd" >"dist/$name/doc/urlsift-$cmd.1"
done
tar -C dist -czf "dist/$name.tar.gz" --owner=0 --group=0 --sort=name "$name"
rm -rf "dist/$name"

# The crate as crates.io gets it, compiled from its own contents (no path
# outside it may be needed). `cargo check` of the unpacked crate rather
# than `cargo package`'s own verify build: a missing module, an
# `include_str!` of a file left out or a build script that fails all show
# in a check, and the verify build was a debug build of every
# dependency (over two minutes on 2 cores) that nothing else uses. The
# check shares this target directory, so the dependencies checked by
# clippy are reused.
echo "release: packaging the crate"
cargo package --locked --quiet --no-verify
crate="$target_dir/package/urlsift-$version.crate"
unpacked=$(mktemp -d)
tar -xzf "$crate" -C "$unpacked"
CARGO_TARGET_DIR="$target_dir" cargo check --locked --quiet --manifest-path "$unpacked/urlsift-$version/Cargo.toml" || {
  rm -rf "$unpacked"
  echo "release: the packaged crate does not compile from its own contents" >&2
  exit 1
}
rm -rf "$unpacked"
cp "$crate" dist/

(cd dist && sha256sum -- *.tar.gz *.crate >SHA256SUMS && sha256sum -c --quiet SHA256SUMS)
echo "release: dist/ holds"
ls -l dist
cat dist/SHA256SUMS

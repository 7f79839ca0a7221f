# Sourced by scripts/run and scripts/pgo/build before they build optimised binaries (from the
# repository's top folder).
# rustc before `release-rustc` of Cargo.toml (the one place naming it) miscompiles some safe code
# in optimised builds (rust-lang/rust#155241, docs/development.md#toolchain): with such a compiler
# the pass at fault (MIR GVN) is turned off, which makes the reproducer pass. The flag is
# unstable, hence RUSTC_BOOTSTRAP; it turns on no language feature. build.rs warns about the
# same versions.
release_rustc=$(sed -n 's/^release-rustc = "\(.*\)"$/\1/p' Cargo.toml)
[ -n "$release_rustc" ] || { echo "Cargo.toml names no release-rustc" >&2; exit 1; }
version=$(rustc --version | awk '{print $2}')
if [ "$(printf '%s\n' "$release_rustc" "$version" | sort -V | head -1)" != "$release_rustc" ]; then
  export RUSTC_BOOTSTRAP=1 RUSTFLAGS="${RUSTFLAGS:-} -Zmir-enable-passes=-GVN"
fi

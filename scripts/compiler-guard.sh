# Sourced by scripts/run and scripts/pgo/build before they build optimised binaries.
# rustc before 1.97.1 miscompiles some safe code in optimised builds (rust-lang/rust#155241,
# docs/development.md#toolchain): with such a compiler the pass at fault (MIR GVN) is turned
# off, which makes the reproducer pass. The flag is unstable, hence RUSTC_BOOTSTRAP; it turns on
# no language feature. build.rs warns about the same versions (its threshold is this one).
version=$(rustc --version | awk '{print $2}')
if [ "$(printf '%s\n' 1.97.1 "$version" | sort -V | head -1)" != 1.97.1 ]; then
  export RUSTC_BOOTSTRAP=1 RUSTFLAGS="${RUSTFLAGS:-} -Zmir-enable-passes=-GVN"
fi

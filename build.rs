//! Warns when an optimised build uses a compiler known to miscompile safe code.
//!
//! rustc before 1.97 can hand a by-value argument that the previous call already consumed to a
//! second call (MIR GVN, rust-lang/rust#155241): heap corruption in safe code at opt-level 2 and
//! up. It was seen here in the test harness (docs/development.md#toolchain); a release binary of
//! a privacy proxy must not be built with it. 1.97.0 has an LLVM miscompilation of its own
//! (rust-lang/rust#159035). The threshold is `release-rustc` of `Cargo.toml`'s
//! `[workspace.metadata.toolchain]`, the one place that names it. Debug builds (the test suite)
//! are not affected, nor builds with the pass turned off (`scripts/run` and `scripts/pgo/build`
//! do that on such a compiler, through `scripts/compiler-guard.sh`, which reads the same value).
//! A warning, not an error: the only toolchain on some build machines is older.

/// The flag that turns the miscompiling pass off.
const WITHOUT_GVN: &str = "-Zmir-enable-passes=-GVN";

/// The line of `Cargo.toml` that names the release compiler.
const RULE_KEY: &str = "release-rustc = ";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.toml");
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap_or_default();
    let Some(release_rustc) = manifest
        .lines()
        .find_map(|l| l.strip_prefix(RULE_KEY))
        .map(|v| v.trim().trim_matches('"').to_owned())
    else {
        println!("cargo:warning=Cargo.toml names no `{RULE_KEY}` (docs/development.md#toolchain)");
        return;
    };
    let optimised = std::env::var("OPT_LEVEL").is_ok_and(|level| level != "0");
    let without_gvn = std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .is_ok_and(|flags| flags.split('\x1f').any(|f| f == WITHOUT_GVN));
    if optimised && !without_gvn && version_check::is_min_version(&release_rustc) == Some(false) {
        println!(
            "cargo:warning=this rustc miscompiles some safe code in optimised builds \
             (rust-lang/rust#155241); build release binaries with Rust {release_rustc} or later \
             (the Dockerfile does) or as scripts/run does, see docs/development.md#toolchain"
        );
    }
}

//! Configuration files for `tarnkappe serve --config`: the embedded defaults with the edits a
//! test needs.

use std::path::{Path, PathBuf};

use tarnkappe::config::DEFAULT_TOML;

/// The embedded default configuration with `replacements` (exact `from` → `to` edits, each of
/// which must apply).
pub fn edited(replacements: &[(&str, &str)]) -> String {
    let mut toml = DEFAULT_TOML.to_owned();
    for (from, to) in replacements {
        assert!(
            toml.contains(from),
            "the default config has no line {from:?}"
        );
        toml = toml.replacen(from, to, 1);
    }
    toml
}

/// [`edited`] written to `dir/proxy.toml`, for `tarnkappe serve --config`.
pub fn config_file(dir: &Path, replacements: &[(&str, &str)]) -> PathBuf {
    let path = dir.join("proxy.toml");
    std::fs::write(&path, edited(replacements)).expect("write config");
    path
}

/// The defaults with `lines` added under `[web]`, written to `dir/proxy.toml`; returns the path
/// for `--config`.
pub fn config_with(dir: &Path, lines: &str) -> String {
    config_file(dir, &[("[web]\n", &format!("[web]\n{lines}\n"))])
        .display()
        .to_string()
}

/// The shipped configuration plus an `openai` route at `/karten/` to `upstream` whose policy
/// blocks credit cards (the block-mode tests of hostile input).
pub fn card_blocking_route(upstream: &str) -> String {
    format!(
        "{}\n[[route]]\nprefix = \"/karten/\"\nupstream = \"{upstream}\"\nformat = \"openai\"\npolicy = \"karten\"\n\n[policies.karten]\nactions = {{ CREDIT_CARD = \"block\" }}\n",
        tarnkappe::config::DEFAULT_TOML
    )
}

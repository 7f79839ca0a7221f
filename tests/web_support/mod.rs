//! Helpers of the web-page tests over HTTP (`tests/web_page.rs`, `tests/web_access.rs`): the
//! tenant cookie of a response, and configuration files with settings under `[web]`.

#![allow(dead_code)]

use reqwest::blocking::Response;
use reqwest::header::SET_COOKIE;

/// A valid `web.cookie_secret` (base64 of 41 bytes).
pub const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0NQ==";

/// The whole `Set-Cookie` value of the tenant cookie in `resp`, if one was set.
pub fn tenant_cookie(resp: &Response) -> Option<String> {
    resp.headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("tarnkappe_tenant="))
        .map(str::to_owned)
}

/// The `name=value` part of the tenant cookie in `resp` (what a browser sends back).
pub fn cookie_pair(resp: &Response) -> Option<String> {
    tenant_cookie(resp).and_then(|c| c.split(';').next().map(str::to_owned))
}

/// Writes the shipped defaults with `lines` added under `[web]` to `dir/proxy.toml`; returns the
/// path for `--config`.
pub fn config_with(dir: &std::path::Path, lines: &str) -> String {
    let text = tarnkappe::config::DEFAULT_TOML.replacen("[web]\n", &format!("[web]\n{lines}\n"), 1);
    assert_ne!(
        text,
        tarnkappe::config::DEFAULT_TOML,
        "the defaults have a [web] table"
    );
    let path = dir.join("proxy.toml");
    std::fs::write(&path, text).expect("write config");
    path.display().to_string()
}

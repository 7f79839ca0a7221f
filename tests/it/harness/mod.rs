//! The one test harness of the integration tests, a module of one job each:
//!
//! - `server`: the real binary on a loopback port (start, config, SIGTERM, refused starts);
//! - `upstream`: the fake LLM upstream (recording, random pieces, slow and fault modes) and its
//!   echoing handler; `stream` and `tokens`: SSE/NDJSON bodies and canonical tokens in them;
//! - `http` (client, raw HTTP/1.1), `api` (REST calls and the error shape), `metrics`, `web`
//!   (the tenant cookie), `browser` (Chromium over WebDriver);
//! - `config` (the defaults with edits), `fixtures` (values, keys, the prompt), `detect` (the
//!   shared detector), `redis` (shared and private servers), `python` (pip-installed tools),
//!   `image` (the Dockerfile built without a container engine), `tls` (a private CA and a
//!   server certificate).
//!
//! `browser`, `python`, `redis`, `tls` and `image` need tools from outside the Rust toolchain: they,
//! and the tests that use them, are the full tier (feature `full-tier`, docs/development.md).

pub mod api;
#[cfg(feature = "full-tier")]
pub mod browser;
pub mod config;
pub mod detect;
pub mod fixtures;
pub mod http;
#[cfg(feature = "full-tier")]
pub mod image;
pub mod metrics;
#[cfg(feature = "full-tier")]
pub mod python;
#[cfg(feature = "full-tier")]
pub mod redis;
pub mod server;
pub mod stream;
#[cfg(feature = "full-tier")]
pub mod tls;
pub mod tokens;
pub mod upstream;
pub mod web;

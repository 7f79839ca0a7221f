//! The one test harness of the integration tests, a module of one job each:
//!
//! - `server`: the real binary on a loopback port (start, config, SIGTERM, refused starts);
//! - `upstream`: the fake LLM upstream (recording, random pieces, slow and fault modes) and its
//!   echoing handler; `stream` and `tokens`: SSE/NDJSON bodies and canonical tokens in them;
//! - `http` (client, raw HTTP/1.1), `api` (REST calls and the error shape), `metrics`, `web`
//!   (the tenant cookie), `browser` (Chromium over WebDriver);
//! - `config` (the defaults with edits), `fixtures` (values, keys, the prompt), `detect` (the
//!   engine's findings), `redis` (shared and private servers), `python` (pip-installed tools),
//!   `image` (the Dockerfile built without a container engine).

pub mod api;
pub mod browser;
pub mod config;
pub mod detect;
pub mod fixtures;
pub mod http;
pub mod image;
pub mod metrics;
pub mod python;
pub mod redis;
pub mod server;
pub mod stream;
pub mod tokens;
pub mod upstream;
pub mod web;

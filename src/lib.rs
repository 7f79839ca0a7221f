//! Tarnkappe — a privacy proxy for LLM traffic.
//!
//! One process, two doors, one core. Dependencies point one way, down these layers, and
//! `tests/it/architecture.rs` checks it (the layer table there, and no import cycle between files):
//!
//! - entry points: [`server`] (the pingora server) and [`gateway`] (the one `ProxyHttp`, which
//!   hands each request to its door);
//! - the doors: [`proxy`] (LLM exchanges rewritten per wire format, `docs/proxy.md`) and [`api`]
//!   (the REST API `/api/v1`, `docs/api.md`, which also serves [`web`], the page at `/`);
//! - shared services: [`app`] (the state built once at start), [`access`] (keys, the web page's
//!   tenant cookie, client addresses, admission), [`slow_clients`], [`http`] (complete local
//!   responses), [`ratelimit`], [`telemetry`], [`vault`] (sealed sessions), [`tokens`]
//!   (reversible `[[PREFIX_n]]` replacement and restoring), [`policy`], [`redis_client`],
//!   [`endpoints`] (the table of local paths), [`detection_cache`] (findings of texts the proxy
//!   saw before: a conversation's history is detected once);
//! - plain data: [`config`] (`proxy.toml` plus environment) and [`json`] (the order-preserving
//!   JSON tree and the raw-byte checks every body passes);
//! - core: [`detect`], the detection engine — its own crate (`crates/detect`), a pure library
//!   with no I/O that the compiler keeps free of everything above.
//!
//! `docs/architecture.md` draws the same picture and follows one request through the files.

pub(crate) mod access;
pub(crate) mod api;
pub mod app;
pub mod config;
pub mod detection_cache;
pub(crate) mod endpoints;
pub(crate) mod gateway;
/// The detection engine, its own crate of the workspace (`crates/detect`), so that the compiler
/// keeps it free of the service: no I/O, no async, no import from here.
pub use tarnkappe_detect as detect;
pub(crate) mod http;
pub mod json;
pub mod policy;
pub mod proxy;
pub mod ratelimit;
pub mod redis_client;
pub mod server;
pub(crate) mod slow_clients;
pub mod telemetry;
pub mod tokens;
pub mod vault;
pub mod web;

//! Tarnkappe — a privacy proxy for LLM traffic.
//!
//! One process, two doors, one core. Dependencies point one way — entry points (`api`, `proxy`,
//! `web`, `server`) → shared services (`access`, `http`, `vault`, `ratelimit`, `telemetry`) →
//! core (`detect`, `policy`, `tokens`, `json`, `config`) — and `tests/it/architecture.rs` checks
//! that no import cycle runs between files.
//!
//! - [`detect`] — the detection engine, a pure library: 13 German-first entity types of the
//!   contract plus 5 added ones, one recognizer each, validators as pure functions, overlap
//!   resolution (`docs/entities.md`).
//! - [`policy`] — named policies (types, scores, allow and deny lists, custom recognizers,
//!   mask or block), compiled once and handed to the detector per request.
//! - [`tokens`] — reversible replacement: `[[PREFIX_n]]` tokens, the anonymize result with its
//!   stats, and the restorer.
//! - [`json`] — the order-preserving JSON tree that request and reply rewriting share.
//! - [`vault`] — sessions: AES-256-GCM sealing bound to session id and tenant, and the stores
//!   that keep only ciphertext; [`redis_client`] is the one Redis connection of the process,
//!   shared with [`ratelimit`].
//! - [`access`] — keys, the web cookie and the rate limit: who may call, and how often.
//! - [`http`] — the local endpoint table and complete local responses, shared by every door.
//! - [`api`] — the REST API `/api/v1` (`docs/api.md`), thin over `tokens` and `vault`.
//! - [`proxy`] — pingora's `ProxyHttp`: local routes go to `api`, everything else is an LLM
//!   exchange rewritten per wire format (`docs/proxy.md`).
//! - [`web`] — the page at `/` (embedded HTML, CSS and JavaScript), its signed tenant cookie
//!   and the same-origin check for cookie calls.
//! - [`config`] — `proxy.toml` plus environment → one validated [`config::Config`].
//! - [`app`] and [`server`] — the shared state and the pingora server around it;
//!   [`slow_clients`] bounds the time a client may take to send a request; [`telemetry`]
//!   names requests, logs them and counts them.
//!
//! The README's "Layout" section draws the same picture.

pub mod access;
pub mod api;
pub mod app;
pub mod config;
/// The detection engine, its own crate of the workspace (`crates/detect`), so that the compiler
/// keeps it free of the service: no I/O, no async, no import from here.
pub use tarnkappe_detect as detect;
pub mod http;
pub mod json;
pub mod policy;
pub mod proxy;
pub mod ratelimit;
pub mod redis_client;
pub mod server;
pub mod slow_clients;
pub mod telemetry;
pub mod tokens;
pub mod vault;
pub mod web;

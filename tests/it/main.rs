//! The integration tests, one binary: each module covers one area and talks to the real
//! `tarnkappe` binary (or the library's public API) through the shared [`harness`].
//!
//! One binary instead of one per file: the harness is compiled and linked once, and an item of
//! it counts as used when any test uses it, so the harness needs no `dead_code` allowance.
//! Run one area with `cargo test --test it <module>::`. A new area is a file here plus its
//! `mod` line below; what two areas need goes into the harness.

mod harness;

mod api_errors;
mod api_ratelimit;
#[cfg(feature = "full-tier")]
mod api_schemathesis;
mod api_service;
mod api_sessions;
mod architecture;
mod docs_links;
mod fuzz_regressions;
mod layout;
mod ops_clients;
#[cfg(feature = "full-tier")]
mod ops_deploy;
#[cfg(feature = "full-tier")]
mod ops_image;
mod ops_proxy;
#[cfg(feature = "full-tier")]
mod ops_redis;
#[cfg(feature = "full-tier")]
mod ops_replicas;
mod ops_shutdown;
mod ops_telemetry;
#[cfg(feature = "full-tier")]
mod pii_leak_benchmark;
mod policies;
#[cfg(feature = "full-tier")]
mod proxy_agents;
mod proxy_agents_codex;
mod proxy_behaviour;
mod proxy_code;
mod proxy_conversation;
mod proxy_formats;
mod proxy_hostile;
mod proxy_hostile_body;
mod proxy_hostile_edges;
mod proxy_hostile_links;
mod proxy_hostile_reply;
mod proxy_hostile_view;
mod proxy_matching_view;
mod proxy_request_holes;
#[cfg(feature = "full-tier")]
mod proxy_sdk;
mod proxy_thinking;
#[cfg(feature = "full-tier")]
mod proxy_tls;
mod proxy_websocket;
mod restore_rules;
mod smoke;
mod tokens_props;
mod web_access;
#[cfg(feature = "full-tier")]
mod web_e2e;
mod web_page;

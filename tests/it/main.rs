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
mod api_schemathesis;
mod api_service;
mod api_sessions;
mod architecture;
mod detect_names;
mod detect_probes;
mod detect_props;
mod detect_recognizers;
mod detect_records;
mod docs_links;
mod fuzz_regressions;
mod layout;
mod ops_clients;
mod ops_deploy;
mod ops_image;
mod ops_proxy;
mod ops_redis;
mod ops_replicas;
mod ops_shutdown;
mod ops_telemetry;
mod pii_leak_benchmark;
mod policies;
mod proxy_agents;
mod proxy_behaviour;
mod proxy_conversation;
mod proxy_formats;
mod proxy_hostile;
mod proxy_hostile_reply;
mod proxy_hostile_view;
mod proxy_matching_view;
mod proxy_request_holes;
mod proxy_sdk;
mod proxy_tls;
mod restore_rules;
mod smoke;
mod web_access;
mod web_e2e;
mod web_page;

//! The one test harness of the integration tests, a module of one job each.

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

//! The Prometheus endpoint from the test side: the text of `/metrics` and one series in it.

use crate::harness::http::client;
use crate::harness::server::TestServer;

/// The text of the server's `GET /metrics` (a new connection each time).
pub fn metrics(server: &TestServer) -> String {
    client()
        .get(server.url("/metrics"))
        .send()
        .expect("GET /metrics")
        .text()
        .expect("metrics text")
}

/// The value of one series (`name{labels}`, exactly as written) in metrics `text`, 0 when the
/// series is absent.
pub fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(series)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0.0)
}

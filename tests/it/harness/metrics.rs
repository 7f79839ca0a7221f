//! The Prometheus endpoint from the test side: the text of `/metrics` and one series in it.

use std::time::{Duration, Instant};

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

/// The metrics text once `cond` holds for it, or as it is after 10 s. The proxy counts an
/// exchange in its logging phase, after the client has the whole response, so a test that reads
/// the metrics right after a proxied call waits here.
pub fn metrics_when(server: &TestServer, cond: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m = metrics(server);
        if cond(&m) || Instant::now() > deadline {
            return m;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

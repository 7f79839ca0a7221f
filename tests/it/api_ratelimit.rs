//! The per-key rate limit: 120 requests per minute by default, `X-RateLimit-*` on every keyed
//! response, 429 with `Retry-After` beyond, counted per key.

use serde_json::json;

use crate::harness::api::{assert_error, delete, post, KEYS, KEY_A, KEY_B};
use crate::harness::http::client;
use crate::harness::server::TestServer;

#[test]
fn the_121st_request_in_a_minute_is_refused() {
    // Default limit (no TARNKAPPE_RATE_LIMIT): 120 per minute.
    let s = TestServer::start(&[("TARNKAPPE_API_KEYS", KEYS)]);
    let c = client();
    for i in 0..120u32 {
        // Mixed endpoints and outcomes all count: 200s, 400s and 404s alike.
        let resp = match i % 3 {
            0 => post(&s, "/api/v1/anonymize", Some(KEY_A), &json!({"text": "x"})),
            1 => post(
                &s,
                "/api/v1/deanonymize",
                Some(KEY_A),
                &json!({"text": "x"}),
            ),
            _ => delete(&s, "00000000-0000-4000-8000-000000000000", Some(KEY_A)),
        };
        assert_ne!(resp.status(), 429, "request {} was refused", i + 1);
        assert_eq!(resp.headers()["x-ratelimit-limit"], "120");
        assert_eq!(
            resp.headers()["x-ratelimit-remaining"],
            (119 - i).to_string().as_str()
        );
    }
    let resp = post(&s, "/api/v1/anonymize", Some(KEY_A), &json!({"text": "x"}));
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "Retry-After {retry}");
    assert_eq!(resp.headers()["x-ratelimit-limit"], "120");
    assert_eq!(resp.headers()["x-ratelimit-remaining"], "0");
    assert_error(resp, 429, "rate_limited");
    // Every keyed endpoint is limited; keyless ones are not.
    assert_error(delete(&s, "x", Some(KEY_A)), 429, "rate_limited");
    assert_eq!(c.get(s.url("/api/v1/health")).send().unwrap().status(), 200);
    // Another key has its own budget, and a wrong key still gets 401 first.
    let resp = post(&s, "/api/v1/anonymize", Some(KEY_B), &json!({"text": "x"}));
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-ratelimit-remaining"], "119");
    assert_error(
        post(&s, "/api/v1/anonymize", Some("nope"), &json!({"text": "x"})),
        401,
        "unauthorized",
    );
}

#[test]
fn the_limit_is_configurable() {
    let s = TestServer::start(&[("TARNKAPPE_API_KEYS", KEYS), ("TARNKAPPE_RATE_LIMIT", "2")]);
    for remaining in ["1", "0"] {
        let resp = post(&s, "/api/v1/anonymize", Some(KEY_A), &json!({"text": "x"}));
        assert_eq!(resp.headers()["x-ratelimit-remaining"], remaining);
    }
    assert_error(
        post(&s, "/api/v1/anonymize", Some(KEY_A), &json!({"text": "x"})),
        429,
        "rate_limited",
    );
}

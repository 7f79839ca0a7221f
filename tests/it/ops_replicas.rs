//! Two Tarnkappe processes on one Redis, as behind a load balancer: sessions and rate limits are
//! shared, tenants stay apart, Redis holds ciphertext only, and an outage of Redis answers 503
//! on session endpoints (not on the stateless ones) until Redis returns.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness;
use crate::harness::api::{self, status_value};
use crate::harness::fixtures::ENCRYPTION_KEY;
use crate::harness::fixtures::IBAN;
use crate::harness::http::client;
use crate::harness::redis::{
    delete_prefix, shared_redis, unique_prefix, PrivateRedis, SHARED_REDIS,
};
use crate::harness::server::TestServer;

const KX: &str = "kx-secret-key-of-tenant-x";
const KY: &str = "ky-secret-key-of-tenant-y";

const NAME: &str = "Max Mustermann";
const EMAIL: &str = "max.mustermann@example.org";

fn replica(redis_url: &str, prefix: &str) -> TestServer {
    let keys = format!("x:{KX},y:{KY}");
    TestServer::start(&[
        ("TARNKAPPE_REDIS_URL", redis_url),
        ("TARNKAPPE_REDIS_KEY_PREFIX", prefix),
        ("TARNKAPPE_ENCRYPTION_KEY", ENCRYPTION_KEY),
        ("TARNKAPPE_API_KEYS", &keys),
    ])
}

fn text() -> String {
    format!("Sehr geehrter Herr {NAME}, Ihre IBAN {IBAN} und Ihre E-Mail {EMAIL} liegen vor.")
}

fn post(server: &TestServer, path: &str, key: &str, body: &Value) -> (u16, Value) {
    status_value(api::post(server, path, Some(key), body))
}

fn delete(server: &TestServer, id: &str, key: &str) -> (u16, Value) {
    status_value(api::delete(server, id, Some(key)))
}

fn get_json(server: &TestServer, path: &str) -> (u16, Value) {
    status_value(client().get(server.url(path)).send().expect("request"))
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn anonymize_on_a_restore_and_delete_on_b_tenants_stay_apart() {
    let prefix = unique_prefix("replicas");
    let mut raw = shared_redis();
    let a = replica(SHARED_REDIS, &prefix);
    let b = replica(SHARED_REDIS, &prefix);

    for server in [&a, &b] {
        let (status, health) = get_json(server, "/api/v1/health");
        assert_eq!(status, 200);
        assert_eq!(health["store"], "redis");
        assert_eq!(health["store_ok"], true);
        assert_eq!(get_json(server, "/api/v1/health/ready").0, 200);
    }

    let original = text();
    let (status, anon) = post(&a, "/api/v1/anonymize", KX, &json!({ "text": original }));
    assert_eq!(status, 200, "{anon}");
    let id = anon["session_id"].as_str().expect("session id").to_owned();
    let anonymized = anon["anonymized_text"].as_str().expect("text").to_owned();
    // IBAN and e-mail are found by any build; names only once the name recognizer is in.
    for v in [IBAN, EMAIL] {
        assert!(!anonymized.contains(v), "{anonymized}");
    }
    let mapped: Vec<String> = anon["mapping"]
        .as_array()
        .expect("mapping")
        .iter()
        .filter_map(|m| m["value"].as_str().map(str::to_owned))
        .collect();
    assert!(mapped.len() >= 2, "{anon}");

    // What Redis holds: ciphertext under the documented key, none of the values.
    let key = format!("{prefix}session:{id}");
    let bytes: Vec<u8> = redis::cmd("GET")
        .arg(&key)
        .query(&mut raw)
        .expect("raw GET");
    assert!(!bytes.is_empty(), "the session is in Redis");
    let fixed = [
        NAME,
        IBAN,
        EMAIL,
        "Mustermann",
        "example.org",
        "[[IBAN_1]]",
        "IBAN",
    ];
    for v in mapped.iter().map(String::as_str).chain(fixed) {
        assert!(!contains(&bytes, v), "{v:?} is readable in Redis");
    }
    let pttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut raw).expect("PTTL");
    assert!(pttl > 0, "Redis expires the record by itself");

    // B restores A's session.
    let (status, restored) = post(
        &b,
        "/api/v1/deanonymize",
        KX,
        &json!({ "text": anonymized, "session_id": id }),
    );
    assert_eq!(status, 200, "{restored}");
    assert_eq!(restored["text"], original);

    // Tenant Y's key on B: the session of X does not exist for it.
    let (status, body) = post(
        &b,
        "/api/v1/deanonymize",
        KY,
        &json!({ "text": anonymized, "session_id": id }),
    );
    assert_eq!(status, 404);
    assert_eq!(body["error"], "session_not_found");
    let (status, body) = delete(&b, &id, KY);
    assert_eq!(status, 404);
    assert_eq!(body["error"], "session_not_found");

    // X deletes on B: gone from Redis at once, and for A too.
    let (status, body) = delete(&b, &id, KX);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["deleted"], true);
    let exists: i64 = redis::cmd("EXISTS")
        .arg(&key)
        .query(&mut raw)
        .expect("EXISTS");
    assert_eq!(exists, 0);
    let (status, body) = post(
        &a,
        "/api/v1/deanonymize",
        KX,
        &json!({ "text": anonymized, "session_id": id }),
    );
    assert_eq!(status, 404);
    assert_eq!(body["error"], "session_not_found");
    delete_prefix(&mut raw, &prefix);
}

#[test]
fn rate_limit_of_120_per_minute_is_shared_by_both_replicas() {
    let prefix = unique_prefix("shared-limit");
    let mut raw = shared_redis();
    let a = replica(SHARED_REDIS, &prefix);
    let b = replica(SHARED_REDIS, &prefix);
    let http = client();
    let stateless = json!({ "text": "hallo [[NAME_1]]", "mapping": [{"token": "[[NAME_1]]", "value": "Welt"}] });
    let restore = |server: &TestServer| {
        http.post(server.url("/api/v1/deanonymize"))
            .header("x-api-key", KX)
            .json(&stateless)
            .send()
            .expect("request")
    };
    let started = Instant::now();
    for i in 0..120 {
        let server = if i % 2 == 0 { &a } else { &b };
        let resp = restore(server);
        assert_eq!(resp.status(), 200, "request {i}");
        let remaining: u64 = header_number(&resp, "x-ratelimit-remaining");
        assert_eq!(remaining, 119 - i, "request {i}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(55),
        "the test must stay within one window"
    );
    for server in [&a, &b] {
        let resp = restore(server);
        assert_eq!(resp.status(), 429, "the 121st request within a minute");
        let retry = header_number(&resp, "retry-after");
        assert!((1..=60).contains(&retry));
        let body: Value = resp.json().expect("json");
        assert_eq!(body["error"], "rate_limited");
    }
    // Tenant Y has its own window.
    let (status, _) = post(&b, "/api/v1/deanonymize", KY, &stateless);
    assert_eq!(status, 200);
    delete_prefix(&mut raw, &prefix);
}

#[test]
fn redis_outage_answers_503_on_session_endpoints_then_recovers() {
    let mut redis = PrivateRedis::start();
    let prefix = unique_prefix("outage");
    let a = replica(&redis.url(), &prefix);
    let original = text();
    let (status, anon) = post(&a, "/api/v1/anonymize", KX, &json!({ "text": original }));
    assert_eq!(status, 200, "{anon}");
    let id = anon["session_id"].as_str().expect("id").to_owned();
    let anonymized = anon["anonymized_text"].as_str().expect("text").to_owned();

    redis.stop();
    let started = Instant::now();
    let (status, body) = post(&a, "/api/v1/anonymize", KX, &json!({ "text": original }));
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"], "store_unavailable");
    assert!(body["message"].is_string());
    let (status, body) = post(
        &a,
        "/api/v1/deanonymize",
        KX,
        &json!({ "text": anonymized, "session_id": id }),
    );
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"], "store_unavailable");
    let (status, body) = delete(&a, &id, KX);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"], "store_unavailable");
    for v in [NAME, IBAN, EMAIL] {
        assert!(!body.to_string().contains(v));
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "an unreachable Redis must answer within the timeouts"
    );

    // The process runs; it is not ready; stateless work goes on.
    let (status, health) = get_json(&a, "/api/v1/health");
    assert_eq!(status, 200);
    assert_eq!(health["store"], "redis");
    assert_eq!(health["store_ok"], false);
    assert_eq!(get_json(&a, "/api/v1/health/ready").0, 503);
    let (status, body) = post(
        &a,
        "/api/v1/deanonymize",
        KX,
        &json!({ "text": anonymized, "mapping": anon["mapping"] }),
    );
    assert_eq!(status, 200, "stateless mode needs no store: {body}");
    assert_eq!(body["text"], original);

    // Redis returns (empty: the private server keeps nothing): the process recovers by itself.
    redis.resume();
    let deadline = Instant::now() + Duration::from_secs(15);
    while get_json(&a, "/api/v1/health/ready").0 != 200 {
        assert!(
            Instant::now() < deadline,
            "no recovery after Redis returned"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, health) = get_json(&a, "/api/v1/health");
    assert_eq!((status, health["store_ok"].clone()), (200, json!(true)));
    let (status, anon) = post(&a, "/api/v1/anonymize", KX, &json!({ "text": original }));
    assert_eq!(status, 200, "{anon}");
    let (status, body) = post(
        &a,
        "/api/v1/deanonymize",
        KX,
        &json!({ "text": anon["anonymized_text"], "session_id": anon["session_id"] }),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["text"], original);

    let log = a.log();
    for v in [NAME, IBAN, EMAIL, KX] {
        assert!(!log.contains(v), "{v:?} in the log");
    }
}

#[test]
fn redis_without_an_encryption_key_refuses_to_start() {
    let (status, stderr) =
        harness::server::refused_start(&[("TARNKAPPE_REDIS_URL", SHARED_REDIS)], &[]);
    assert!(!status.success());
    assert!(stderr.contains("encryption"), "{stderr}");
}

#[test]
fn the_redis_password_never_reaches_logs_or_answers() {
    let dead = harness::server::free_port();
    let url = format!("redis://:s3cret-redis-pass@127.0.0.1:{dead}/0");
    let server = replica(&url, &unique_prefix("password"));
    let (status, body) = post(&server, "/api/v1/anonymize", KX, &json!({ "text": text() }));
    assert_eq!(status, 503);
    assert!(!body.to_string().contains("s3cret"));
    let (_, health) = get_json(&server, "/api/v1/health");
    assert_eq!(health["store_ok"], false);
    let log = server.log();
    assert!(log.contains("redis"), "the outage is logged: {log}");
    assert!(!log.contains("s3cret-redis-pass"), "{log}");
}

/// Header `name` of `resp` as a number; panics when it is missing or not one.
fn header_number(resp: &reqwest::blocking::Response, name: &str) -> u64 {
    resp.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("header {name}"))
}

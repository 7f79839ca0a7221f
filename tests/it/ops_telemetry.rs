//! Metrics after known traffic, request ids on every response, and logs that never carry the
//! submitted values or keys (text and JSON format).

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::api;
use crate::harness::config::edited;
use crate::harness::fixtures::IBAN;
use crate::harness::http::client;
use crate::harness::metrics::sample;
use crate::harness::server::TestServer;

const KEY: &str = "metrics-test-key-5f2a";
const EMAIL: &str = "erika.musterfrau@example.org";
const NAME: &str = "Erika Musterfrau";

fn anonymize(server: &TestServer, text: &str) -> Value {
    api::anonymize(server, KEY, text)
}

#[test]
fn metrics_show_known_traffic() {
    let server = TestServer::start(&[
        ("TARNKAPPE_API_KEYS", &format!("m:{KEY}")),
        ("TARNKAPPE_RATE_LIMIT", "8"),
    ]);
    let http = client();
    let text = format!("Frau {NAME}, IBAN {IBAN}, Mail {EMAIL}.");
    let first = anonymize(&server, &text);
    let second = anonymize(&server, &format!("Nochmal: {EMAIL}"));
    let mut expected_entities: HashMap<String, f64> = HashMap::new();
    for result in [&first, &second] {
        for e in result["entities"].as_array().expect("entities") {
            *expected_entities
                .entry(e["entity_type"].as_str().expect("type").to_owned())
                .or_default() += 1.0;
        }
    }
    assert!(expected_entities.get("IBAN").is_some_and(|&n| n >= 1.0));

    let restored = http
        .post(server.url("/api/v1/deanonymize"))
        .header("x-api-key", KEY)
        .json(&json!({ "text": first["anonymized_text"], "session_id": first["session_id"] }))
        .send()
        .expect("request");
    assert_eq!(restored.status(), 200);
    let stateless = http
        .post(server.url("/api/v1/deanonymize"))
        .header("x-api-key", KEY)
        .json(&json!({ "text": "x", "mapping": [] }))
        .send()
        .expect("request");
    assert_eq!(stateless.status(), 200);
    let deleted = http
        .delete(server.url(&format!(
            "/api/v1/session/{}",
            second["session_id"].as_str().expect("id")
        )))
        .header("x-api-key", KEY)
        .send()
        .expect("request");
    assert_eq!(deleted.status(), 200);
    let unauthorized = http
        .post(server.url("/api/v1/anonymize"))
        .header("x-api-key", "wrong-key")
        .json(&json!({ "text": "x" }))
        .send()
        .expect("request");
    assert_eq!(unauthorized.status(), 401);
    let unknown = http
        .get(server.url(&format!("/api/v1/{EMAIL}")))
        .send()
        .expect("request");
    assert_eq!(unknown.status(), 404);
    // 5 keyed requests so far; the limit is 8: three more pass, the next two are refused.
    for expected in [200, 200, 200, 429, 429] {
        let resp = http
            .post(server.url("/api/v1/deanonymize"))
            .header("x-api-key", KEY)
            .json(&json!({ "text": "x", "mapping": [] }))
            .send()
            .expect("request");
        assert_eq!(resp.status(), expected);
    }

    let resp = http.get(server.url("/metrics")).send().expect("metrics");
    assert_eq!(resp.status(), 200, "no key needed");
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    let text = resp.text().expect("body");

    let req = |route: &str, method: &str, status: u16| {
        sample(
            &text,
            &format!(
                r#"tarnkappe_http_requests_total{{route="{route}",method="{method}",status="{status}"}}"#
            ),
        )
    };
    assert_eq!(req("/api/v1/anonymize", "POST", 200), 2.0, "{text}");
    assert_eq!(req("/api/v1/anonymize", "POST", 401), 1.0);
    assert_eq!(req("/api/v1/deanonymize", "POST", 200), 5.0);
    assert_eq!(req("/api/v1/deanonymize", "POST", 429), 2.0);
    assert_eq!(req("/api/v1/session/{id}", "DELETE", 200), 1.0);
    assert_eq!(req("/api/v1/{unknown}", "GET", 404), 1.0);
    assert_eq!(
        sample(
            &text,
            r#"tarnkappe_http_request_duration_seconds_count{route="/api/v1/anonymize",method="POST"}"#
        ),
        3.0
    );
    assert_eq!(
        sample(&text, r#"tarnkappe_sessions_total{event="created"}"#),
        2.0
    );
    assert_eq!(
        sample(&text, r#"tarnkappe_sessions_total{event="restored"}"#),
        1.0
    );
    assert_eq!(
        sample(&text, r#"tarnkappe_sessions_total{event="deleted"}"#),
        1.0
    );
    assert_eq!(sample(&text, "tarnkappe_rate_limited_requests_total"), 2.0);
    for (entity_type, n) in &expected_entities {
        assert_eq!(
            sample(
                &text,
                &format!(r#"tarnkappe_entities_detected_total{{entity_type="{entity_type}"}}"#)
            ),
            *n,
            "{entity_type}"
        );
    }
    assert!(text.contains("# TYPE tarnkappe_upstream_errors counter"));
    assert!(text.contains("# TYPE tarnkappe_store_errors counter"));

    // No label carries a value or a key.
    for secret in [
        IBAN,
        EMAIL,
        NAME,
        "Musterfrau",
        "example.org",
        KEY,
        "wrong-key",
    ] {
        assert!(!text.contains(secret), "{secret:?} in /metrics");
    }
}

fn request_id(resp: &reqwest::blocking::Response) -> String {
    resp.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .expect("X-Request-Id")
        .to_owned()
}

#[test]
fn every_response_carries_a_fresh_request_id() {
    let server = TestServer::start(&[("TARNKAPPE_API_KEYS", &format!("m:{KEY}"))]);
    let http = client();
    let mut seen = std::collections::HashSet::new();
    let requests = [
        http.get(server.url("/api/v1/health")),
        http.get(server.url("/api/v1/health/ready")),
        http.get(server.url("/api/v1/entities")),
        http.get(server.url("/openapi.json")),
        http.get(server.url("/metrics")),
        http.head(server.url("/api/v1/health")),
        http.get(server.url("/api/v1/nope")),
        http.put(server.url("/api/v1/anonymize")),
        http.post(server.url("/api/v1/anonymize"))
            .json(&json!({"text": "x"})),
        http.post(server.url("/api/v1/anonymize"))
            .header("x-api-key", KEY)
            .header("x-request-id", "client-chosen")
            .json(&json!({"text": "x"})),
        http.get(server.url("/no/such/route")),
    ];
    for request in requests {
        let resp = request.send().expect("request");
        let id = request_id(&resp);
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        assert!(seen.insert(id), "request ids repeat");
    }
}

const LOG_VALUES: [&str; 6] = [
    IBAN,
    EMAIL,
    NAME,
    "Musterfrau",
    "Steinweg 7",
    "+49 170 1234567",
];

/// Drives requests that carry personal data everywhere a client can put it.
fn traffic_with_personal_data(server: &TestServer) -> Vec<String> {
    let http = client();
    let text = format!("Frau {NAME}, Steinweg 7, Tel. +49 170 1234567, IBAN {IBAN}, Mail {EMAIL}.");
    let mut ids = Vec::new();
    let mut send = |req: reqwest::blocking::RequestBuilder| {
        let resp = req.send().expect("request");
        ids.push(request_id(&resp));
        resp.bytes().expect("body");
    };
    send(
        http.post(server.url("/api/v1/anonymize"))
            .header("x-api-key", KEY)
            .header("x-note", NAME)
            .json(&json!({ "text": text })),
    );
    send(
        http.post(server.url("/api/v1/anonymize"))
            .header("x-api-key", KEY)
            .json(&json!({ "text": format!("{text} [[NAME_1]]") })),
    );
    send(
        http.post(server.url("/api/v1/anonymize"))
            .header("x-api-key", KEY)
            .header("content-type", "application/json")
            .body(format!("{{\"text\": \"{NAME} {IBAN}")),
    );
    send(
        http.post(server.url("/api/v1/deanonymize"))
            .header("x-api-key", KEY)
            .json(&json!({ "text": "[[X_1]]", "mapping": [{"token": "[[X_1]]", "value": EMAIL}] })),
    );
    send(
        http.post(server.url("/api/v1/deanonymize"))
            .header("x-api-key", KEY)
            .json(&json!({ "text": text, "session_id": EMAIL })),
    );
    send(
        http.delete(server.url(&format!("/api/v1/session/{EMAIL}")))
            .header("x-api-key", KEY),
    );
    send(
        http.post(server.url("/api/v1/anonymize"))
            .header("x-api-key", NAME)
            .json(&json!({ "text": text })),
    );
    send(http.get(server.url(&format!("/api/v1/{EMAIL}?iban={IBAN}"))));
    send(
        http.post(server.url(&format!("/{EMAIL}?name={NAME}")))
            .json(&json!({ "text": text })),
    );
    ids
}

fn assert_clean(log: &str) {
    for secret in LOG_VALUES.iter().chain([&KEY]) {
        assert!(!log.contains(secret), "{secret:?} in the log:\n{log}");
    }
    // URL-encoded forms as well.
    for secret in ["Erika%20Musterfrau", "erika.musterfrau%40example.org"] {
        assert!(!log.contains(secret), "{secret:?} in the log");
    }
}

#[test]
fn logs_carry_no_personal_data_text_format() {
    let toml = edited(&[("level = \"info\"", "level = \"debug\"")]);
    let mut server =
        TestServer::start_with_config(&[("TARNKAPPE_API_KEYS", &format!("m:{KEY}"))], &toml);
    let ids = traffic_with_personal_data(&server);
    let log = server.log();
    assert!(server.terminate(Duration::from_secs(20)));
    let log = format!("{log}{}", server.log());
    // The requests were logged (by id, route template and status) ...
    for id in &ids {
        assert!(log.contains(id.as_str()), "request {id} not logged:\n{log}");
    }
    assert!(log.contains("route=\"/api/v1/session/{id}\""));
    // ... without any of the values.
    assert_clean(&log);
}

#[test]
fn logs_carry_no_personal_data_json_format() {
    let toml = edited(&[
        ("format = \"text\"", "format = \"json\""),
        ("level = \"info\"", "level = \"debug\""),
    ]);
    let mut server =
        TestServer::start_with_config(&[("TARNKAPPE_API_KEYS", &format!("m:{KEY}"))], &toml);
    let ids = traffic_with_personal_data(&server);
    assert!(server.terminate(Duration::from_secs(20)));
    let log = server.log();
    let mut logged_ids = Vec::new();
    for line in log.lines().filter(|l| !l.trim().is_empty()) {
        let entry: Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not a JSON log line: {line}"));
        assert!(entry["level"].is_string(), "{line}");
        if entry["message"] == "request" {
            logged_ids.push(entry["request_id"].as_str().expect("id").to_owned());
            assert!(entry["route"].is_string());
            assert!(entry["status"].is_number());
        }
    }
    for id in &ids {
        assert!(logged_ids.contains(id), "request {id} not logged");
    }
    assert_clean(&log);
}

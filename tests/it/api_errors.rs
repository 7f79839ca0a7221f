//! Every row of the error table of api.md over real HTTP, and the order of the checks
//! (401 → 429 → 413 → 400 → the rest).

use std::io::{Read, Write};

use serde_json::json;

use crate::harness::api::{
    anonymize, assert_error, delete, post, post_raw, server, session_of, status_json, KEYS, KEY_A,
};
use crate::harness::config::edited;
use crate::harness::http::{client, connect, read_response, send_head};
use crate::harness::server::TestServer;

const ANON: &str = "/api/v1/anonymize";
const DEANON: &str = "/api/v1/deanonymize";

#[test]
fn bad_request_for_every_malformed_body() {
    let s = server();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("not json", b"text=hallo".to_vec()),
        ("truncated json", br#"{"text":"x""#.to_vec()),
        ("empty body", Vec::new()),
        ("array", br#"["text"]"#.to_vec()),
        ("string", br#""text""#.to_vec()),
        ("number", b"42".to_vec()),
        ("null", b"null".to_vec()),
        ("not utf-8", b"{\"text\":\"gr\xfc\xdfe\"}".to_vec()),
        ("missing text", br#"{"txt":"x"}"#.to_vec()),
        ("text is a number", br#"{"text":5}"#.to_vec()),
        ("text is null", br#"{"text":null}"#.to_vec()),
        ("text is an array", br#"{"text":["a"]}"#.to_vec()),
    ];
    for (what, body) in cases {
        let resp = post_raw(&s, ANON, Some(KEY_A), body.clone());
        let err = assert_error(resp, 400, "bad_request");
        // The message never echoes the submitted text.
        assert!(
            !err["message"].as_str().unwrap().contains("hallo"),
            "{what}"
        );
        assert_error(post_raw(&s, DEANON, Some(KEY_A), body), 400, "bad_request");
    }
}

#[test]
fn nesting_deeper_than_64_levels_is_refused() {
    let s = server();
    // The top-level object is level 1; 63 more arrays make 64 levels, which is fine.
    let ok = format!(
        r#"{{"text":"x","extra":{}1{}}}"#,
        "[".repeat(63),
        "]".repeat(63)
    );
    let (status, _) = status_json(post_raw(&s, ANON, Some(KEY_A), ok.into_bytes()));
    assert_eq!(status, 200);
    let deep = format!(
        r#"{{"text":"x","extra":{}1{}}}"#,
        "[".repeat(64),
        "]".repeat(64)
    );
    assert_error(
        post_raw(&s, ANON, Some(KEY_A), deep.into_bytes()),
        400,
        "bad_request",
    );
    // Brackets inside strings are text, not nesting.
    let text = format!(r#"{{"text":"{}"}}"#, "[{".repeat(200));
    let (status, _) = status_json(post_raw(&s, ANON, Some(KEY_A), text.into_bytes()));
    assert_eq!(status, 200);
}

#[test]
fn content_type_must_be_json() {
    let s = server();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut req = client()
            .post(s.url(ANON))
            .header("x-api-key", KEY_A)
            .body(r#"{"text":"x"}"#);
        if let Some(ct) = ct {
            req = req.header("content-type", ct);
        }
        assert_error(req.send().unwrap(), 400, "bad_request");
    }
    let resp = client()
        .post(s.url(ANON))
        .header("x-api-key", KEY_A)
        .header("content-type", "Application/JSON; charset=utf-8")
        .body(r#"{"text":"x"}"#)
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[test]
fn deanonymize_needs_exactly_one_mode_and_a_wellformed_mapping() {
    let s = server();
    let sid = session_of(&s, KEY_A, "a@b.de");
    let bad = [
        json!({"text": "x"}),
        json!({"text": "x", "session_id": sid, "mapping": []}),
        json!({"text": "x", "session_id": null}),
        json!({"text": "x", "session_id": 7}),
        json!({"text": "x", "mapping": {}}),
        json!({"text": "x", "mapping": "[[NAME_1]]"}),
        json!({"text": "x", "mapping": null}),
        json!({"text": "x", "mapping": [["[[NAME_1]]", "Anna"]]}),
        json!({"text": "x", "mapping": [{"token": "[[NAME_1]]"}]}),
        json!({"text": "x", "mapping": [{"value": "Anna"}]}),
        json!({"text": "x", "mapping": [{"token": 1, "value": "Anna"}]}),
        json!({"text": "x", "mapping": [{"token": "[[NAME_1]]", "value": null}]}),
        json!({"text": "x", "mapping": [{"token": "", "value": "Anna"}]}),
        json!({"session_id": sid}),
        json!({"text": 1, "session_id": sid}),
    ];
    for body in bad {
        assert_error(post(&s, DEANON, Some(KEY_A), &body), 400, "bad_request");
    }
}

#[test]
fn mapping_with_more_than_100000_entries_is_refused() {
    // 100001 minimal entries do not fit the default 2 MiB body cap, so raise it for this test.
    let toml = edited(&[("max_body_bytes = 2097152", "max_body_bytes = 8388608")]);
    let s = TestServer::start_with_config(&[("TARNKAPPE_API_KEYS", KEYS)], &toml);
    let entries = |n: usize| -> Vec<serde_json::Value> {
        (0..n).map(|_| json!({"token": "t", "value": ""})).collect()
    };
    let (status, body) = status_json(post(
        &s,
        DEANON,
        Some(KEY_A),
        &json!({"text": "t", "mapping": entries(100_000)}),
    ));
    assert_eq!((status, body), (200, json!({"text": ""})));
    assert_error(
        post(
            &s,
            DEANON,
            Some(KEY_A),
            &json!({"text": "t", "mapping": entries(100_001)}),
        ),
        400,
        "bad_request",
    );
}

#[test]
fn reserved_tokens_are_refused_and_lookalikes_are_text() {
    let s = server();
    for text in [
        "Hallo [[NAME_1]]",
        "[[IBAN_12]] x",
        "[[KARTE_3]]",
        "a[[STEUERNR_99]]b",
        "[[ORT_1]]",
    ] {
        assert_error(
            post(&s, ANON, Some(KEY_A), &json!({"text": text})),
            400,
            "reserved_token",
        );
    }
    for text in [
        "[[FOO_1]]",
        "[[NAME]]",
        "[NAME_1]",
        "[[name_1]]",
        "[[NAME_x]]",
    ] {
        let body = anonymize(&s, KEY_A, text);
        assert_eq!(body["anonymized_text"], text);
    }
}

#[test]
fn unauthorized_without_a_valid_key() {
    let s = server();
    let sid = session_of(&s, KEY_A, "x");
    for key in [None, Some(""), Some("wrong"), Some("Key-of-tenant-a")] {
        assert_error(
            post(&s, ANON, key, &json!({"text": "x"})),
            401,
            "unauthorized",
        );
        assert_error(
            post(&s, DEANON, key, &json!({"text": "x", "session_id": sid})),
            401,
            "unauthorized",
        );
        let resp = delete(&s, &sid, key);
        assert!(resp.headers().get("x-ratelimit-limit").is_none());
        assert_error(resp, 401, "unauthorized");
    }
    // The session survived every attempt.
    assert_eq!(delete(&s, &sid, Some(KEY_A)).status(), 200);
}

#[test]
fn session_not_found_for_unknown_malformed_and_deleted_ids() {
    let s = server();
    let unknown = "4b0f3c49-2a39-4d7e-9c31-1f0c6f8a0b2e";
    for id in [unknown, "not-a-uuid", "123", "4b0f3c49"] {
        assert_error(delete(&s, id, Some(KEY_A)), 404, "session_not_found");
        assert_error(
            post(
                &s,
                DEANON,
                Some(KEY_A),
                &json!({"text": "x", "session_id": id}),
            ),
            404,
            "session_not_found",
        );
    }
    let sid = session_of(&s, KEY_A, "a@b.de");
    let (status, body) = status_json(delete(&s, &sid, Some(KEY_A)));
    assert_eq!((status, body), (200, json!({"deleted": true})));
    assert_error(delete(&s, &sid, Some(KEY_A)), 404, "session_not_found");
    assert_error(
        post(
            &s,
            DEANON,
            Some(KEY_A),
            &json!({"text": "x", "session_id": sid}),
        ),
        404,
        "session_not_found",
    );
}

#[test]
fn not_found_for_unknown_paths_and_405_with_allow() {
    let s = server();
    let c = client();
    for path in [
        "/api/v1",
        "/api/v1/",
        "/api/v1/nope",
        "/api/v1/anonymize/x",
        "/api/v1/session",
        "/api/v1/session/",
        "/api/v1/session/a/b",
        "/api/v2/anonymize",
    ] {
        let resp = c
            .get(s.url(path))
            .header("x-api-key", KEY_A)
            .send()
            .unwrap();
        let status = resp.status().as_u16();
        if path.starts_with("/api/v1") {
            assert_error(resp, 404, "not_found");
        } else {
            assert_eq!(status, 404, "{path}");
        }
    }
    let cases = [
        ("GET", ANON, "POST"),
        ("PUT", ANON, "POST"),
        ("DELETE", DEANON, "POST"),
        (
            "GET",
            "/api/v1/session/4b0f3c49-2a39-4d7e-9c31-1f0c6f8a0b2e",
            "DELETE",
        ),
        (
            "POST",
            "/api/v1/session/4b0f3c49-2a39-4d7e-9c31-1f0c6f8a0b2e",
            "DELETE",
        ),
        ("POST", "/api/v1/entities", "GET, HEAD"),
        ("DELETE", "/api/v1/health", "GET, HEAD"),
        ("PATCH", "/openapi.json", "GET, HEAD"),
    ];
    for (method, path, allow) in cases {
        let resp = c
            .request(method.parse().unwrap(), s.url(path))
            .header("x-api-key", KEY_A)
            .send()
            .unwrap();
        assert_eq!(resp.headers()["allow"], allow, "{method} {path}");
        assert_error(resp, 405, "method_not_allowed");
    }
}

#[test]
fn too_large_text_is_counted_in_code_points() {
    let s = server();
    // 100000 code points of two bytes each: 200000 bytes, still within the limit.
    let ok = "ä".repeat(100_000);
    let body = anonymize(&s, KEY_A, &ok);
    assert_eq!(
        body["anonymized_text"].as_str().unwrap().chars().count(),
        100_000
    );
    let too_long = "ä".repeat(100_001);
    assert_error(
        post(&s, ANON, Some(KEY_A), &json!({"text": too_long})),
        413,
        "too_large",
    );
    // The same limit holds for /deanonymize, before its other checks.
    assert_error(
        post(&s, DEANON, Some(KEY_A), &json!({"text": too_long})),
        413,
        "too_large",
    );
    let (status, _) = status_json(post(
        &s,
        DEANON,
        Some(KEY_A),
        &json!({"text": ok, "mapping": []}),
    ));
    assert_eq!(status, 200);
    // An emoji is one code point (four bytes, two UTF-16 units).
    let emoji = "😀".repeat(100_000);
    let (status, _) = status_json(post(&s, ANON, Some(KEY_A), &json!({"text": emoji})));
    assert_eq!(status, 200);
}

#[test]
fn too_large_body_is_refused_from_content_length_before_it_is_sent() {
    let s = server();
    // Only the header goes out: the answer must come without a byte of the body.
    let head = format!(
        "POST {ANON} HTTP/1.1\r\nHost: t\r\nX-API-Key: {KEY_A}\r\nContent-Type: application/json\r\nContent-Length: 3000000"
    );
    let mut stream = send_head(s.addr, &head);
    let resp = read_response(&mut stream);
    assert_eq!(resp.status, 413);
    assert_eq!(resp.json()["error"], "too_large");
    assert_eq!(resp.header("connection"), Some("close"));
    assert_eq!(resp.header("x-ratelimit-limit"), Some("100000"));
    // With Expect: 100-continue the refusal comes instead of the 100.
    let head = format!(
        "POST {DEANON} HTTP/1.1\r\nHost: t\r\nX-API-Key: {KEY_A}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2097153"
    );
    let mut stream = send_head(s.addr, &head);
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 413");
    // A client that sends the body anyway still gets a clean answer.
    let body = vec![b' '; 2_097_153];
    let resp = client()
        .post(s.url(ANON))
        .header("x-api-key", KEY_A)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .unwrap();
    assert_error(resp, 413, "too_large");
}

#[test]
fn too_large_chunked_body_is_refused_while_reading() {
    let s = server();
    let mut stream = connect(s.addr);
    let head = format!(
        "POST {ANON} HTTP/1.1\r\nHost: t\r\nX-API-Key: {KEY_A}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'a'; 64 * 1024];
    let mut sent = 0usize;
    // Send a little over the 2 MiB cap, then stop and wait for the answer (no final chunk).
    while sent <= 2 * 1024 * 1024 {
        stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .unwrap();
        stream.write_all(&chunk).unwrap();
        stream.write_all(b"\r\n").unwrap();
        sent += chunk.len();
    }
    let resp = read_response(&mut stream);
    assert_eq!(resp.status, 413);
    assert_eq!(resp.json()["error"], "too_large");
    // A chunked body within the cap is fine.
    let mut stream = connect(s.addr);
    let body = br#"{"text":"Mail: a@b.de"}"#;
    stream.write_all(head.as_bytes()).unwrap();
    stream
        .write_all(format!("{:x}\r\n", body.len()).as_bytes())
        .unwrap();
    stream.write_all(body).unwrap();
    stream.write_all(b"\r\n0\r\n\r\n").unwrap();
    let resp = read_response(&mut stream);
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json()["anonymized_text"], "Mail: [[EMAIL_1]]");
}

#[test]
fn checks_run_in_the_contracts_order() {
    let s = TestServer::start(&[("TARNKAPPE_API_KEYS", KEYS), ("TARNKAPPE_RATE_LIMIT", "2")]);
    let too_long = "x".repeat(100_001);
    // 401 before 413 and 400: no key, oversized body, broken JSON.
    let head = format!(
        "POST {ANON} HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 9000000"
    );
    let mut stream = send_head(s.addr, &head);
    assert_eq!(read_response(&mut stream).status, 401);
    // 413 (text length) before 400 (neither mode, wrong content type).
    let resp = client()
        .post(s.url(DEANON))
        .header("x-api-key", KEY_A)
        .header("content-type", "text/plain")
        .body(json!({"text": too_long}).to_string())
        .send()
        .unwrap();
    assert_error(resp, 413, "too_large");
    // 413 (byte cap) before 400 (not JSON).
    let head =
        format!("POST {ANON} HTTP/1.1\r\nHost: t\r\nX-API-Key: {KEY_A}\r\nContent-Length: 9000000");
    let mut stream = send_head(s.addr, &head);
    assert_eq!(read_response(&mut stream).status, 413);
    // The limit (2) is used up now: 429 before 413 and 400, but still 401 before 429.
    let head =
        format!("POST {ANON} HTTP/1.1\r\nHost: t\r\nX-API-Key: {KEY_A}\r\nContent-Length: 9000000");
    let mut stream = send_head(s.addr, &head);
    let resp = read_response(&mut stream);
    assert_eq!(resp.status, 429);
    assert!(resp.header("retry-after").is_some());
    assert_error(
        post_raw(&s, ANON, Some("nope"), b"x".to_vec()),
        401,
        "unauthorized",
    );
}

#[test]
fn rejected_requests_store_nothing() {
    // A refused request answers with the error only (no session id), and the server log never
    // contains the submitted text, refused or not.
    let s = server();
    let secret = "geheim.person@example.org";
    assert_error(
        post(
            &s,
            ANON,
            Some(KEY_A),
            &json!({"text": format!("[[NAME_1]] {secret}")}),
        ),
        400,
        "reserved_token",
    );
    assert_error(
        post(
            &s,
            ANON,
            Some(KEY_A),
            &json!({"text": format!("{secret}{}", "x".repeat(100_000))}),
        ),
        413,
        "too_large",
    );
    anonymize(&s, KEY_A, secret);
    assert!(
        !s.log().contains(secret),
        "the log must never contain submitted text"
    );
}

#[test]
fn connection_stays_usable_after_an_early_401() {
    let s = server();
    let mut stream = connect(s.addr);
    let body = br#"{"text":"a@b.de"}"#;
    let req = |key: &str| {
        format!(
            "POST {ANON} HTTP/1.1\r\nHost: t\r\nX-API-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
    };
    stream.write_all(req("wrong").as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let first = read_response(&mut stream);
    assert_eq!(first.status, 401);
    assert_eq!(first.header("connection"), Some("keep-alive"));
    stream.write_all(req(KEY_A).as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    assert_eq!(read_response(&mut stream).status, 200);
}

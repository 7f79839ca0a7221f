//! Sessions and the round trip over real HTTP: byte-exact restore, tenant isolation, expiry,
//! stateless mode, code-point offsets for non-ASCII text.

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::api::{
    anonymize, assert_error, delete, post, server, status_json, KEYS, KEY_A, KEY_B,
};
use crate::harness::server::TestServer;

const DEANON: &str = "/api/v1/deanonymize";

const LETTER: &str = "Sehr geehrte Frau Müller,\r\n\
bitte überweisen Sie 1.250,00 € auf DE89 3704 0044 0532 0130 00 (Ref. 4711).\n\
Rückfragen an jörg.schmidt@example.de oder buchhaltung@firma-grün.de — \
Server 192.168.178.20 und 2001:db8::1 sind betroffen.\t\
Karte: 4111 1111 1111 1111; Portal: https://kunden.example.de/konto?id=42.\n\
Noch einmal: DE89 3704 0044 0532 0130 00 und „192.168.178.20“. 😀 Ende";

fn restore(s: &TestServer, key: &str, text: &str, sid: &str) -> (u16, Value) {
    status_json(post(
        s,
        DEANON,
        Some(key),
        &json!({"text": text, "session_id": sid}),
    ))
}

#[test]
fn round_trip_restores_the_text_byte_for_byte() {
    let s = server();
    let body = anonymize(&s, KEY_A, LETTER);
    let anonymized = body["anonymized_text"].as_str().unwrap();
    for value in [
        "DE89 3704 0044 0532 0130 00",
        "192.168.178.20",
        "4111 1111 1111 1111",
    ] {
        assert!(!anonymized.contains(value), "{value} must be replaced");
    }
    let sid = body["session_id"].as_str().unwrap();
    let (status, restored) = restore(&s, KEY_A, anonymized, sid);
    assert_eq!(status, 200);
    assert_eq!(
        restored["text"].as_str().unwrap().as_bytes(),
        LETTER.as_bytes()
    );
    assert_eq!(restored.as_object().unwrap().len(), 1);
    // The stateless mode with the returned mapping gives the same bytes.
    let (status, stateless) = status_json(post(
        &s,
        DEANON,
        Some(KEY_A),
        &json!({"text": anonymized, "mapping": body["mapping"]}),
    ));
    assert_eq!(status, 200);
    assert_eq!(stateless["text"], LETTER);
}

#[test]
fn result_shape_tokens_and_stats() {
    let s = server();
    let body = anonymize(&s, KEY_A, LETTER);
    let session_id = body["session_id"].as_str().unwrap();
    assert_eq!(session_id.len(), 36);
    assert_eq!(&session_id[14..15], "4", "UUID v4");
    let entities = body["entities"].as_array().unwrap();
    let mapping = body["mapping"].as_array().unwrap();
    let stats = &body["stats"];
    assert_eq!(stats["entityCount"], entities.len());
    assert_eq!(stats["uniqueTokens"], mapping.len());
    assert_eq!(stats["dataLoss"], 0);
    // Sorted, disjoint, and the same value of the same type has the same token.
    let chars: Vec<char> = LETTER.chars().collect();
    let mut last_end = 0;
    let mut covered = 0;
    for e in entities {
        let (start, end) = (
            e["start"].as_u64().unwrap() as usize,
            e["end"].as_u64().unwrap() as usize,
        );
        assert!(start >= last_end && end > start);
        last_end = end;
        covered += end - start;
        let text: String = chars[start..end].iter().collect();
        assert_eq!(e["text"], text, "offsets are code points");
        let score = e["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        let row = mapping
            .iter()
            .find(|m| m["token"] == e["token"])
            .expect("token in mapping");
        assert_eq!(
            (&row["value"], &row["entity_type"]),
            (&e["text"], &e["entity_type"])
        );
    }
    let expected_rate = (100.0 * covered as f64 / chars.len() as f64).round() as u64;
    assert_eq!(stats["anonymizationRate"], expected_rate);
    let iban: Vec<&Value> = entities
        .iter()
        .filter(|e| e["entity_type"] == "IBAN")
        .collect();
    assert_eq!(iban.len(), 2);
    assert_eq!(iban[0]["token"], "[[IBAN_1]]");
    assert_eq!(iban[1]["token"], "[[IBAN_1]]");
    let ips: Vec<&str> = entities
        .iter()
        .filter(|e| e["entity_type"] == "IP_ADDRESS")
        .map(|e| e["token"].as_str().unwrap())
        .collect();
    assert_eq!(
        ips,
        ["[[IP_1]]", "[[IP_2]]", "[[IP_1]]"],
        "numbered per prefix in order of first appearance"
    );
    // Mapping rows are unique per token.
    let mut tokens: Vec<&str> = mapping
        .iter()
        .map(|m| m["token"].as_str().unwrap())
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    assert_eq!(tokens.len(), mapping.len());
}

#[test]
fn non_ascii_offsets_are_code_points() {
    let s = server();
    let text = "😀 Grüße an ä@ö.de und x@y.de";
    let body = anonymize(&s, KEY_A, text);
    let e = body["entities"].as_array().unwrap();
    let last = e.last().unwrap();
    assert_eq!(last["text"], "x@y.de");
    // "😀 Grüße an ä@ö.de und " is 22 code points (44 UTF-16 units would be wrong, so would bytes).
    assert_eq!(
        (last["start"].as_u64(), last["end"].as_u64()),
        (Some(22), Some(28))
    );
}

#[test]
fn empty_text_and_text_without_findings_still_create_sessions() {
    let s = server();
    for text in ["", "Nichts Persönliches hier."] {
        let body = anonymize(&s, KEY_A, text);
        assert_eq!(body["anonymized_text"], text);
        assert_eq!(body["entities"], json!([]));
        assert_eq!(body["mapping"], json!([]));
        assert_eq!(
            body["stats"],
            json!({"entityCount":0,"uniqueTokens":0,"anonymizationRate":0,"dataLoss":0})
        );
        let sid = body["session_id"].as_str().unwrap();
        assert_eq!(
            restore(&s, KEY_A, "[[EMAIL_1]]", sid),
            (200, json!({"text": "[[EMAIL_1]]"}))
        );
        assert_eq!(delete(&s, sid, Some(KEY_A)).status(), 200);
    }
}

#[test]
fn sessions_are_bound_to_their_key() {
    let s = server();
    let body = anonymize(&s, KEY_A, "Mail an anna@example.de");
    let sid = body["session_id"].as_str().unwrap();
    // Another key can neither resolve nor delete it, and learns nothing from the answer.
    assert_error(
        post(
            &s,
            DEANON,
            Some(KEY_B),
            &json!({"text": "[[EMAIL_1]]", "session_id": sid}),
        ),
        404,
        "session_not_found",
    );
    assert_error(delete(&s, sid, Some(KEY_B)), 404, "session_not_found");
    // The owner still can.
    let (status, restored) = restore(&s, KEY_A, "[[EMAIL_1]]", sid);
    assert_eq!(
        (status, restored["text"].as_str()),
        (200, Some("anna@example.de"))
    );
    assert_eq!(delete(&s, sid, Some(KEY_A)).status(), 200);
}

#[test]
fn sessions_expire_after_their_ttl() {
    let s = TestServer::start(&[("TARNKAPPE_API_KEYS", KEYS), ("TARNKAPPE_SESSION_TTL", "1")]);
    let body = anonymize(&s, KEY_A, "anna@example.de");
    let sid = body["session_id"].as_str().unwrap();
    assert_eq!(restore(&s, KEY_A, "[[EMAIL_1]]", sid).0, 200);
    std::thread::sleep(Duration::from_millis(1300));
    let (status, err) = restore(&s, KEY_A, "[[EMAIL_1]]", sid);
    assert_eq!(
        (status, err["error"].as_str()),
        (404, Some("session_not_found"))
    );
    assert_error(delete(&s, sid, Some(KEY_A)), 404, "session_not_found");
}

#[test]
fn stateless_mode_replaces_only_known_tokens() {
    let s = server();
    let mapping = json!([
        {"token": "[[NAME_1]]", "value": "Jörg"},
        {"token": "[[NAME_10]]", "value": "Zoë"},
        {"token": "[[NAME_1]]", "value": "ignored duplicate"},
        {"token": "[[IBAN_1]]", "entity_type": "IBAN", "value": "DE89 3704 0044 0532 0130 00", "extra": 1}
    ]);
    let text = "[[NAME_1]] und [[NAME_10]] zahlen an [[IBAN_1]]; [[NAME_2]], [NAME_1], [[NAME_1]][[NAME_1]]";
    let (status, body) = status_json(post(
        &s,
        DEANON,
        Some(KEY_A),
        &json!({"text": text, "mapping": mapping}),
    ));
    assert_eq!(status, 200);
    assert_eq!(
        body["text"],
        "Jörg und Zoë zahlen an DE89 3704 0044 0532 0130 00; [[NAME_2]], [NAME_1], JörgJörg"
    );
    // Stateless mode works with a key that has no sessions at all, and reads no storage.
    let (status, body) = status_json(post(
        &s,
        DEANON,
        Some(KEY_B),
        &json!({"text": "[[X]]", "mapping": [{"token": "[[X]]", "value": ""}]}),
    ));
    assert_eq!((status, body), (200, json!({"text": ""})));
}

#[test]
fn a_session_restores_only_its_own_tokens() {
    let s = server();
    let one = anonymize(&s, KEY_A, "a@b.de");
    let two = anonymize(&s, KEY_A, "c@d.de");
    assert_eq!(one["anonymized_text"], two["anonymized_text"]);
    let (_, r1) = restore(
        &s,
        KEY_A,
        "[[EMAIL_1]] [[EMAIL_2]]",
        one["session_id"].as_str().unwrap(),
    );
    let (_, r2) = restore(
        &s,
        KEY_A,
        "[[EMAIL_1]] [[EMAIL_2]]",
        two["session_id"].as_str().unwrap(),
    );
    assert_eq!(r1["text"], "a@b.de [[EMAIL_2]]");
    assert_eq!(r2["text"], "c@d.de [[EMAIL_2]]");
    // Unknown fields are ignored; an upper-case session id is the same id.
    let upper = one["session_id"].as_str().unwrap().to_uppercase();
    let (status, r) = status_json(post(
        &s,
        DEANON,
        Some(KEY_A),
        &json!({"text": "[[EMAIL_1]]", "session_id": upper, "lang": "de"}),
    ));
    assert_eq!((status, r["text"].as_str()), (200, Some("a@b.de")));
}

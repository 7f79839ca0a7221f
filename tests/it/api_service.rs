//! The keyless endpoints (`/health`, `/health/ready`, `/entities`, `/openapi.json`), the
//! generated key of a server without configured keys, and common response headers.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::api::{anonymize, assert_error, post, server, status_json, KEY_A};
use crate::harness::config::edited;
use crate::harness::http::client;
use crate::harness::server::TestServer;

#[test]
fn health_and_readiness() {
    let s = server();
    for path in ["/api/v1/health", "/api/v1/health/ready"] {
        let resp = client().get(s.url(path)).send().unwrap();
        assert_eq!(resp.headers()["content-type"], "application/json");
        assert_eq!(resp.headers()["cache-control"], "no-store");
        let (status, body) = status_json(resp);
        assert_eq!(status, 200);
        assert_eq!(
            body,
            json!({"status": "ok", "version": env!("CARGO_PKG_VERSION"), "store": "memory", "store_ok": true})
        );
    }
    // HEAD gets the headers of GET without a body.
    let resp = client().head(s.url("/api/v1/health")).send().unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-length"]
            .to_str()
            .unwrap()
            .parse::<u32>()
            .unwrap()
            > 0
    );
    assert!(resp.bytes().unwrap().is_empty());
}

#[test]
fn entities_lists_the_contracts_thirteen_types_first_then_the_added_ones() {
    let s = server();
    let (status, body) = status_json(client().get(s.url("/api/v1/entities")).send().unwrap());
    assert_eq!(status, 200);
    let rows = body["entities"].as_array().unwrap();
    let expected = [
        ("PERSON", "NAME"),
        ("EMAIL_ADDRESS", "EMAIL"),
        ("PHONE_NUMBER", "TEL"),
        ("IBAN", "IBAN"),
        ("CREDIT_CARD", "KARTE"),
        ("IP_ADDRESS", "IP"),
        ("STEUER_ID", "STEUERID"),
        ("STEUERNUMMER", "STEUERNR"),
        ("SV_NUMMER", "SVNR"),
        ("KFZ_KENNZEICHEN", "KFZ"),
        ("DATE", "DATUM"),
        ("LOCATION", "ORT"),
        ("URL", "URL"),
        // Added by Tarnkappe, after the contract's 13 (docs/detection.md, "Added entity types").
        ("SECRET", "SECRET"),
        ("KVNR", "KVNR"),
        ("AUSWEIS", "AUSWEIS"),
        ("UST_ID", "USTID"),
        ("US_SSN", "SSN"),
    ];
    assert_eq!(rows.len(), expected.len());
    for (row, (entity_type, prefix)) in rows.iter().zip(expected) {
        assert_eq!(row["entity_type"], entity_type);
        assert_eq!(row["token_prefix"], prefix);
        assert_eq!(row["token_example"], format!("[[{prefix}_1]]"));
        assert!(!row["description"].as_str().unwrap().is_empty());
        assert_eq!(row.as_object().unwrap().len(), 4);
    }
    assert_eq!(rows[0]["description"], "person names");
}

#[test]
fn openapi_is_served_at_both_paths_and_matches_the_repository() {
    let s = server();
    let repo: Value = serde_json::from_str(include_str!("../../openapi.json")).unwrap();
    for path in ["/openapi.json", "/api/v1/openapi.json"] {
        let (status, body) = status_json(client().get(s.url(path)).send().unwrap());
        assert_eq!(status, 200);
        assert_eq!(body, repo);
    }
    assert_eq!(repo["info"]["version"], "1.0.0");
    assert!(repo["openapi"].as_str().unwrap().starts_with("3.0."));
    let scheme = &repo["components"]["securitySchemes"]["ApiKey"];
    assert_eq!(
        (
            scheme["type"].as_str(),
            scheme["in"].as_str(),
            scheme["name"].as_str()
        ),
        (Some("apiKey"), Some("header"), Some("X-API-Key"))
    );
    for path in [
        "/anonymize",
        "/deanonymize",
        "/session/{id}",
        "/entities",
        "/health",
        "/health/ready",
    ] {
        assert!(repo["paths"][path].is_object(), "{path} is documented");
    }
}

#[test]
fn without_configured_keys_one_key_is_generated_and_printed_once() {
    let s = TestServer::start(&[]);
    // The key is printed on stderr shortly after start.
    let deadline = Instant::now() + Duration::from_secs(5);
    let key = loop {
        let log = s.log();
        if let Some(line) = log
            .lines()
            .find(|l| l.trim_start().starts_with("X-API-Key: "))
        {
            break line
                .trim_start()
                .trim_start_matches("X-API-Key: ")
                .to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "no generated key in the log:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(key.len() >= 32);
    assert_eq!(s.log().matches(&key).count(), 1, "printed exactly once");
    assert!(s.log().contains("WARNING"));
    let body = anonymize(&s, &key, "a@b.de");
    assert_eq!(body["anonymized_text"], "[[EMAIL_1]]");
    assert_error(
        post(
            &s,
            "/api/v1/anonymize",
            Some("anything-else"),
            &json!({"text": "x"}),
        ),
        401,
        "unauthorized",
    );
    // No encryption key configured either: the server says so.
    assert!(s.log().to_lowercase().contains("no encryption key"));
    assert_eq!(s.log().matches(&key).count(), 1, "never logged again");
}

#[test]
fn every_api_response_carries_a_request_id() {
    let s = server();
    let a = client().get(s.url("/api/v1/health")).send().unwrap();
    let b = client().get(s.url("/api/v1/nope")).send().unwrap();
    let ida = a.headers()["x-request-id"].to_str().unwrap().to_owned();
    let idb = b.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert_ne!(ida, idb);
}

#[test]
fn hash_key_output_configures_a_key_with_its_own_limit() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tarnkappe"))
        .arg("hash-key")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"operator-key\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let hash = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert_eq!(hash.len(), 64);
    // An [[api.keys]] table belongs to [api]: insert it before the next table, [session].
    let key =
        format!("[[api.keys]]\nname = \"ops\"\nsha256 = \"{hash}\"\nrate_limit_per_minute = 7\n\n");
    let toml = edited(&[("[session]", &format!("{key}[session]"))]);
    let s = TestServer::start_with_config(&[], &toml);
    let resp = post(
        &s,
        "/api/v1/anonymize",
        Some("operator-key"),
        &json!({"text": "x"}),
    );
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-ratelimit-limit"], "7");
    assert_error(
        post(&s, "/api/v1/anonymize", Some(&hash), &json!({"text": "x"})),
        401,
        "unauthorized",
    );
    // A configured key means no generated one.
    assert!(!s.log().contains("X-API-Key: "));
}

#[test]
fn added_types_are_masked_and_restored_over_rest() {
    let s = server();
    let key = "sk-proj-Q7mZ2vK9xL4pR8tW1nB6cD3fG5hJ0kYs";
    let text =
        format!("Schlüssel {key}, KVNR A123456780, USt-IdNr. DE136695976, Passwort: Sommer2024!");
    let body = anonymize(&s, KEY_A, &text);
    let anonymized = body["anonymized_text"].as_str().unwrap();
    assert_eq!(
        anonymized,
        "Schlüssel [[SECRET_1]], KVNR [[KVNR_1]], USt-IdNr. [[USTID_1]], Passwort: [[SECRET_2]]"
    );
    let types: Vec<&str> = body["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entity_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["SECRET", "KVNR", "UST_ID", "SECRET"]);
    assert_eq!(body["stats"]["dataLoss"], 0);
    // The session restores every value.
    let resp = post(
        &s,
        "/api/v1/deanonymize",
        Some(KEY_A),
        &json!({"text": anonymized, "session_id": body["session_id"]}),
    );
    let (status, restored) = status_json(resp);
    assert_eq!(status, 200);
    assert_eq!(restored["text"], text);
    // Tokens of the added prefixes are reserved like the contract's.
    let resp = post(
        &s,
        "/api/v1/anonymize",
        Some(KEY_A),
        &json!({"text": "Bitte [[SECRET_1]] ersetzen"}),
    );
    assert_error(resp, 400, "reserved_token");
}

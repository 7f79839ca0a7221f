//! Policies over real HTTP: the real binary with a `proxy.toml` of named policies, REST and
//! proxy (OpenAI, Anthropic, Ollama; plain and streaming) in front of the fake upstream. Each
//! element is checked where it shows: types switched off, a minimum score, allow literals and
//! patterns, deny terms with a custom type, a custom recognizer with context, `block` (REST 422
//! `policy_blocked`, proxy refusal in the provider's shape with nothing forwarded), the key
//! winning over the route, request `deny_terms`, `GET /api/v1/policy`, restore of custom
//! tokens (canonical and mangled, streamed), the policy name in logs and metrics — and start-up
//! errors (exit 1, one sentence).

use serde_json::{json, Value};
use tarnkappe::config::hash_key;

use crate::harness::api;
use crate::harness::http::client;
use crate::harness::metrics::metrics;
use crate::harness::server;
use crate::harness::server::TestServer;
use crate::harness::stream::parse_sse;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::echo::echo;
use crate::harness::upstream::FakeUpstream;

const SUPPORT_KEY: &str = "key-support";
const PLAIN_KEY: &str = "key-plain";
const LENIENT_KEY: &str = "key-lenient";

const POLICIES: &str = r#"
[policies.support]
types = ["PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "IBAN", "CREDIT_CARD", "SECRET"]
min_score = { PERSON = 0.85 }
allow = ["Tarnkappe GmbH", "support@tarnkappe.example"]
allow_regex = ['TICKET-[0-9]{5}']
actions = { CREDIT_CARD = "block", SECRET = "block" }

[[policies.support.deny]]
type = "PROJEKT"
terms = ["Falke", "Nordlicht"]

[[policies.support.recognizers]]
type = "KUNDENNUMMER"
prefix = "KUNDE"
regex = 'KD-[0-9]{6}'
context = ["Kunde", "Kundennummer"]
score = 0.9
"#;

fn config(upstream: &str) -> String {
    format!(
        r#"
[[api.keys]]
name = "support"
sha256 = "{support}"
policy = "support"

[[api.keys]]
name = "plain"
sha256 = "{plain}"

[[api.keys]]
name = "lenient"
sha256 = "{lenient}"
policy = "lenient"

[policies.lenient]

[web]
policy = "support"

[[route]]
prefix = "/v1/messages"
upstream = "{upstream}"
format = "anthropic"
policy = "support"

[[route]]
prefix = "/v1/"
upstream = "{upstream}"
format = "openai"
require_key = true
policy = "support"

[[route]]
prefix = "/api/chat"
upstream = "{upstream}"
format = "ollama"
policy = "support"
{POLICIES}"#,
        support = hash_key(SUPPORT_KEY),
        plain = hash_key(PLAIN_KEY),
        lenient = hash_key(LENIENT_KEY),
    )
}

struct Setup {
    up: FakeUpstream,
    server: TestServer,
}

fn start() -> Setup {
    let up = FakeUpstream::start(echo);
    let server = TestServer::start_with_config(&[], &config(&up.url()));
    Setup { up, server }
}

fn post(server: &TestServer, path: &str, key: Option<&str>, body: &Value) -> (u16, String) {
    let resp = api::post(server, path, key, body);
    (resp.status().as_u16(), resp.text().unwrap_or_default())
}

fn anonymize(server: &TestServer, key: &str, body: Value) -> (u16, Value) {
    let (s, text) = post(server, "/api/v1/anonymize", Some(key), &body);
    (s, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// `(entity_type, text, token)` of every entity of an anonymize answer.
fn entities(answer: &Value) -> Vec<(String, String, String)> {
    answer["entities"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["entity_type"].as_str().unwrap_or("").to_owned(),
                        e["text"].as_str().unwrap_or("").to_owned(),
                        e["token"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

const TEXT: &str = "Projekt Falke: Kunde KD-123456 ruft an. Tarnkappe GmbH, support@tarnkappe.example, \
                    TICKET-12345. Schreib an lena.vogt@example.org, IBAN DE89 3704 0044 0532 0130 00, \
                    am 12.03.2024 aus Köln. Später auch Nordlicht und KD-999999 ohne Hinweis.";

#[test]
fn rest_applies_every_element_of_the_key_policy_and_restores_custom_tokens() {
    let s = start();
    let (status, a) = anonymize(&s.server, SUPPORT_KEY, json!({ "text": TEXT }));
    assert_eq!(status, 200, "{a}");
    let found = entities(&a);
    let has = |t: &str, v: &str| found.iter().any(|(a, b, _)| a == t && b == v);
    assert!(
        has("PROJEKT", "Falke") && has("PROJEKT", "Nordlicht"),
        "{found:?}"
    );
    assert!(has("KUNDENNUMMER", "KD-123456"), "{found:?}");
    assert!(
        !has("KUNDENNUMMER", "KD-999999"),
        "needs its context: {found:?}"
    );
    assert!(has("EMAIL_ADDRESS", "lena.vogt@example.org"), "{found:?}");
    assert!(has("IBAN", "DE89 3704 0044 0532 0130 00"), "{found:?}");
    for kept in [
        "Tarnkappe GmbH",
        "support@tarnkappe.example",
        "TICKET-12345",
        "12.03.2024",
        "Köln",
    ] {
        assert!(
            a["anonymized_text"].as_str().unwrap().contains(kept),
            "{kept} stays (allowed or type off): {a}"
        );
    }
    let text = a["anonymized_text"].as_str().unwrap();
    assert!(
        text.starts_with("Projekt [[PROJEKT_1]]: Kunde [[KUNDE_1]]"),
        "{text}"
    );
    assert!(text.contains("[[PROJEKT_2]]"), "{text}");

    // the session restores custom tokens like built-in ones
    let answer = "Zu [[PROJEKT_1]] und [[PROJEKT_2]]: [[KUNDE_1]] an [[EMAIL_1]].";
    let (st, restored) = post(
        &s.server,
        "/api/v1/deanonymize",
        Some(SUPPORT_KEY),
        &json!({"text": answer, "session_id": a["session_id"]}),
    );
    assert_eq!(st, 200);
    let restored: Value = serde_json::from_str(&restored).unwrap();
    assert_eq!(
        restored["text"],
        "Zu Falke und Nordlicht: KD-123456 an lena.vogt@example.org."
    );

    // the same text for a key without a policy: the default (every built-in type, no terms)
    let (_, d) = anonymize(&s.server, PLAIN_KEY, json!({ "text": TEXT }));
    let found = entities(&d);
    assert!(found.iter().any(|(t, _, _)| t == "DATE"), "{found:?}");
    assert!(
        !found
            .iter()
            .any(|(t, _, _)| t == "PROJEKT" || t == "KUNDENNUMMER"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(_, v, _)| v == "support@tarnkappe.example"),
        "{found:?}"
    );
}

#[test]
fn min_score_drops_weak_names_for_the_policy_only() {
    let s = start();
    let text = "Treffen mit Jonas morgen.";
    let (_, plain) = anonymize(&s.server, PLAIN_KEY, json!({ "text": text }));
    assert!(
        entities(&plain)
            .iter()
            .any(|(t, v, _)| t == "PERSON" && v == "Jonas"),
        "{plain}"
    );
    let (_, support) = anonymize(&s.server, SUPPORT_KEY, json!({ "text": text }));
    assert!(
        entities(&support).is_empty(),
        "below PERSON's 0.85: {support}"
    );
    let (_, strong) = anonymize(
        &s.server,
        SUPPORT_KEY,
        json!({ "text": "Sehr geehrter Herr Max Mustermann," }),
    );
    assert!(
        entities(&strong).iter().any(|(t, _, _)| t == "PERSON"),
        "{strong}"
    );
}

#[test]
fn block_refuses_with_422_naming_types_never_values() {
    let s = start();
    let card = "4111 1111 1111 1111";
    let (status, body) = post(
        &s.server,
        "/api/v1/anonymize",
        Some(SUPPORT_KEY),
        &json!({"text": format!("Karte {card} und Projekt Falke")}),
    );
    assert_eq!(status, 422, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"], "policy_blocked");
    assert!(
        v["message"].as_str().unwrap().contains("CREDIT_CARD"),
        "{body}"
    );
    assert!(!body.contains("4111") && !body.contains("Falke"), "{body}");
    // the same card is masked for a key whose policy does not block it
    let (status, _) = post(
        &s.server,
        "/api/v1/anonymize",
        Some(PLAIN_KEY),
        &json!({"text": format!("Karte {card}")}),
    );
    assert_eq!(status, 200);
    let metrics = metrics(&s.server);
    assert!(
        metrics
            .contains(r#"tarnkappe_policy_requests_total{policy="support",outcome="blocked"} 1"#),
        "{metrics}"
    );
    assert!(
        metrics.contains(r#"policy="default",outcome="applied""#),
        "{metrics}"
    );
    let log = s.server.log_when(|l| l.contains("policy=\"support\""));
    assert!(log.contains("policy=\"support\""), "{log}");
    // The card as written or its digits joined: a bare `4111` may be a port, a duration or a
    // request id's hex in an honest log line.
    assert!(
        !log.contains("4111 1111") && !log.contains("4111111111111111"),
        "no values in logs: {log}"
    );
}

#[test]
fn reserved_custom_tokens_and_request_deny_terms() {
    let s = start();
    let (status, body) = post(
        &s.server,
        "/api/v1/anonymize",
        Some(SUPPORT_KEY),
        &json!({"text": "schon da: [[PROJEKT_1]]"}),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("reserved_token"));
    // another policy has no such prefix: ordinary text there
    let (status, _) = post(
        &s.server,
        "/api/v1/anonymize",
        Some(PLAIN_KEY),
        &json!({"text": "schon da: [[PROJEKT_1]]"}),
    );
    assert_eq!(status, 200);

    let (status, a) = anonymize(
        &s.server,
        PLAIN_KEY,
        json!({"text": "Die Geheimsache und die geheimsache, nicht Geheimsachen.", "deny_terms": ["Geheimsache"]}),
    );
    assert_eq!(status, 200, "{a}");
    assert_eq!(
        a["anonymized_text"],
        "Die [[TERM_1]] und die [[TERM_2]], nicht Geheimsachen."
    );
    assert_eq!(entities(&a)[0].0, "DENY_TERM");
    for bad in [
        json!("x"),
        json!([1]),
        json!([" "]),
        // Blank as the contract's pattern `\S` (ECMA-262) reads it: the byte order mark is.
        json!(["\u{feff}\t"]),
        json!(vec!["a"; 51]),
        json!(["x".repeat(201)]),
    ] {
        let (status, body) = post(
            &s.server,
            "/api/v1/anonymize",
            Some(PLAIN_KEY),
            &json!({"text": "a", "deny_terms": bad}),
        );
        assert_eq!(status, 400, "{bad}: {body}");
    }
    // U+0085 matches the pattern `\S` in the schema's dialect, so the contract accepts it.
    let (status, body) = post(
        &s.server,
        "/api/v1/anonymize",
        Some(PLAIN_KEY),
        &json!({"text": "a", "deny_terms": ["\u{85}"]}),
    );
    assert_eq!(status, 200, "{body}");
    let (status, _) = post(
        &s.server,
        "/api/v1/anonymize",
        Some(PLAIN_KEY),
        &json!({"text": "[[TERM_1]] Geheimsache", "deny_terms": ["Geheimsache"]}),
    );
    assert_eq!(
        status, 400,
        "a literal TERM token is reserved when terms are given"
    );
}

#[test]
fn policy_endpoint_shows_the_callers_policy_without_its_terms() {
    let s = start();
    let get = |key: &str| -> Value {
        let resp = client()
            .get(s.server.url("/api/v1/policy"))
            .header("x-api-key", key)
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        resp.json().unwrap()
    };
    let p = get(SUPPORT_KEY);
    assert_eq!(p["name"], "support");
    assert_eq!(
        (
            p["deny_terms"].clone(),
            p["recognizers"].clone(),
            p["allow_entries"].clone(),
            p["allow_patterns"].clone()
        ),
        (json!(2), json!(1), json!(2), json!(1))
    );
    let types = p["types"].as_array().unwrap();
    let row = |name: &str| types.iter().find(|t| t["entity_type"] == name).cloned();
    assert_eq!(row("CREDIT_CARD").unwrap()["action"], "block");
    assert_eq!(row("PERSON").unwrap()["min_score"], 0.85);
    assert!(row("DATE").is_none(), "switched off");
    let projekt = row("PROJEKT").unwrap();
    assert_eq!(
        (projekt["token_prefix"].clone(), projekt["origin"].clone()),
        (json!("PROJEKT"), json!("custom"))
    );
    let text = p.to_string();
    for secret in ["Falke", "Nordlicht", "KD-", "Tarnkappe GmbH", "TICKET"] {
        assert!(!text.contains(secret), "{secret} is not shown: {text}");
    }
    let d = get(PLAIN_KEY);
    assert_eq!(d["name"], "default");
    assert_eq!(d["types"].as_array().unwrap().len(), 18);
    let resp = client().get(s.server.url("/api/v1/policy")).send().unwrap();
    assert_eq!(resp.status().as_u16(), 401);
}

const PROMPT: &str =
    "Projekt Falke, Kunde KD-123456, Mail an lena.vogt@example.org, Ticket TICKET-12345. \
                      Kopie an support@tarnkappe.example, Termin am 12.03.2024, Treffen mit Jonas.";

/// The upstream got the policy's tokens and nothing it masks; what the policy leaves alone
/// (allow literal and pattern, a switched-off type, a name below the minimum score) passes.
fn assert_upstream_clean(up: &FakeUpstream) {
    let body = up.last().body_str();
    for value in ["Falke", "KD-123456", "lena.vogt@example.org"] {
        assert!(!body.contains(value), "{value} went upstream: {body}");
    }
    for kept in [
        "TICKET-12345",
        "support@tarnkappe.example",
        "12.03.2024",
        "mit Jonas",
    ] {
        assert!(
            body.contains(kept),
            "{kept} passes under the policy: {body}"
        );
    }
    let toks = tokens_in(&body);
    assert_eq!(toks[0], "[[PROJEKT_1]]", "{body}");
    assert!(toks.contains(&"[[KUNDE_1]]".to_owned()), "{body}");
}

#[test]
fn proxy_plain_and_streaming_mask_by_policy_and_restore_custom_tokens() {
    let s = start();
    for stream in [false, true] {
        let (status, body) = post(
            &s.server,
            "/v1/chat/completions",
            Some(SUPPORT_KEY),
            &json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": PROMPT}]}),
        );
        assert_eq!(status, 200, "{body}");
        assert_upstream_clean(&s.up);
        let content = if stream {
            parse_sse(&body)
                .into_iter()
                .filter(|(_, d)| d != "[DONE]")
                .filter_map(|(_, d)| serde_json::from_str::<Value>(&d).ok())
                .filter_map(|v| {
                    v["choices"][0]["delta"]["content"]
                        .as_str()
                        .map(str::to_owned)
                })
                .collect::<String>()
        } else {
            let v: Value = serde_json::from_str(&body).unwrap();
            v["choices"][0]["message"]["content"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        // echo: every token, then `[PROJEKT_1]` (mangled) and bare `PROJEKT_1` at the end
        assert!(
            content.contains("Falke") && content.contains("KD-123456"),
            "{content}"
        );
        assert!(
            content.contains("verstümmelt Falke"),
            "mangled custom token restored: {content}"
        );
        assert!(
            content.ends_with("zuletzt Falke"),
            "bare custom token restored: {content}"
        );
        assert!(tokens_in(&content).is_empty(), "{content}");
    }
    // Anthropic route without a key: the route's policy; Ollama likewise
    for (path, body) in [
        (
            "/v1/messages",
            json!({"model": "c", "max_tokens": 10, "stream": true, "messages": [{"role": "user", "content": PROMPT}]}),
        ),
        (
            "/api/chat",
            json!({"model": "l", "stream": true, "messages": [{"role": "user", "content": PROMPT}]}),
        ),
    ] {
        let (status, reply) = post(&s.server, path, None, &body);
        assert_eq!(status, 200, "{path}: {reply}");
        assert_upstream_clean(&s.up);
        assert!(reply.contains("Falke"), "{path}: {reply}");
        assert!(!reply.contains("PROJEKT_1"), "{path}: {reply}");
    }
}

#[test]
fn proxy_block_refuses_in_the_providers_shape_and_forwards_nothing() {
    let s = start();
    let prompt = "Meine Karte 4111 1111 1111 1111, Projekt Falke.";
    let cases = [
        (
            "/v1/chat/completions",
            Some(SUPPORT_KEY),
            json!({"model": "m", "stream": false, "messages": [{"role": "user", "content": prompt}]}),
        ),
        (
            "/v1/chat/completions",
            Some(SUPPORT_KEY),
            json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": prompt}]}),
        ),
        (
            "/v1/messages",
            None,
            json!({"model": "c", "max_tokens": 5, "stream": true, "messages": [{"role": "user", "content": prompt}]}),
        ),
        (
            "/api/chat",
            None,
            json!({"model": "l", "messages": [{"role": "user", "content": prompt}]}),
        ),
    ];
    for (path, key, body) in cases {
        let (status, reply) = post(&s.server, path, key, &body);
        assert_eq!(status, 422, "{path}: {reply}");
        let v: Value = serde_json::from_str(&reply).unwrap();
        let message = match path {
            "/v1/chat/completions" => {
                assert_eq!(v["error"]["code"], "privacy_proxy_policy_blocked");
                v["error"]["message"].as_str().unwrap().to_owned()
            }
            "/v1/messages" => {
                assert_eq!(
                    (v["type"].clone(), v["error"]["type"].clone()),
                    (json!("error"), json!("invalid_request_error"))
                );
                v["error"]["message"].as_str().unwrap().to_owned()
            }
            _ => v["error"].as_str().unwrap().to_owned(),
        };
        assert!(message.contains("CREDIT_CARD"), "{message}");
        assert!(
            !reply.contains("4111") && !reply.contains("Falke"),
            "{reply}"
        );
    }
    assert!(s.up.requests().is_empty(), "nothing went upstream");

    // a large body (rewritten at its end) is refused the same way, no byte of it forwarded
    let big = format!("{} {prompt}", "Lorem ipsum dolor sit amet. ".repeat(3000));
    let (status, reply) = post(
        &s.server,
        "/v1/chat/completions",
        Some(SUPPORT_KEY),
        &json!({"model": "m", "messages": [{"role": "user", "content": big}]}),
    );
    assert_eq!(status, 422, "{reply}");
    assert!(s
        .up
        .requests()
        .iter()
        .all(|r| !r.body_str().contains("Lorem")));

    // a key without a policy of its own gets the route's
    let (status, _) = post(
        &s.server,
        "/v1/chat/completions",
        Some(PLAIN_KEY),
        &json!({"model": "m", "messages": [{"role": "user", "content": prompt}]}),
    );
    assert_eq!(status, 422);
    // a key's own policy wins over the route's: "lenient" masks the card instead
    let (status, reply) = post(
        &s.server,
        "/v1/chat/completions",
        Some(LENIENT_KEY),
        &json!({"model": "m", "messages": [{"role": "user", "content": prompt}]}),
    );
    assert_eq!(status, 200, "{reply}");
    let sent = s.up.last().body_str();
    assert!(
        !sent.contains("4111 1111") && sent.contains("Falke"),
        "{sent}"
    );
    let log = s.server.log_when(|l| l.contains("policy=\"lenient\""));
    assert!(log.contains("policy=\"lenient\""), "{log}");
    // The card as written or its digits joined: a bare `4111` may be a port, a duration or a
    // request id's hex in an honest log line.
    assert!(
        !log.contains("4111 1111") && !log.contains("4111111111111111"),
        "no values in logs: {log}"
    );
}

/// Runs `tarnkappe serve --config <toml>` and expects it to exit 1 within 20 s.
fn refused_start(toml: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("proxy.toml");
    std::fs::write(&path, toml).unwrap();
    let (status, err) = server::refused_start(&[], &["--config", path.to_str().unwrap()]);
    assert_eq!(status.code(), Some(1), "{err}");
    err
}

#[test]
fn bad_policies_stop_the_start_with_one_sentence() {
    let cases = [
        ("[policies.p]\ntypes = [\"PERSON\", \"PASSPORT\"]", "error: invalid policy \"p\": types names the unknown entity type \"PASSPORT\""),
        ("[policies.p]\n[[policies.p.recognizers]]\ntype = \"KD\"\nregex = 'KD-[0-9'", "error: invalid policy \"p\": recognizer 1 has an invalid regex"),
        ("[policies.p]\n[[policies.p.deny]]\ntype = \"PROJEKT\"\nprefix = \"EMAIL\"\nterms = [\"x\"]", "error: invalid policy \"p\": deny entry 1 gives type PROJEKT the token prefix EMAIL, which clashes with the built-in type EMAIL_ADDRESS"),
        ("[policies.p]\n[[policies.p.deny]]\ntype = \"PROJEKT\"\nprefix = \"PRO_JEKT\"\nterms = [\"x\"]", "2 to 16 capital letters"),
        ("[policies.p]\n[[policies.p.recognizers]]\ntype = \"KD\"\nregex = 'KD'\nvalidator = \"sha\"", "unknown variant `sha`"),
        ("[[route]]\nprefix = \"/v1/\"\nupstream = \"http://127.0.0.1:9\"\nformat = \"openai\"\npolicy = \"missing\"", "error: route /v1/ names the policy \"missing\", which is not configured"),
        ("[[api.keys]]\nname = \"a\"\nsha256 = \"0000000000000000000000000000000000000000000000000000000000000000\"\npolicy = \"missing\"", "error: API key a names the policy \"missing\", which is not configured"),
    ];
    for (toml, expected) in cases {
        let err = refused_start(toml);
        assert!(err.contains(expected), "{toml}\n→ {err}");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(lines.len(), 1, "{err}");
    }
}

//! The edges of a request of the third outside review (issue 45, items 11–14), over real HTTP
//! through the proxy to the fake upstream: user headers a front end forwards (Open WebUI's) and
//! query strings are anonymized with the body's tokens and restored in the reply, block mode
//! sees them, and Tarnkappe's own key never reaches the provider in any header. Each test
//! searches what the upstream received (headers, path and query) for every original value.

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::fixtures::{CARD, IBAN};
use crate::harness::http::client;
use crate::harness::server::TestServer;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::says::{said, says};
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

const MAIL: &str = "max.mustermann@example.de";
const MAIL_ENCODED: &str = "max.mustermann%40example.de";
const KEY: &str = "proxy-key-5e21c9";
const PROVIDER_KEY: &str = "sk-provider-77d0aa";

/// Everything of `r` a value could travel in upstream: request line and every header.
fn edges_of(r: &Recorded) -> String {
    let mut all = r.path.clone();
    for (name, value) in &r.headers {
        all.push_str(&format!("\n{name}: {value}"));
    }
    all
}

fn assert_absent(r: &Recorded, values: &[&str]) {
    let edges = edges_of(r);
    let body = r.body_str();
    for v in values {
        assert!(!edges.contains(v), "{v} went upstream:\n{edges}");
        assert!(!body.contains(v), "{v} went upstream in the body: {body}");
    }
}

/// An upstream that says back the e-mail header and the `user` query value it received.
fn echo_edges(r: &Recorded) -> Reply {
    let header = r.header("x-openwebui-user-email").unwrap_or("-").to_owned();
    let query = r
        .path
        .split_once("user=")
        .map_or("-", |(_, rest)| rest.split('&').next().unwrap_or("-"));
    let query = percent_decode(query);
    says(r, &format!("Header {header} Query {query}"))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => {
                let hex = std::str::from_utf8(hex).expect("ascii");
                out.push(u8::from_str_radix(hex, 16).expect("hex"));
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).expect("utf-8")
}

fn chat(stream: bool, text: &str) -> Value {
    json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": text}]})
}

#[test]
fn user_headers_are_anonymized_with_the_body_tokens_and_restored() {
    let up = FakeUpstream::start(echo_edges);
    let server = up.proxy(&[]);
    for stream in [false, true] {
        let resp = client()
            .post(server.url("/v1/chat/completions"))
            .header("x-openwebui-user-name", "Max Mustermann")
            .header("x-openwebui-user-email", MAIL)
            .header(
                "x-openwebui-user-id",
                "8f14e45f-ceea-467f-a0e6-2d5b1c9e7a3b",
            )
            .header("x-openwebui-user-role", "user")
            .header("x-openwebui-chat-id", "1c2d3e4f")
            .header("x-note", format!("IBAN {IBAN}"))
            .header("openai-organization", "org-7")
            .header("anthropic-version", "2023-06-01")
            .header("x-stainless-lang", "python")
            .header("user-agent", "OpenAI/Python 1.50.0")
            .header(
                "x-latin1",
                reqwest::header::HeaderValue::from_bytes(b"J\xfcrgen M\xfcller").unwrap(),
            )
            .json(&chat(stream, &format!("Ich bin Max Mustermann, {MAIL}.")))
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "stream={stream}");
        let reply = resp.text().unwrap();
        let r = up.last();
        assert_absent(&r, &[MAIL, "Mustermann", IBAN]);
        assert!(
            r.header("x-latin1").is_none(),
            "a header that cannot be read is dropped"
        );
        let token = r
            .header("x-openwebui-user-email")
            .expect("the header is kept");
        assert_eq!(tokens_in(token).len(), 1, "{token}");
        assert!(
            r.body_str().contains(token),
            "the body's token is the header's: {}",
            r.body_str()
        );
        let name = r.header("x-openwebui-user-name").expect("kept");
        assert!(name.starts_with("[[") && name.ends_with("]]"), "{name}");
        assert!(r.header("x-note").unwrap().starts_with("IBAN [["));
        // provider and client headers of the allow-list pass as sent; the rest without values
        for (h, v) in [
            ("openai-organization", "org-7"),
            ("anthropic-version", "2023-06-01"),
            ("x-stainless-lang", "python"),
            ("user-agent", "OpenAI/Python 1.50.0"),
            ("x-openwebui-user-role", "user"),
        ] {
            assert_eq!(r.header(h), Some(v), "{h}");
        }
        // the reply is restored: the client reads the value it sent
        assert!(
            said(&reply).contains(&format!("Header {MAIL}")),
            "stream={stream}: {reply}"
        );
    }
}

#[test]
fn a_route_may_drop_unlisted_headers() {
    let up = FakeUpstream::start(echo_edges);
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/leise/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\nunlisted_headers = \"drop\"\n",
        tarnkappe::config::DEFAULT_TOML,
        up.url()
    );
    let server = TestServer::start_with_config(&[], &toml);
    let resp = client()
        .post(server.url("/leise/v1/chat/completions"))
        .header(
            "x-openwebui-user-id",
            "8f14e45f-ceea-467f-a0e6-2d5b1c9e7a3b",
        )
        .header("x-openwebui-user-email", MAIL)
        .header("openai-beta", "assistants=v2")
        .json(&chat(false, "Hallo"))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let r = up.last();
    assert!(r.header("x-openwebui-user-id").is_none());
    assert!(r.header("x-openwebui-user-email").is_none());
    assert_eq!(r.header("openai-beta"), Some("assistants=v2"));
}

#[test]
fn query_strings_are_anonymized_with_the_body_tokens_and_restored() {
    let up = FakeUpstream::start(echo_edges);
    let server = up.proxy(&[]);
    for stream in [false, true] {
        let path = format!(
            "/v1/chat/completions?api-version=2024-10-21&user={MAIL_ENCODED}&iban={IBAN}&note=Max+Mustermann"
        );
        let resp = client()
            .post(server.url(&path))
            .json(&chat(stream, &format!("Schreib an {MAIL}.")))
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "stream={stream}");
        let reply = resp.text().unwrap();
        let r = up.last();
        assert_absent(&r, &[MAIL, MAIL_ENCODED, IBAN, "Mustermann"]);
        let (path, query) = r.path.split_once('?').expect("the query is kept");
        assert_eq!(path, "/v1/chat/completions");
        let params: Vec<(&str, String)> = query
            .split('&')
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (k, percent_decode(v))
            })
            .collect();
        let names: Vec<&str> = params.iter().map(|(k, _)| *k).collect();
        assert_eq!(names, ["api-version", "user", "iban", "note"]);
        assert_eq!(params[0].1, "2024-10-21", "a provider parameter passes");
        assert_eq!(tokens_in(&params[1].1).len(), 1, "{query}");
        assert!(r.body_str().contains(&params[1].1), "the body's token");
        assert_eq!(tokens_in(&params[2].1).len(), 1, "{query}");
        assert!(
            said(&reply).contains(&format!("Query {MAIL}")),
            "stream={stream}: {reply}"
        );
    }
    // a body over 64 KiB is rewritten after the header went out: the same tokens
    let long = format!(
        "{} Schreib an {MAIL}.",
        "Lorem ipsum dolor sit amet. ".repeat(2600)
    );
    let resp = client()
        .post(server.url(&format!("/v1/chat/completions?user={MAIL_ENCODED}")))
        .header("x-openwebui-user-email", MAIL)
        .json(&chat(true, &long))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let reply = resp.text().unwrap();
    let r = up.last();
    assert!(r.body.len() > 64 * 1024);
    assert_absent(&r, &[MAIL, MAIL_ENCODED]);
    let token = r.header("x-openwebui-user-email").expect("kept");
    assert!(r.body_str().contains(token) && r.path.ends_with("%5B%5BEMAIL_1%5D%5D"));
    assert!(
        said(&reply).contains(&format!("Header {MAIL} Query {MAIL}")),
        "{reply}"
    );
    // a request without a body: its query too, and the reply is restored
    let resp = client()
        .get(server.url(&format!("/v1/models?user={MAIL_ENCODED}")))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let reply = resp.text().unwrap();
    let r = up.last();
    assert_absent(&r, &[MAIL, MAIL_ENCODED]);
    assert!(reply.contains(MAIL), "{reply}");
}

const BLOCKING: &str = r#"
[policies.karten]
actions = { CREDIT_CARD = "block" }
"#;

#[test]
fn block_mode_sees_the_query_string_and_headers() {
    let up = FakeUpstream::start(|r| says(r, "ok"));
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/karten/\"\nupstream = \"{}\"\nformat = \"openai\"\npolicy = \"karten\"\n{BLOCKING}",
        tarnkappe::config::DEFAULT_TOML,
        up.url()
    );
    let server = TestServer::start_with_config(&[], &toml);
    for stream in [false, true] {
        let in_query = client()
            .post(server.url(&format!("/karten/chat/completions?card={CARD}")))
            .json(&chat(stream, "Bitte zahlen."))
            .send()
            .unwrap();
        let in_header = client()
            .post(server.url("/karten/chat/completions"))
            .header("x-payment-note", format!("Karte {CARD}"))
            .json(&chat(stream, "Bitte zahlen."))
            .send()
            .unwrap();
        for resp in [in_query, in_header] {
            assert_eq!(resp.status().as_u16(), 422, "stream={stream}");
            let v: Value = resp.json().unwrap();
            assert_eq!(v["error"]["code"], "privacy_proxy_policy_blocked", "{v}");
            assert!(!v.to_string().contains(CARD));
        }
    }
    let get = client()
        .get(server.url(&format!("/karten/models?card={CARD}")))
        .send()
        .unwrap();
    assert_eq!(get.status().as_u16(), 422);
    assert!(up.requests().is_empty(), "nothing went upstream");
    let plain = client()
        .post(server.url("/karten/chat/completions?api-version=1"))
        .json(&chat(false, "Hallo"))
        .send()
        .unwrap();
    assert_eq!(plain.status().as_u16(), 200);
}

fn keyed_server(up: &FakeUpstream) -> TestServer {
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/team/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\nrequire_key = true\ncredential_env = \"TEST_PROVIDER_KEY\"\n[[route]]\nprefix = \"/frei/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\nrequire_key = true\n",
        tarnkappe::config::DEFAULT_TOML,
        up.url(),
        up.url()
    );
    TestServer::start_with_config(
        &[
            ("TARNKAPPE_API_KEYS", &format!("team:{KEY}")),
            ("TEST_PROVIDER_KEY", PROVIDER_KEY),
            ("TARNKAPPE_OPENAI_UPSTREAM", &up.url()),
        ],
        &toml,
    )
}

#[test]
fn our_key_never_reaches_the_provider_in_any_header() {
    let up = FakeUpstream::start(|r| says(r, "ok"));
    let server = keyed_server(&up);
    let carriers: [(&str, String); 5] = [
        ("authorization", format!("Bearer {KEY}")),
        ("api-key", KEY.to_owned()),
        ("x-goog-api-key", KEY.to_owned()),
        ("x-custom-auth", KEY.to_owned()),
        ("x-api-key", KEY.to_owned()),
    ];
    // without require_key, with require_key (X-API-Key given), with an injected credential
    for path in [
        "/v1/chat/completions",
        "/frei/v1/chat/completions",
        "/team/v1/chat/completions",
    ] {
        for (name, value) in &carriers {
            let mut req = client()
                .post(server.url(path))
                .header(*name, value.as_str())
                .json(&chat(false, "Hallo"));
            if *name != "x-api-key" {
                req = req.header("x-api-key", KEY);
            }
            let resp = req.send().unwrap();
            assert_eq!(resp.status().as_u16(), 200, "{path} {name}");
            let r = up.last();
            assert_absent(&r, &[KEY]);
        }
    }
    // a provider key of the client passes where no credential is injected
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .header("authorization", format!("Bearer {PROVIDER_KEY}"))
        .json(&chat(false, "Hallo"))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let expected = format!("Bearer {PROVIDER_KEY}");
    assert_eq!(up.last().header("authorization"), Some(expected.as_str()));
}

#[test]
fn an_sdk_that_sends_our_key_as_its_bearer_token_is_admitted() {
    let up = FakeUpstream::start(|r| says(r, "ok"));
    let server = keyed_server(&up);
    for stream in [false, true] {
        let resp = client()
            .post(server.url("/team/v1/chat/completions"))
            .header("authorization", format!("Bearer {KEY}"))
            .json(&chat(stream, "Hallo"))
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "stream={stream}");
        let r = up.last();
        assert_absent(&r, &[KEY]);
        let expected = format!("Bearer {PROVIDER_KEY}");
        assert_eq!(r.header("authorization"), Some(expected.as_str()));
    }
    // a bearer token that is not ours does not open the route
    let resp = client()
        .post(server.url("/team/v1/chat/completions"))
        .header("authorization", "Bearer not-our-key")
        .json(&chat(false, "Hallo"))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
}

#[test]
fn logs_carry_no_header_or_query_value() {
    let up = FakeUpstream::start(|r| says(r, "ok"));
    let toml = tarnkappe::config::DEFAULT_TOML.replacen("level = \"info\"", "level = \"debug\"", 1);
    let toml = format!(
        "{toml}\n[[route]]\nprefix = \"/karten/\"\nupstream = \"{}\"\nformat = \"openai\"\npolicy = \"karten\"\n{BLOCKING}",
        up.url()
    );
    let mut server = TestServer::start_with_config(
        &[
            ("TARNKAPPE_API_KEYS", &format!("team:{KEY}")),
            ("TARNKAPPE_OPENAI_UPSTREAM", &up.url()),
        ],
        &toml,
    );
    for path in [
        format!("/v1/chat/completions?user={MAIL_ENCODED}&iban={IBAN}"),
        format!("/karten/chat/completions?card={CARD}&user={MAIL_ENCODED}"),
    ] {
        let resp = client()
            .post(server.url(&path))
            .header("x-openwebui-user-email", MAIL)
            .header("x-note", format!("IBAN {IBAN}"))
            .header("authorization", format!("Bearer {KEY}"))
            .json(&chat(false, "Hallo"))
            .send()
            .unwrap();
        assert!(resp.status().as_u16() < 500, "{path}");
    }
    assert!(server.terminate(Duration::from_secs(20)));
    let log = server.log();
    assert!(
        log.contains("\"request\"") || log.contains("request"),
        "{log}"
    );
    for v in [MAIL, MAIL_ENCODED, IBAN, CARD, KEY] {
        assert!(!log.contains(v), "{v} in the log:\n{log}");
    }
}

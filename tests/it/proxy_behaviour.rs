//! Proxy behaviour beyond the formats: multi-turn consistency, fail-closed refusals, large
//! prompts, literal tokens, transparency of paths and headers, upstream failures, compressed
//! replies, proxy keys with injected credentials, and logs without values.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness;
use crate::harness::fixtures::{EMAIL, IBAN, IP};
use crate::harness::http::{client, post_bytes, post_json};
use crate::harness::metrics::sample;
use crate::harness::server::TestServer;
use crate::harness::stream::{parse_sse, pieces, sse};
use crate::harness::tokens::{has_token, tokens_in};
use crate::harness::upstream::{chat_completion, FakeUpstream, Recorded, Reply};

/// Replies with a chat completion whose content is every token received, space-separated.
fn chat_echo(r: &Recorded) -> Reply {
    let toks = tokens_in(&r.body_str());
    Reply::chat(&format!("Notiert: {}", toks.join(" ")))
}

#[test]
fn multi_turn_history_gets_the_same_tokens() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[]);
    let mut messages = vec![
        json!({"role": "system", "content": "Du hilfst dem Support."}),
        json!({"role": "user", "content": format!("Mail an {EMAIL}, Konto {IBAN}.")}),
    ];
    let (s, body) = post_json(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": messages}),
    );
    assert_eq!(s, 200);
    let first = up.last().json();
    let reply: Value = serde_json::from_str(&body).unwrap();
    let answer = reply["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(answer.contains(EMAIL) && answer.contains(IBAN));
    messages.push(json!({"role": "assistant", "content": answer}));
    messages
        .push(json!({"role": "user", "content": format!("Und jetzt {IP}, wieder an {EMAIL}.")}));
    let (s, _) = post_json(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": messages}),
    );
    assert_eq!(s, 200);
    let second = up.last().json();
    // the first two messages go upstream byte-identical, the restored answer re-anonymizes to
    // the tokens the upstream itself wrote
    assert_eq!(first["messages"][0], second["messages"][0]);
    assert_eq!(first["messages"][1], second["messages"][1]);
    let toks = tokens_in(first["messages"][1]["content"].as_str().unwrap());
    assert_eq!(
        second["messages"][2]["content"],
        format!("Notiert: {}", toks.join(" "))
    );
    assert!(second["messages"][3]["content"]
        .as_str()
        .unwrap()
        .contains(&toks[0]));
}

/// The lookups of the detection cache so far, hits and misses.
fn cache_lookups(server: &TestServer, at_least: f64) -> (f64, f64) {
    let series = |o: &str| format!("tarnkappe_detection_cache_lookups_total{{outcome=\"{o}\"}}");
    let m = harness::metrics::metrics_when(server, |m| {
        sample(m, &series("hit")) + sample(m, &series("miss")) >= at_least
    });
    (sample(&m, &series("hit")), sample(&m, &series("miss")))
}

#[test]
fn history_sent_again_is_answered_from_the_detection_cache_per_caller() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[]);
    let case = format!(
        "Fallakte: Die Kundin Henrike Albers, E-Mail {EMAIL}, Konto {IBAN}, meldet seit Montag \
         einen Fehler bei der Lastschrift. Sie bittet um Rückruf am Vormittag und um eine \
         schriftliche Bestätigung der Korrektur an die genannte Adresse. Bitte fasse den Fall \
         für die zweite Ebene zusammen und nenne die nächsten Schritte."
    );
    assert!(case.len() >= 256, "long enough to be kept");
    let send = |credential: &str, messages: &Value| {
        let r = client()
            .post(server.url("/v1/chat/completions"))
            .header("authorization", credential)
            .json(&json!({"model": "m", "messages": messages}))
            .send()
            .expect("proxied call");
        assert_eq!(r.status().as_u16(), 200);
        up.last().json()
    };
    let mut messages = json!([{"role": "user", "content": case}]);
    let first = send("Bearer sk-alice", &messages);
    assert_eq!(cache_lookups(&server, 1.0), (0.0, 1.0));
    messages
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "user", "content": "Und bitte kurz."}));
    let second = send("Bearer sk-alice", &messages);
    // the history's text was not detected again, and went upstream as before
    assert_eq!(cache_lookups(&server, 2.0), (1.0, 1.0));
    assert_eq!(second["messages"][0], first["messages"][0]);
    let sent = second["messages"][0]["content"].as_str().unwrap();
    for value in ["Henrike Albers", EMAIL, IBAN] {
        assert!(!sent.contains(value), "{value} went upstream: {sent}");
    }
    // another caller's same text is its own entry
    send("Bearer sk-bob", &messages);
    assert_eq!(cache_lookups(&server, 3.0), (1.0, 2.0));
}

#[test]
fn no_detection_cache_when_it_is_given_no_bytes() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[("TARNKAPPE_DETECTION_CACHE_BYTES", "0")]);
    let text = format!(
        "{} Konto {IBAN}.",
        "Bitte prüfe die Angaben zur Überweisung. ".repeat(10)
    );
    for _ in 0..2 {
        let (s, _) = post_json(
            &server,
            "/v1/chat/completions",
            &json!({"model": "m", "messages": [{"role": "user", "content": text}]}),
        );
        assert_eq!(s, 200);
        assert!(!up.last().body_str().contains(IBAN));
    }
    let m = harness::metrics::metrics_when(&server, |m| m.contains("tarnkappe_http_requests"));
    assert!(
        !m.contains("tarnkappe_detection_cache_lookups_total{"),
        "{m}"
    );
}

#[test]
fn a_100k_code_point_prompt_passes() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[]);
    let filler = "Lorem ipsum dolor sit amet, äöü ß — 😀 ".repeat(3000);
    let mut text: String = filler.chars().take(100_000 - 200).collect();
    text += &format!(" Kontakt {EMAIL}, IBAN {IBAN}.");
    while text.chars().count() < 100_000 {
        text.push('x');
    }
    assert_eq!(text.chars().count(), 100_000);
    let body =
        serde_json::to_vec(&json!({"model": "m", "messages": [{"role": "user", "content": text}]}))
            .unwrap();
    assert!(body.len() > 64 * 1024, "exercises the large-body path");
    let (s, reply) = post_bytes(&server, "/v1/chat/completions", &body);
    assert_eq!(s, 200, "{reply}");
    let got = up.last();
    assert!(!got.body_str().contains(EMAIL) && !got.body_str().contains(IBAN));
    let sent = got.json();
    let content = sent["messages"][0]["content"].as_str().unwrap();
    assert!(
        content.starts_with(&text[..1000]),
        "text without personal data is unchanged"
    );
    let reply: Value = serde_json::from_str(&reply).unwrap();
    let answer = reply["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(answer.contains(EMAIL) && answer.contains(IBAN) && !has_token(answer));
}

/// A body rewritten before the upstream request goes out with its new exact length; a large
/// (deferred) one is rewritten after the header and goes out chunked.
#[test]
fn rewritten_bodies_are_framed_by_their_new_length_or_chunked() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[]);
    let small = serde_json::to_vec(
        &json!({"model": "m", "messages": [{"role": "user", "content": format!("Mail an {EMAIL}.")}]}),
    )
    .unwrap();
    let (s, _) = post_bytes(&server, "/v1/chat/completions", &small);
    assert_eq!(s, 200);
    let got = up.last();
    assert!(!got.body_str().contains(EMAIL));
    assert_eq!(
        got.header("content-length"),
        Some(got.body.len().to_string().as_str())
    );
    assert_eq!(got.header("transfer-encoding"), None);

    let large = serde_json::to_vec(&json!({"model": "m", "messages": [{"role": "user",
        "content": format!("{} Mail an {EMAIL}.", "Lorem ipsum dolor sit amet. ".repeat(3000))}]}))
    .unwrap();
    assert!(large.len() > 64 * 1024);
    let (s, _) = post_bytes(&server, "/v1/chat/completions", &large);
    assert_eq!(s, 200);
    let got = up.last();
    assert!(!got.body_str().contains(EMAIL));
    assert_eq!(got.header("content-length"), None);
    assert_eq!(got.header("transfer-encoding"), Some("chunked"));
}

#[test]
fn malformed_bodies_are_refused_in_the_provider_shape_and_not_forwarded() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[]);
    let bad = format!(
        "{{\"model\": \"m\", \"messages\": [{{\"role\": \"user\", \"content\": \"{EMAIL}\""
    );
    let (s, body) = post_bytes(&server, "/v1/chat/completions", bad.as_bytes());
    assert_eq!(s, 400);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(
        v["error"]["message"].is_string()
            && v["error"]["type"].is_string()
            && v["error"]["code"].is_string()
    );
    assert!(!body.contains(EMAIL), "no value in the error message");

    let (s, body) = post_bytes(&server, "/v1/messages", b"{\"model\": nope}");
    assert_eq!(s, 400);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(v["error"]["type"], "invalid_request_error");

    let (s, body) = post_bytes(&server, "/api/chat", b"[1,2");
    assert_eq!(s, 400);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string());

    // invalid UTF-8
    let (s, _) = post_bytes(&server, "/v1/chat/completions", b"{\"model\":\"\xff\"}");
    assert_eq!(s, 400);

    // a large malformed body takes the other path and is refused too
    let mut big =
        format!("{{\"model\":\"m\",\"messages\":[{{\"role\":\"user\",\"content\":\"{EMAIL} ")
            .into_bytes();
    big.extend(std::iter::repeat_n(b'a', 100_000));
    let (s, body) = post_bytes(&server, "/v1/chat/completions", &big);
    assert_eq!(s, 400, "{body}");
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"]["message"].is_string());

    // unknown POST paths fail closed
    let (s, body) = post_bytes(
        &server,
        "/v1/batches",
        format!("{{\"input\":\"{EMAIL}\"}}").as_bytes(),
    );
    assert_eq!(s, 404);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"]["message"].is_string());

    std::thread::sleep(Duration::from_millis(100));
    assert!(up.requests().iter().all(|r| !r.body_str().contains(EMAIL)));
    assert!(
        up.requests().iter().all(|r| r.body.is_empty()),
        "the upstream received no body"
    );
}

#[test]
fn literal_tokens_stay_and_new_numbers_skip_them() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[]);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": format!("Schon da: [[EMAIL_1]]. Neu: {EMAIL}. Fremd: [[NAME_3]]")}]});
    let (s, reply) = post_json(&server, "/v1/chat/completions", &body);
    assert_eq!(s, 200);
    let sent = up.last().json();
    let c = sent["messages"][0]["content"].as_str().unwrap();
    assert!(
        c.starts_with("Schon da: [[EMAIL_1]]. Neu: [[EMAIL_2]]."),
        "{c}"
    );
    assert!(c.ends_with("Fremd: [[NAME_3]]"));
    // only this exchange's token is restored
    let v: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        v["choices"][0]["message"]["content"],
        format!("Notiert: [[EMAIL_1]] {EMAIL} [[NAME_3]]")
    );
}

#[test]
fn paths_queries_and_headers_pass_through() {
    let up = FakeUpstream::start(|r| {
        if r.method == "GET" {
            Reply::json(&json!({"object": "list", "data": [{"id": "gpt"}]}))
        } else {
            chat_echo(r)
        }
    });
    let url = format!("{}/gateway/openai", up.url());
    let server = TestServer::start(&[("TARNKAPPE_OPENAI_UPSTREAM", url.as_str())]);
    let resp = client()
        .get(server.url("/v1/models?limit=2&x=%C3%A4"))
        .header("authorization", "Bearer sk-abc")
        .header("openai-organization", "org-1")
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["x-request-id"], "req_fake");
    let r = up.last();
    assert_eq!(r.method, "GET");
    assert_eq!(r.path, "/gateway/openai/v1/models?limit=2&x=%C3%A4");
    assert_eq!(r.header("authorization"), Some("Bearer sk-abc"));
    assert_eq!(r.header("openai-organization"), Some("org-1"));
    assert_eq!(r.header("host"), Some(up.addr.to_string().as_str()));

    let resp = client()
        .post(server.url("/v1/chat/completions?api-version=1"))
        .header("x-api-key", "provider-key")
        .header("anthropic-version", "2023-06-01")
        .header("accept-encoding", "gzip")
        .header("content-type", "application/json")
        .body(r#"{"model": "m", "messages": [{"role": "user", "content": "Hallo ohne Daten"}]}"#)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["x-tarnkappe-entities"], "0");
    let r = up.last();
    assert_eq!(r.path, "/gateway/openai/v1/chat/completions?api-version=1");
    assert_eq!(r.header("x-api-key"), Some("provider-key"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("accept-encoding"), Some("identity"));
    assert_eq!(
        r.body_str(),
        r#"{"model": "m", "messages": [{"role": "user", "content": "Hallo ohne Daten"}]}"#,
        "text without personal data is forwarded byte for byte"
    );
}

#[test]
fn gzip_replies_are_decoded_and_restored() {
    let up = FakeUpstream::start(|r| {
        let toks = tokens_in(&r.body_str());
        let body = chat_completion(&toks.join(" "));
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&serde_json::to_vec(&body).unwrap()).unwrap();
        let mut reply = Reply::json(&body);
        reply.body = enc.finish().unwrap();
        reply.content_type = "application/json\r\ncontent-encoding: gzip".into();
        reply
    });
    let server = up.proxy(&[]);
    let (s, body) = post_json(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": EMAIL}]}),
    );
    assert_eq!(s, 200);
    let v: Value = serde_json::from_str(&body).expect("a decoded JSON reply");
    assert_eq!(v["choices"][0]["message"]["content"], EMAIL);
}

#[test]
fn upstream_failures_end_the_response_cleanly() {
    // nothing listens there
    let port = harness::server::free_port();
    let dead = format!("http://127.0.0.1:{port}");
    let server = TestServer::start(&[("TARNKAPPE_OPENAI_UPSTREAM", dead.as_str())]);
    let (s, body) = post_json(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": EMAIL}]}),
    );
    assert!(s == 502 || s == 504, "{s}");
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"]["message"].is_string());
    assert!(!body.contains(EMAIL));

    // reset in the middle of a stream
    let up = FakeUpstream::start(|r| {
        let toks = tokens_in(&r.body_str());
        let text = format!("Hallo {} und noch viel mehr Text danach", toks[0]);
        let mut ev = Vec::new();
        for p in pieces(&text, 3) {
            ev.push((None, json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]}).to_string()));
        }
        let body = sse(&ev);
        let cut = body.len() / 2;
        let mut reply = Reply::stream("text/event-stream", body, 5);
        reply.cut_after = Some(cut);
        reply
    });
    let server = up.proxy(&[]);
    let t = Instant::now();
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": EMAIL}]}))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let text = resp.text().unwrap_or_default();
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "the client's response ended"
    );
    assert!(!has_token(&text));
    for (_, d) in parse_sse(&text) {
        let v: Value = serde_json::from_str(&d).unwrap_or_else(|e| panic!("{d:?}: {e}"));
        assert!(v.is_object());
    }
}

#[test]
fn key_required_routes_inject_the_provider_credential() {
    let up = FakeUpstream::start(chat_echo);
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/team/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\nrequire_key = true\ncredential_env = \"TEST_PROVIDER_KEY\"\n",
        tarnkappe::config::DEFAULT_TOML,
        up.url()
    );
    let server = TestServer::start_with_config(
        &[
            ("TARNKAPPE_API_KEYS", "team:s3cret-key"),
            ("TEST_PROVIDER_KEY", "sk-injected"),
        ],
        &toml,
    );
    let body = json!({"model": "m", "messages": [{"role": "user", "content": EMAIL}]});
    let resp = client()
        .post(server.url("/team/v1/chat/completions"))
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    let v: Value = resp.json().unwrap();
    assert_eq!(v["error"]["type"], "authentication_error");
    let resp = client()
        .post(server.url("/team/v1/chat/completions"))
        .header("x-api-key", "wrong")
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    assert!(up.requests().is_empty());
    let resp = client()
        .post(server.url("/team/v1/chat/completions"))
        .header("x-api-key", "s3cret-key")
        .header("authorization", "Bearer client-should-not-matter")
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let r = up.last();
    assert_eq!(r.header("authorization"), Some("Bearer sk-injected"));
    assert_eq!(
        r.header("x-api-key"),
        None,
        "the proxy key is not forwarded"
    );
    assert_eq!(r.path, "/team/v1/chat/completions");
}

#[test]
fn logs_carry_counts_but_never_values() {
    let up = FakeUpstream::start(|r| {
        let toks = tokens_in(&r.body_str());
        // a mangled token: restored tolerantly and counted
        let mangled = toks[0].replace("[[", "[").replace("]]", "]");
        Reply::chat(&format!("{mangled} und [[NAME_77]]"))
    });
    let server = up.proxy(&[]);
    let (s, body) = post_json(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "user": IP, "messages": [{"role": "user", "content": format!("{EMAIL} {IBAN}")}]}),
    );
    assert_eq!(s, 200);
    assert!(body.contains(EMAIL));
    let (s, _) = post_bytes(
        &server,
        "/v1/chat/completions",
        format!("{{\"broken\": \"{EMAIL}").as_bytes(),
    );
    assert_eq!(s, 400);
    std::thread::sleep(Duration::from_millis(200));
    let log = strip_ansi(&server.log());
    assert!(log.contains("tolerant_restores=1"), "{log}");
    assert!(log.contains("unrestored_tokens=1"), "{log}");
    for v in [EMAIL, IBAN, IP, "maria", "DE8937"] {
        assert!(!log.contains(v), "the log contains a value");
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' {
            for d in it.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn unknown_paths_follow_the_route_policy() {
    let up = FakeUpstream::start(|r| {
        let toks = tokens_in(&r.body_str());
        Reply::json(&json!({"echo": toks.join(" "), "id": "x"}))
    });
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/generic/\"\nupstream = \"{u}\"\nformat = \"openai\"\nunknown = \"generic\"\n\n[[route]]\nprefix = \"/raw/\"\nupstream = \"{u}\"\nformat = \"openai\"\nunknown = \"passthrough\"\n",
        tarnkappe::config::DEFAULT_TOML,
        u = up.url()
    );
    let server = TestServer::start_with_config(&[], &toml);
    let body = json!({"model": "m", "whatever": {"deep": [format!("an {EMAIL}")]}, "type": EMAIL});
    let (s, reply) = post_json(&server, "/generic/v1/custom", &body);
    assert_eq!(s, 200);
    let sent = up.last().json();
    assert!(sent["whatever"]["deep"][0]
        .as_str()
        .unwrap()
        .starts_with("an [[EMAIL_"));
    assert_eq!(sent["type"], EMAIL, "well-known non-text keys stay");
    let v: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(v["echo"], EMAIL);

    let (s, _) = post_json(&server, "/raw/v1/custom", &body);
    assert_eq!(s, 200);
    assert!(
        up.last().body_str().contains(EMAIL),
        "passthrough is an explicit opt-out"
    );
    assert!(strip_ansi(&server.log()).contains("passthrough"));
}

/// A route that cannot be served stops the start with one plain sentence and a non-zero exit,
/// not a panic.
#[test]
fn invalid_routes_stop_the_start_with_a_message() {
    let path = std::env::var("PATH").unwrap_or_default();
    let (status, stderr) = harness::server::refused_start(
        &[
            ("PATH", path.as_str()),
            ("TARNKAPPE_API_KEYS", "t:k"),
            ("TARNKAPPE_OPENAI_UPSTREAM", "ftp://api.example"),
        ],
        &[],
    );
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains(
            "error: invalid proxy route[1]: the upstream must start with http:// or https://"
        ),
        "{stderr}"
    );
}

#[test]
fn a_pasted_api_key_never_reaches_the_upstream() {
    let up = FakeUpstream::start(chat_echo);
    let server = up.proxy(&[]);
    let key = "sk-ant-api03-Zx8Kq2Lm9Pw4Rt7Yv1Bn6Cd3Fg5Hj0Ks-AbCdEf12";
    let dsn = "postgres://app:Xk9mQ2zL@db.intern:5432/shop";
    let content = format!("Warum geht das nicht? ANTHROPIC_API_KEY={key}\nDATABASE_URL={dsn}");
    let (s, body) = post_json(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": content}]}),
    );
    assert_eq!(s, 200, "{body}");
    let sent = up.last().body_str();
    assert!(
        !sent.contains(key) && !sent.contains("Zx8Kq2Lm9Pw4"),
        "{sent}"
    );
    assert!(!sent.contains("Xk9mQ2zL"), "{sent}");
    // The password is cut out of the connection string; user, host and database stay.
    assert!(
        sent.contains("postgres://app:[[SECRET_2]]@db.intern:5432/shop"),
        "{sent}"
    );
    let toks = tokens_in(&sent);
    assert_eq!(toks, ["[[SECRET_1]]", "[[SECRET_2]]"]);
    // The reply names the tokens; the client gets the values back.
    let reply: Value = serde_json::from_str(&body).unwrap();
    let answer = reply["choices"][0]["message"]["content"].as_str().unwrap();
    assert_eq!(answer, format!("Notiert: {key} Xk9mQ2zL"));
}

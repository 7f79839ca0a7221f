//! Values written so that a reader sees them but a byte matcher does not (issue 29, items 4–9
//! and 15), and inputs that made detection quadratic (item 14), over real HTTP through the
//! proxy to the fake upstream. The upstream echoes the user's message, so each test checks both
//! directions: no visible piece of the value reaches the upstream, and the client's reply
//! restores the exact original bytes, plain and streamed. Past the detector's bound on
//! candidates per text, the proxy and the REST API refuse instead of forwarding or answering in
//! part.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::api::{assert_error, post, KEYS, KEY_A};
use crate::harness::http::post_json;
use crate::harness::server::TestServer;
use crate::harness::stream::{parse_sse, pieces, sse};
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

/// Answers with the last message's content, as a chat completion or its stream.
fn echo_user(r: &Recorded) -> Reply {
    let req = r.json();
    let said = req["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned();
    if req["stream"].as_bool() != Some(true) {
        return Reply::chat(&said);
    }
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    let mut events = vec![(None, chunk(json!({"role": "assistant"}), Value::Null))];
    for p in pieces(&said, said.len() as u64 + 5) {
        events.push((None, chunk(json!({ "content": p }), Value::Null)));
    }
    events.push((None, chunk(json!({}), json!("stop"))));
    events.push((None, "[DONE]".to_owned()));
    Reply::stream("text/event-stream", sse(&events), 17)
}

/// The assistant's text of a plain or streamed chat completion.
fn answer_of(reply: &str, stream: bool) -> String {
    if !stream {
        let v: Value = serde_json::from_str(reply).expect("a JSON reply");
        return v["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
    }
    parse_sse(reply)
        .iter()
        .filter_map(|(_, data)| serde_json::from_str::<Value>(data).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

/// Sends `text` as the user's message, plain and streamed: none of `hidden` may reach the
/// upstream, a token must, and the reply must restore `text` byte for byte.
fn assert_hidden(up: &FakeUpstream, server: &TestServer, text: &str, hidden: &[&str]) {
    for stream in [false, true] {
        let body = json!({"model": "m", "stream": stream,
            "messages": [{"role": "user", "content": text}]});
        let (status, reply) = post_json(server, "/v1/chat/completions", &body);
        assert_eq!(status, 200, "{reply}");
        let sent = up.last().json()["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        for piece in hidden {
            assert!(
                !sent.contains(piece),
                "{piece:?} of {text:?} reached the upstream: {sent:?}"
            );
        }
        assert!(sent.contains("[["), "no token for {text:?}: {sent:?}");
        assert_eq!(answer_of(&reply, stream), text, "stream: {stream}");
    }
}

fn with_proxy(cases: &[(&str, &[&str])]) {
    let up = FakeUpstream::start(echo_user);
    let server = up.proxy(&[]);
    for (text, hidden) in cases {
        assert_hidden(&up, &server, text, hidden);
    }
}

const IBAN_PIECES: &[&str] = &["3704", "0044", "0532", "0130"];

#[test]
fn invisible_characters_inside_values_do_not_split_them() {
    with_proxy(&[
        (
            "Schreiben Sie an max.mustermann\u{200B}@example.de bitte.",
            &["max.mustermann", "example.de"],
        ),
        (
            "IBAN DE89\u{200B}3704 0044 0532 0130 00 bitte.",
            IBAN_PIECES,
        ),
        ("Rufen Sie an: 0171\u{2060}2345678.", &["0171", "2345678"]),
        (
            "Meine Steuer-ID ist 860\u{200D}957\u{200C}42719.",
            &["860", "42719"],
        ),
        (
            "Karte 4111\u{FEFF}1111 1111 1111, danke.",
            &["4111", "1111 1111"],
        ),
    ]);
}

#[test]
fn soft_hyphens_inside_values_do_not_split_them() {
    with_proxy(&[
        (
            "Bitte auf DE89 3704 0044 05\u{AD}32 0130 00 überweisen.",
            &["DE89", "3704", "0044", "0130"],
        ),
        (
            "Mail an max.muster\u{AD}mann@example.de senden.",
            &["max.muster", "mann@", "example.de"],
        ),
        (
            "Sehr geehrter Herr Max Mus\u{AD}ter\u{AD}mann, vielen Dank.",
            &["Mus", "ter\u{AD}mann", "mann,"],
        ),
    ]);
}

#[test]
fn fullwidth_forms_and_unicode_spaces_are_read_as_ascii() {
    with_proxy(&[
        (
            "IBAN ＤＥ８９ ３７０４ ００４４ ０５３２ ０１３０ ００ bitte.",
            &["３７０４", "００４４", "０１３０"],
        ),
        (
            "Mobil ０１７１ ２３４５６７８ abends.",
            &["０１７１", "２３４５６７８"],
        ),
        (
            "IBAN DE89\u{2003}3704\u{2003}0044\u{2003}0532\u{2003}0130\u{2003}00 bitte.",
            IBAN_PIECES,
        ),
        (
            "IBAN DE89\u{3000}3704\u{3000}0044\u{3000}0532\u{3000}0130\u{3000}00 bitte.",
            IBAN_PIECES,
        ),
    ]);
}

#[test]
fn iban_layouts_with_spaced_country_double_spaces_and_line_breaks() {
    with_proxy(&[
        ("IBAN: DE 89 3704 0044 0532 0130 00 danke.", IBAN_PIECES),
        ("IBAN: DE89  3704  0044  0532  0130  00 danke.", IBAN_PIECES),
        (
            "Meine IBAN lautet DE89 3704\n0044 0532 0130 00\nDanke!",
            IBAN_PIECES,
        ),
        (
            "Meine IBAN lautet DE89 3704 0044\r\n0532 0130 00 danke.",
            IBAN_PIECES,
        ),
    ]);
}

#[test]
fn escapes_and_entities_in_pasted_text_are_read_as_characters() {
    with_proxy(&[
        (
            r#"Daten: {"name": "J\u00fcrgen M\u00fcller", "ort": "Bonn"}"#,
            &[r"J\u00fcrgen", r"M\u00fcller", "rgen", "ller"],
        ),
        (
            r"Kontakt: max.mustermann\u0040example.de bitte.",
            &["max.mustermann", "example.de"],
        ),
        (
            "Adresse: max.mustermann&#64;example.de oder max.mustermann&#x40;example.org",
            &["max.mustermann", "example.de", "example.org"],
        ),
        (
            "Adresse max.mustermann%40example.de und erika&commat;example.com",
            &["max.mustermann", "example.de", "erika", "example.com"],
        ),
    ]);
}

/// A `mailto:` link the upstream writes keeps its token (docs/proxy.md: no restored value in a
/// model-chosen link target), so only the request side is checked here.
#[test]
fn an_entity_encoded_address_in_a_mailto_link_is_not_forwarded() {
    let up = FakeUpstream::start(echo_user);
    let server = up.proxy(&[]);
    let text = "Link: mailto:max.mustermann&#64;example.de bitte.";
    let body = json!({"model": "m", "messages": [{"role": "user", "content": text}]});
    let (status, reply) = post_json(&server, "/v1/chat/completions", &body);
    assert_eq!(status, 200, "{reply}");
    let sent = up.last().json()["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(sent, "Link: mailto:[[EMAIL_1]] bitte.");
}

#[test]
fn decomposed_umlauts_are_composed() {
    with_proxy(&[(
        "Sehr geehrter Herr Ju\u{308}rgen Mu\u{308}ller, danke für Ihre Nachricht.",
        &["Ju\u{308}rgen", "Mu\u{308}ller", "ller,"],
    )]);
}

#[test]
fn spelled_out_at_dotted_cards_and_spaced_phone_numbers_are_found() {
    with_proxy(&[
        (
            "Mail: max.mustermann(at)example.de bitte.",
            &["max.mustermann", "example.de"],
        ),
        (
            "Mail: max.mustermann [at] example [dot] de bitte.",
            &["max.mustermann", "example"],
        ),
        (
            "Kreditkarte 4111.1111.1111.1111 gültig bis 12/27.",
            &["4111", "1111.1111"],
        ),
        (
            "Rufen Sie mich an: 0171 - 234 56 78.",
            &["0171", "234 56 78"],
        ),
    ]);
}

/// Seconds the proxy takes to answer one message of `text`.
fn seconds_for(server: &TestServer, text: &str) -> f64 {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": text}]});
    let t = Instant::now();
    let (status, reply) = post_json(server, "/v1/chat/completions", &body);
    assert_eq!(status, 200, "{}", &reply[..reply.len().min(300)]);
    t.elapsed().as_secs_f64()
}

#[test]
fn detection_stays_linear_on_repeated_names_and_titles() {
    let up = FakeUpstream::start(|_| Reply::chat("ok"));
    let server = up.proxy(&[]);
    let sentence = "Die Lieferung kommt am Montag, bitte den Hof freihalten und klingeln. ";
    let prose = sentence.repeat(400_000 / sentence.len());
    let base = seconds_for(&server, &prose);
    let mut took = Vec::new();
    for unit in ["Max\n", "Dr. ", "Max Müller\n", "Herr "] {
        let text = unit.repeat(400_000 / unit.len());
        took.push((unit, seconds_for(&server, &text)));
    }
    // Every candidate costs more than a word of prose, so the bound is loose; the quadratic
    // steps took 20 times the prose and more even in a release build.
    for (unit, t) in &took {
        assert!(
            *t < 12.0 * base + 1.0,
            "{unit:?}: {t:.2} s against {base:.2} s for prose ({took:?})"
        );
    }
    // Half the input takes about half the time (a quadratic step takes a quarter).
    let half = seconds_for(&server, &"Max\n".repeat(50_000));
    assert!(
        took[0].1 < 3.0 * half + 0.5,
        "Max x 100000: {:.2} s, x 50000: {half:.2} s",
        took[0].1
    );
    // The proxy stays responsive afterwards.
    assert!(seconds_for(&server, "Hallo") < Duration::from_secs(5).as_secs_f64());
}

#[test]
fn past_the_candidate_bound_nothing_is_forwarded_or_stored() {
    let up = FakeUpstream::start(echo_user);
    let limit = [
        ("TARNKAPPE_MAX_CANDIDATES", "20"),
        ("TARNKAPPE_API_KEYS", KEYS),
    ];
    let server = up.proxy(&limit);
    let many: String = (0..40).map(|i| format!("m{i}@example.de, ")).collect();
    let few = "Mail an anna@example.de bitte.";
    for stream in [false, true] {
        let body = json!({"model": "m", "stream": stream,
            "messages": [{"role": "user", "content": many}]});
        let (status, reply) = post_json(&server, "/v1/chat/completions", &body);
        assert_eq!(status, 413, "{reply}");
        assert!(reply.contains("candidate values"), "{reply}");
        assert!(!reply.contains("example.de"), "{reply}");
    }
    assert!(up.requests().is_empty(), "the upstream was reached");
    // Below the bound the same proxy works as before.
    assert_hidden(&up, &server, few, &["anna@"]);
    let resp = post(
        &server,
        "/api/v1/anonymize",
        Some(KEY_A),
        &json!({ "text": many }),
    );
    let err = assert_error(resp, 413, "too_many_values");
    assert!(!err["message"].as_str().unwrap_or("").contains("example"));
    let resp = post(
        &server,
        "/api/v1/anonymize",
        Some(KEY_A),
        &json!({ "text": few }),
    );
    assert_eq!(resp.status().as_u16(), 200);
}

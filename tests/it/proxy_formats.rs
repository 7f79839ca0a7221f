//! The LLM proxy end to end: the real binary between a client and a fake upstream on loopback.
//! For every format, plain and streaming: the upstream receives no original value, the client
//! receives every original value and no token — with the upstream echoing the tokens it got,
//! in tiny random pieces (split tokens, split UTF-8, several events per read).

use serde_json::{json, Value};

use crate::harness::fixtures::{prompt, EMAIL, IBAN, IP, URL, VALUES};
use crate::harness::http::client;
use crate::harness::server::TestServer;
use crate::harness::stream::parse_sse;
use crate::harness::tokens::has_token;
use crate::harness::upstream::echo::echo;
use crate::harness::upstream::{FakeUpstream, Recorded};

fn start() -> (FakeUpstream, TestServer) {
    let up = FakeUpstream::start(echo);
    let server = up.proxy(&[]);
    (up, server)
}

fn post(
    server: &TestServer,
    path: &str,
    body: &Value,
) -> (u16, reqwest::header::HeaderMap, String) {
    let resp = client()
        .post(server.url(path))
        .header("content-type", "application/json")
        .header("authorization", "Bearer sk-test")
        .body(serde_json::to_vec(body).unwrap())
        .send()
        .expect("request through the proxy");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, headers, resp.text().expect("body"))
}

/// The upstream saw no original value, in raw bytes or after decoding JSON (tool arguments
/// included), but did see tokens.
fn assert_upstream_clean(r: &Recorded) {
    let raw = r.body_str();
    let decoded = all_strings(&r.json());
    for v in VALUES {
        assert!(
            !raw.contains(v),
            "upstream received an original value in {}",
            r.path
        );
        assert!(
            !decoded.contains(v),
            "upstream received an original value (decoded) in {}",
            r.path
        );
    }
    assert!(
        has_token(&raw),
        "upstream received no token at all in {}",
        r.path
    );
}

/// The client text holds every original and no token.
fn assert_client_restored(what: &str, text: &str) {
    for v in VALUES {
        assert!(
            text.contains(v),
            "{what}: missing an original value in {text:?}"
        );
    }
    assert!(
        !has_token(text),
        "{what}: a token reached the client: {text:?}"
    );
    assert!(
        text.contains("ÄÖÜ ß 😀"),
        "{what}: multi-byte text damaged: {text:?}"
    );
}

/// Every string leaf of `v` (and of JSON inside strings), joined by newlines.
fn all_strings(v: &Value) -> String {
    let mut out = String::new();
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
                if let Ok(inner) = serde_json::from_str::<Value>(s) {
                    if inner.is_object() || inner.is_array() {
                        walk(&inner, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}

fn assert_args(what: &str, args: &str) {
    let v: Value = serde_json::from_str(args)
        .unwrap_or_else(|e| panic!("{what}: tool arguments are not JSON ({e}): {args:?}"));
    let to = v["to"].as_str().unwrap_or("");
    assert!(
        VALUES.contains(&to),
        "{what}: tool argument not restored: {to:?}"
    );
    let all = v["all"].as_str().unwrap_or("");
    for val in VALUES {
        assert!(all.contains(val), "{what}: tool arguments miss an original");
    }
    assert_eq!(v["quote"], "a \"b\"");
    assert!(!has_token(args));
}

fn chat_request(stream: bool) -> Value {
    json!({
        "model": "gpt-4o-mini", "stream": stream, "temperature": 0.70, "user": EMAIL,
        "metadata": {"kunde": IBAN},
        "messages": [
            {"role": "system", "content": format!("Kunde {EMAIL}")},
            {"role": "user", "content": [
                {"type": "text", "text": prompt()},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_0", "type": "function",
                "function": {"name": "lookup", "arguments": json!({"email": EMAIL, "ip": IP}).to_string()}}]},
            {"role": "tool", "tool_call_id": "call_0", "content": format!("Gefunden: {IBAN}, {URL}")}
        ],
        "tools": [{"type": "function", "function": {"name": "send", "description": format!("Standard-Empfänger {EMAIL}"),
            "parameters": {"type": "object", "properties": {"to": {"type": "string", "description": format!("z.B. {IP}"), "enum": ["a", "b"]}}, "required": ["to"]}}}]
    })
}

#[test]
fn openai_chat_plain_and_streaming() {
    let (up, server) = start();
    let (status, headers, body) = post(&server, "/v1/chat/completions", &chat_request(false));
    assert_eq!(status, 200, "{body}");
    let r = up.last();
    assert_upstream_clean(&r);
    let sent = r.json();
    // structural values untouched
    assert_eq!(sent["model"], "gpt-4o-mini");
    assert!(r.body_str().contains("\"temperature\":0.7"));
    assert_eq!(
        sent["messages"][1]["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgo="
    );
    assert_eq!(sent["tools"][0]["function"]["name"], "send");
    assert_eq!(
        sent["tools"][0]["function"]["parameters"]["properties"]["to"]["enum"],
        json!(["a", "b"])
    );
    assert_eq!(sent["messages"][3]["tool_call_id"], "call_0");
    // one table: the same value has the same token everywhere, tool arguments stay JSON
    let email_tok = sent["messages"][0]["content"]
        .as_str()
        .unwrap()
        .trim_start_matches("Kunde ")
        .to_owned();
    assert_eq!(sent["user"], email_tok.as_str());
    let args: Value = serde_json::from_str(
        sent["messages"][2]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(args["email"], email_tok.as_str());
    assert!(sent["tools"][0]["function"]["description"]
        .as_str()
        .unwrap()
        .contains(&email_tok));
    assert!(
        headers
            .get("x-tarnkappe-entities")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0)
            >= 9
    );
    assert!(
        headers.get("content-length").is_none()
            || headers["content-length"].to_str().unwrap() == body.len().to_string()
    );
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_client_restored(
        "chat plain",
        reply["choices"][0]["message"]["content"].as_str().unwrap(),
    );
    assert_args(
        "chat plain",
        reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    );

    let (status, headers, body) = post(&server, "/v1/chat/completions", &chat_request(true));
    assert_eq!(status, 200);
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    assert_upstream_clean(&up.last());
    let events = parse_sse(&body);
    assert_eq!(events.last().map(|e| e.1.as_str()), Some("[DONE]"));
    let (mut content, mut args) = (String::new(), String::new());
    let mut ids = 0;
    for (_, data) in &events[..events.len() - 1] {
        let v: Value =
            serde_json::from_str(data).unwrap_or_else(|e| panic!("bad event {data:?}: {e}"));
        for c in v["choices"].as_array().unwrap() {
            content += c["delta"]["content"].as_str().unwrap_or("");
            for t in c["delta"]["tool_calls"].as_array().into_iter().flatten() {
                args += t["function"]["arguments"].as_str().unwrap_or("");
                ids += t.get("id").map_or(0, |_| 1);
            }
        }
    }
    assert_eq!(ids, 1, "the tool-call id must appear exactly once");
    assert_client_restored("chat stream", &content);
    assert_args("chat stream", &args);
    // the streamed text equals the plain one
    assert_eq!(
        content,
        reply["choices"][0]["message"]["content"].as_str().unwrap()
    );
}

#[test]
fn openai_completions_embeddings() {
    let (up, server) = start();
    for stream in [false, true] {
        let (status, _, body) = post(
            &server,
            "/v1/completions",
            &json!({"model": "m", "prompt": prompt(), "suffix": EMAIL, "stream": stream}),
        );
        assert_eq!(status, 200);
        assert_upstream_clean(&up.last());
        let text = if stream {
            parse_sse(&body)
                .iter()
                .filter(|(_, d)| d != "[DONE]")
                .map(|(_, d)| {
                    let v: Value = serde_json::from_str(d).unwrap();
                    v["choices"][0]["text"].as_str().unwrap_or("").to_owned()
                })
                .collect::<String>()
        } else {
            let v: Value = serde_json::from_str(&body).unwrap();
            v["choices"][0]["text"].as_str().unwrap().to_owned()
        };
        assert_client_restored("completions", &text);
    }
    let (status, _, _) = post(
        &server,
        "/v1/embeddings",
        &json!({"model": "m", "input": [prompt(), format!("nur {IBAN}")], "encoding_format": "float"}),
    );
    assert_eq!(status, 200);
    assert_upstream_clean(&up.last());
    // token-id prompts cannot be inspected: refused, not forwarded
    let before = up.requests().len();
    let (status, _, body) = post(
        &server,
        "/v1/embeddings",
        &json!({"model": "m", "input": [[1, 2, 3]]}),
    );
    assert_eq!(status, 400);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"]["message"].is_string());
    assert_eq!(up.requests().len(), before);
}

fn responses_request(stream: bool) -> Value {
    json!({"model": "gpt-4.1", "stream": stream, "instructions": format!("Der Anrufer ist {EMAIL}"),
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": prompt()}]},
            {"type": "function_call", "call_id": "call_9", "name": "crm", "arguments": json!({"iban": IBAN}).to_string()},
            {"type": "function_call_output", "call_id": "call_9", "output": format!("Konto {IBAN} von {IP}")}
        ],
        "tools": [{"type": "function", "name": "send", "description": "Senden", "parameters": {"type": "object", "properties": {}}}]})
}

#[test]
fn openai_responses_plain_and_streaming() {
    let (up, server) = start();
    let (status, _, body) = post(&server, "/v1/responses", &responses_request(false));
    assert_eq!(status, 200, "{body}");
    assert_upstream_clean(&up.last());
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_client_restored(
        "responses plain",
        v["output"][0]["content"][0]["text"].as_str().unwrap(),
    );
    assert_args(
        "responses plain",
        v["output"][1]["arguments"].as_str().unwrap(),
    );
    assert!(v["instructions"].as_str().unwrap().contains(EMAIL));

    let (status, _, body) = post(&server, "/v1/responses", &responses_request(true));
    assert_eq!(status, 200);
    assert_upstream_clean(&up.last());
    let (mut text, mut args, mut last_seq) = (String::new(), String::new(), -1i64);
    let mut completed = None;
    for (name, data) in parse_sse(&body) {
        let v: Value = serde_json::from_str(&data).unwrap();
        assert_eq!(
            name.as_deref(),
            v["type"].as_str(),
            "event line must match the type"
        );
        let seq = v["sequence_number"].as_i64().unwrap();
        assert!(seq > last_seq, "sequence numbers must increase");
        last_seq = seq;
        match v["type"].as_str().unwrap() {
            "response.output_text.delta" => text += v["delta"].as_str().unwrap(),
            "response.function_call_arguments.delta" => args += v["delta"].as_str().unwrap(),
            "response.output_text.done" => {
                assert_client_restored("responses done", v["text"].as_str().unwrap())
            }
            "response.completed" => completed = Some(v),
            _ => {}
        }
    }
    assert_client_restored("responses stream", &text);
    assert_args("responses stream", &args);
    let c = completed.expect("response.completed");
    assert_eq!(
        c["response"]["output"][0]["content"][0]["text"]
            .as_str()
            .unwrap(),
        text
    );
}

fn anthropic_request(stream: bool) -> Value {
    json!({"model": "claude", "max_tokens": 100, "stream": stream,
        "system": [{"type": "text", "text": format!("Ticket von {EMAIL}"), "cache_control": {"type": "ephemeral"}}],
        "metadata": {"user_id": EMAIL},
        "messages": [
            {"role": "user", "content": prompt()},
            {"role": "assistant", "content": [{"type": "text", "text": "Moment."},
                {"type": "tool_use", "id": "toolu_0", "name": "crm", "input": {"name": EMAIL, "nested": {"ip": IP}}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": [{"type": "text", "text": format!("Konto {IBAN}")}]},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}
        ],
        "tools": [{"name": "crm", "description": format!("Sucht {URL}"), "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}}}]})
}

#[test]
fn anthropic_plain_and_streaming() {
    let (up, server) = start();
    let (status, _, body) = post(&server, "/v1/messages", &anthropic_request(false));
    assert_eq!(status, 200, "{body}");
    let r = up.last();
    assert_upstream_clean(&r);
    let sent = r.json();
    assert_eq!(sent["messages"][1]["content"][1]["name"], "crm");
    assert!(sent["messages"][1]["content"][1]["input"]["name"]
        .as_str()
        .unwrap()
        .starts_with("[[EMAIL_"));
    assert_eq!(
        sent["messages"][2]["content"][1]["source"]["data"],
        "iVBORw0KGgo="
    );
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_client_restored("anthropic plain", v["content"][0]["text"].as_str().unwrap());
    assert_args("anthropic plain", &v["content"][1]["input"].to_string());

    let (status, _, body) = post(&server, "/v1/messages", &anthropic_request(true));
    assert_eq!(status, 200);
    assert_upstream_clean(&up.last());
    let (mut text, mut json_src) = (String::new(), String::new());
    let mut pings = 0;
    let mut open = std::collections::HashSet::new();
    for (name, data) in parse_sse(&body) {
        let v: Value = serde_json::from_str(&data).unwrap();
        assert_eq!(
            name.as_deref(),
            v["type"].as_str(),
            "every event keeps its event: line"
        );
        match v["type"].as_str().unwrap() {
            "ping" => pings += 1,
            "content_block_start" => {
                open.insert(v["index"].as_i64().unwrap());
            }
            "content_block_stop" => {
                open.remove(&v["index"].as_i64().unwrap());
            }
            "content_block_delta" => {
                assert!(
                    open.contains(&v["index"].as_i64().unwrap()),
                    "delta outside its block"
                );
                match v["delta"]["type"].as_str().unwrap() {
                    "text_delta" => text += v["delta"]["text"].as_str().unwrap(),
                    "input_json_delta" => json_src += v["delta"]["partial_json"].as_str().unwrap(),
                    other => panic!("unexpected delta {other}"),
                }
            }
            _ => {}
        }
    }
    assert_eq!(pings, 2);
    assert_client_restored("anthropic stream", &text);
    assert_args("anthropic stream", &json_src);
}

#[test]
fn ollama_chat_and_generate_plain_and_streaming() {
    let (up, server) = start();
    for stream in [false, true] {
        let chat = json!({"model": "llama", "stream": stream, "messages": [
            {"role": "system", "content": format!("Kunde {EMAIL}")},
            {"role": "user", "content": prompt(), "images": ["iVBORw0KGgo="]},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "crm", "arguments": {"iban": IBAN}}}]},
            {"role": "tool", "tool_name": "crm", "content": format!("Konto {IBAN}")}],
            "options": {"temperature": 0.2}});
        let (status, headers, body) = post(&server, "/api/chat", &chat);
        assert_eq!(status, 200, "{body}");
        let r = up.last();
        assert_upstream_clean(&r);
        assert_eq!(r.json()["messages"][1]["images"][0], "iVBORw0KGgo=");
        let text: String = if stream {
            assert!(headers["content-type"].to_str().unwrap().contains("ndjson"));
            assert!(!body.contains("\n\n"), "no blank lines in NDJSON");
            body.lines()
                .map(|l| {
                    let v: Value =
                        serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}"));
                    v["message"]["content"].as_str().unwrap_or("").to_owned()
                })
                .collect()
        } else {
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_args(
                "ollama tool call",
                &v["message"]["tool_calls"][0]["function"]["arguments"].to_string(),
            );
            v["message"]["content"].as_str().unwrap().to_owned()
        };
        assert_client_restored("ollama chat", &text);

        let gen = json!({"model": "llama", "stream": stream, "prompt": prompt(), "system": format!("Nutzer {IP}")});
        let (status, _, body) = post(&server, "/api/generate", &gen);
        assert_eq!(status, 200);
        assert_upstream_clean(&up.last());
        let text: String = if stream {
            body.lines()
                .map(|l| {
                    serde_json::from_str::<Value>(l).unwrap()["response"]
                        .as_str()
                        .unwrap_or("")
                        .to_owned()
                })
                .collect()
        } else {
            serde_json::from_str::<Value>(&body).unwrap()["response"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_client_restored("ollama generate", &text);
    }
    // Ollama streams when `stream` is absent
    let (status, headers, _) = post(
        &server,
        "/api/generate",
        &json!({"model": "llama", "prompt": prompt()}),
    );
    assert_eq!(status, 200);
    assert!(headers["content-type"].to_str().unwrap().contains("ndjson"));
}

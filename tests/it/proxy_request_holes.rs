//! Request-side holes an outside review found (issue 11), over real HTTP through the proxy to
//! the fake upstream: every field that is not a provider-defined identifier is anonymized
//! (customer ids, cache keys, Ollama `format`/`template`/`options.stop`, unknown Anthropic
//! blocks, text documents in base64 and `data:` URLs), participant names are replaced whole,
//! duplicate JSON keys and doubled `X-API-Key` headers are refused, Tarnkappe's own credentials
//! never reach the upstream, and a tool result that already holds tokens is searched like any
//! other text. Each test searches the captured upstream body for every original value.

use serde_json::{json, Value};

use crate::harness::fixtures::{base64_of, from_base64, EMAIL};
use crate::harness::http::{client, post_bytes};
use crate::harness::server::TestServer;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

const STEUER_ID: &str = "86095742719";
const KEY: &str = "s3cret-key";

fn answer(_r: &Recorded) -> Reply {
    Reply::chat("ok")
}

fn post(server: &TestServer, path: &str, body: &[u8]) -> (u16, Value) {
    let (status, text) = post_bytes(server, path, body);
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn post_json(server: &TestServer, path: &str, body: &Value) -> (u16, Value) {
    post(server, path, &serde_json::to_vec(body).unwrap())
}

#[test]
fn customer_fields_are_anonymized_and_provider_ids_stay() {
    let up = FakeUpstream::start(answer);
    let server = up.proxy(&[]);
    let body = json!({
        "model": "gpt-test",
        "customer_id": EMAIL,
        "prompt_cache_key": EMAIL,
        "safety_identifier": EMAIL,
        "userId": EMAIL,
        "messages": [
            {"role": "user", "content": "Bitte anlegen.", "external_id": EMAIL},
            {"role": "assistant", "tool_calls": [{"id": "call_7", "type": "function",
                "function": {"name": "anlegen", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_7", "content": "erledigt"}
        ]
    });
    let (status, _) = post_json(&server, "/v1/chat/completions", &body);
    assert_eq!(status, 200);
    let r = up.last();
    assert!(!r.body_str().contains(EMAIL), "{}", r.body_str());
    let sent = r.json();
    for field in [
        "customer_id",
        "prompt_cache_key",
        "safety_identifier",
        "userId",
    ] {
        assert_eq!(sent[field], "[[EMAIL_1]]", "{field}");
    }
    assert_eq!(sent["messages"][0]["external_id"], "[[EMAIL_1]]");
    assert_eq!(sent["model"], "gpt-test");
    assert_eq!(sent["messages"][1]["tool_calls"][0]["id"], "call_7");
    assert_eq!(sent["messages"][2]["tool_call_id"], "call_7");
}

#[test]
fn ollama_format_schema_template_and_stop_words_are_anonymized() {
    let up = FakeUpstream::start(|_| {
        Reply::json(
            &json!({"model": "llama", "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "ok"}, "done": true}),
        )
    });
    let server = up.proxy(&[]);
    let body = json!({
        "model": "llama",
        "stream": false,
        "template": format!("{{{{ .Prompt }}}} Antworte an {EMAIL}."),
        "options": {"temperature": 0.2, "stop": [EMAIL, "###"]},
        "format": {"type": "object", "description": format!("Kontakt von {EMAIL}"),
            "properties": {"mail": {"type": "string", "description": format!("z. B. {EMAIL}")}},
            "required": ["mail"]},
        "messages": [{"role": "user", "content": "Hallo"}]
    });
    let (status, _) = post_json(&server, "/api/chat", &body);
    assert_eq!(status, 200);
    let r = up.last();
    assert!(!r.body_str().contains(EMAIL), "{}", r.body_str());
    let sent = r.json();
    assert_eq!(sent["options"]["stop"], json!(["[[EMAIL_1]]", "###"]));
    assert_eq!(sent["options"]["temperature"], json!(0.2));
    assert!(sent["template"].as_str().unwrap().contains("[[EMAIL_1]]"));
    assert_eq!(sent["format"]["description"], "Kontakt von [[EMAIL_1]]");
    assert_eq!(sent["format"]["properties"]["mail"]["type"], "string");
    assert_eq!(sent["format"]["required"], json!(["mail"]));
}

#[test]
fn anthropic_unknown_blocks_and_base64_text_documents_are_anonymized() {
    let up = FakeUpstream::start(|_| {
        Reply::json(
            &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}}),
        )
    });
    let server = up.proxy(&[]);
    let doc = format!("Vertrag\nKontakt: {EMAIL}\nSteuer-ID: {STEUER_ID}\n");
    let body = json!({
        "model": "claude",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": [
            {"type": "future_block", "data": EMAIL, "name": EMAIL, "id": EMAIL},
            {"type": "document", "source": {"type": "base64", "media_type": "text/plain", "data": base64_of(&doc)}},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            {"type": "text", "text": "Fasse zusammen."}
        ]}]
    });
    let (status, _) = post_json(&server, "/v1/messages", &body);
    assert_eq!(status, 200);
    let r = up.last();
    let raw = r.body_str();
    assert!(!raw.contains(EMAIL) && !raw.contains(STEUER_ID), "{raw}");
    assert!(
        !raw.contains(&base64_of(&doc)),
        "the document went upstream unchanged"
    );
    let sent = r.json();
    let content = &sent["messages"][0]["content"];
    for k in ["data", "name", "id"] {
        assert_eq!(content[0][k], "[[EMAIL_1]]", "unknown block member {k}");
    }
    let source = &content[1]["source"];
    assert_eq!(source["media_type"], "text/plain");
    let text = from_base64(source["data"].as_str().unwrap());
    assert!(!text.contains(EMAIL) && !text.contains(STEUER_ID), "{text}");
    assert_eq!(tokens_in(&text), vec!["[[EMAIL_1]]", "[[STEUERID_1]]"]);
    assert_eq!(content[2]["source"]["data"], "iVBORw0KGgo=", "images pass");
}

#[test]
fn documents_that_cannot_be_read_are_refused_in_the_providers_shape() {
    let up = FakeUpstream::start(answer);
    let server = up.proxy(&[]);
    let pdf = base64_of("%PDF-1.4 Kontakt maria.keller@example.org");
    let anthropic = json!({"model": "claude", "max_tokens": 10, "messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}]}]});
    let (status, v) = post_json(&server, "/v1/messages", &anthropic);
    assert_eq!(status, 400);
    assert_eq!(v["type"], "error");
    assert_eq!(v["error"]["type"], "invalid_request_error");
    let responses = json!({"model": "gpt", "input": [{"role": "user", "content": [
        {"type": "input_file", "filename": "a.pdf", "file_data": format!("data:application/pdf;base64,{pdf}")}]}]});
    let (status, v) = post_json(&server, "/v1/responses", &responses);
    assert_eq!(status, 400);
    assert_eq!(v["error"]["code"], "privacy_proxy_bad_request");
    let not_base64 = json!({"model": "claude", "max_tokens": 10, "messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "base64", "media_type": "text/plain", "data": "%%%"}}]}]});
    let (status, v) = post_json(&server, "/v1/messages", &not_base64);
    assert_eq!(status, 400);
    assert!(!v.to_string().contains("maria"));
    assert!(up.requests().is_empty(), "nothing is forwarded");
}

#[test]
fn responses_text_files_in_data_urls_are_decoded_anonymized_and_reencoded() {
    let up = FakeUpstream::start(answer);
    let server = up.proxy(&[]);
    let file = format!("Rechnung an {EMAIL}");
    let url = format!("data:text/plain;base64,{}", base64_of(&file));
    let body = json!({"model": "gpt", "input": [{"role": "user", "content": [
        {"type": "input_file", "filename": "rechnung.txt", "file_data": url},
        {"type": "input_text", "text": "Was steht darin?"}]}]});
    let (status, _) = post_json(&server, "/v1/responses", &body);
    assert_eq!(status, 200);
    let r = up.last();
    assert!(
        !r.body_str().contains(&base64_of(&file)),
        "the file went upstream unchanged"
    );
    let sent = r.json();
    let data = sent["input"][0]["content"][0]["file_data"]
        .as_str()
        .unwrap();
    let payload = data
        .strip_prefix("data:text/plain;base64,")
        .expect("still a data URL of the same type");
    assert_eq!(from_base64(payload), "Rechnung an [[EMAIL_1]]");
}

#[test]
fn participant_names_are_replaced_whole_in_the_identifier_alphabet() {
    let up = FakeUpstream::start(|r| {
        // the model greets the participant by the name it was given
        let name = r.json()["messages"][0]["name"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        Reply::chat(&format!("Hallo {name}!"))
    });
    let server = up.proxy(&[]);
    let pattern = |s: &str| {
        !s.is_empty()
            && s.len() <= 64
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    for (name, content) in [
        (
            "Max_Mustermann",
            "Ich bin Max Mustermann und brauche Hilfe.",
        ),
        ("MaxMustermann", "Ich brauche Hilfe."),
        ("max-mustermann", "Mein Name ist Max Mustermann."),
        ("mustermann", "Grüße von Max Mustermann"),
    ] {
        let body =
            json!({"model": "m", "messages": [{"role": "user", "name": name, "content": content}]});
        let (status, reply) = post_json(&server, "/v1/chat/completions", &body);
        assert_eq!(status, 200, "{name}");
        let r = up.last();
        let raw = r.body_str().to_lowercase();
        assert!(!raw.contains("mustermann"), "{name}: {raw}");
        let sent = r.json()["messages"][0]["name"].as_str().unwrap().to_owned();
        assert!(pattern(&sent), "{name} → {sent}");
        assert!(sent.starts_with("NAME_"), "{name} → {sent}");
        let said = reply["choices"][0]["message"]["content"].as_str().unwrap();
        assert!(
            said.contains("Max Mustermann"),
            "{name}: restored reply {said}"
        );
    }
    // a name field without personal data stays as it is
    let body = json!({"model": "m", "messages": [{"role": "user", "name": "support_bot", "content": "Hallo"}]});
    let (status, _) = post_json(&server, "/v1/chat/completions", &body);
    assert_eq!(status, 200);
    assert_eq!(up.last().json()["messages"][0]["name"], "support_bot");
}

#[test]
fn duplicate_json_keys_are_refused_by_proxy_and_api() {
    let up = FakeUpstream::start(answer);
    let server = up.proxy(&[("TARNKAPPE_API_KEYS", &format!("team:{KEY}"))]);
    for (path, body) in [
        (
            "/v1/completions",
            r#"{"model":"m","prompt":"hallo","prompt":[1,2,3,4]}"#,
        ),
        (
            "/v1/embeddings",
            r#"{"model":"m","input":"hallo","input":[1,2,3,4]}"#,
        ),
        (
            "/v1/chat/completions",
            r#"{"model":"m","messages":[{"role":"user","content":"a","\u0063ontent":"b"}]}"#,
        ),
    ] {
        let (status, v) = post(&server, path, body.as_bytes());
        assert_eq!(status, 400, "{path}");
        assert_eq!(v["error"]["code"], "privacy_proxy_bad_request", "{path}");
        assert!(v["error"]["message"].as_str().unwrap().contains("twice"));
    }
    assert!(up.requests().is_empty(), "nothing is forwarded");
    let resp = client()
        .post(server.url("/api/v1/anonymize"))
        .header("x-api-key", KEY)
        .header("content-type", "application/json")
        .body(format!(r#"{{"text":"Hallo","text":"{EMAIL}"}}"#))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let v: Value = resp.json().unwrap();
    assert_eq!(v["error"], "bad_request");
    let message = v["message"].as_str().unwrap();
    assert!(message.ends_with('.') && message.matches(". ").count() == 0);
    assert!(!message.contains("maria"));
}

#[test]
fn two_api_keys_are_ambiguous_and_refused() {
    let up = FakeUpstream::start(answer);
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/team/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\nrequire_key = true\n",
        tarnkappe::config::DEFAULT_TOML,
        up.url()
    );
    let server = TestServer::start_with_config(
        &[("TARNKAPPE_API_KEYS", &format!("team:{KEY},other:other-key"))],
        &toml,
    );
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "Hallo"}]});
    for second in [KEY, "other-key", "unknown"] {
        let resp = client()
            .post(server.url("/team/v1/chat/completions"))
            .header("x-api-key", KEY)
            .header("x-api-key", second)
            .json(&body)
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 401, "proxy, second key {second}");
        let resp = client()
            .post(server.url("/api/v1/anonymize"))
            .header("x-api-key", KEY)
            .header("x-api-key", second)
            .json(&json!({"text": "Hallo"}))
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 401, "api, second key {second}");
        let v: Value = resp.json().unwrap();
        assert_eq!(v["error"], "unauthorized");
    }
    assert!(up.requests().is_empty());
    // one key still works on both doors
    let resp = client()
        .post(server.url("/team/v1/chat/completions"))
        .header("x-api-key", KEY)
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
}

#[test]
fn tarnkappe_credentials_never_reach_the_upstream() {
    let up = FakeUpstream::start(answer);
    let server = up.proxy(&[("TARNKAPPE_API_KEYS", &format!("team:{KEY}"))]);
    let page = client().get(server.url("/")).send().unwrap();
    let tenant = page
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("tarnkappe_tenant="))
        .and_then(|v| v.split(';').next())
        .expect("the page issues a tenant cookie")
        .to_owned();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "Hallo"}]});
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .header("cookie", format!("theme=dark; {tenant}; lang=de"))
        .header("x-api-key", KEY)
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let r = up.last();
    assert_eq!(r.header("cookie"), Some("theme=dark; lang=de"));
    assert_eq!(
        r.header("x-api-key"),
        None,
        "our key is ours, not the provider's"
    );
    let value = tenant.split_once('=').unwrap().1;
    for (_, v) in &r.headers {
        assert!(
            !v.contains(value) && !v.contains(KEY),
            "a credential went upstream"
        );
    }
    // only the tenant cookie: the header goes; a provider key (Anthropic) passes
    let resp = client()
        .post(server.url("/v1/messages"))
        .header("cookie", tenant.as_str())
        .header("x-api-key", "sk-ant-provider")
        .json(&json!({"model": "c", "max_tokens": 5, "messages": [{"role": "user", "content": "Hallo"}]}))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let r = up.last();
    assert_eq!(r.header("cookie"), None);
    assert_eq!(r.header("x-api-key"), Some("sk-ant-provider"));
}

#[test]
fn a_tool_result_that_already_holds_tokens_is_searched_like_any_text() {
    let up = FakeUpstream::start(answer);
    let server = up.proxy(&[]);
    let result = format!(
        r#"{{"status": "angelegt", "kontakt": {{"name": "[[NAME_1]]", "telefon": "[[TEL_1]]", "steuer_id": "{STEUER_ID}"}}}}"#
    );
    let body = json!({"model": "m", "messages": [
        {"role": "user", "content": "Lege den Kontakt an."},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "kontakt_anlegen", "arguments": "{\"name\": \"[[NAME_1]]\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": result}
    ]});
    let (status, _) = post_json(&server, "/v1/chat/completions", &body);
    assert_eq!(status, 200);
    let raw = up.last().body_str();
    assert!(!raw.contains(STEUER_ID), "{raw}");
    assert!(raw.contains("[[STEUERID_1]]"), "{raw}");
}

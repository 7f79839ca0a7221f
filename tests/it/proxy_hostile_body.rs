//! Hostile request bodies of the third outside review (issue 45), over real HTTP through the
//! proxy to the echoing fake upstream: objects whose member names the user chose (prompt
//! variables) are text whatever their names, URL fields get every value found elsewhere
//! replaced (also percent-encoded), fetched documents in Anthropic blocks are read like
//! documents (text decoded, PDFs refused), values cut mid-word at a text part boundary are
//! found, and block mode sees a card in a prompt variable named `id`. Each test searches what
//! the upstream received for every original value and the client's reply for the values
//! restored.

use serde_json::{json, Value};

use crate::harness::config::card_blocking_route;
use crate::harness::fixtures::{base64_of, from_base64, two_text_parts, CARD, IBAN};
use crate::harness::http::post_json;
use crate::harness::server::TestServer;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::echo::echo;
use crate::harness::upstream::says::said;
use crate::harness::upstream::{FakeUpstream, Recorded};

const MAIL: &str = "max.mustermann@example.de";
const STEUER_ID: &str = "86095742719";
const PHONE: &str = "+49 171 2345678";

fn assert_absent(r: &Recorded, values: &[&str]) {
    let body = r.body_str();
    for v in values {
        assert!(!body.contains(v), "{v} went upstream: {body}");
    }
}

/// Posts `body`, expects 200, and checks that the client got every one of `values` back.
fn exchange(server: &TestServer, path: &str, body: &Value, values: &[&str]) {
    let (status, text) = post_json(server, path, body);
    assert_eq!(status, 200, "{path}: {text}");
    let got = said(&text);
    for v in values {
        assert!(got.contains(v), "{path}: {v} not restored in {got}");
    }
    assert!(tokens_in(&got).is_empty(), "{path}: {got}");
}

#[test]
fn prompt_variables_are_text_whatever_their_names() {
    let up = FakeUpstream::start(echo);
    let server = up.proxy(&[]);
    let image = "https://img.example/logo.png";
    for stream in [false, true] {
        let body = json!({
            "model": "gpt", "stream": stream,
            "prompt": {"id": "pmpt_1", "version": "2", "variables": {
                "name": MAIL,
                "status": IBAN,
                "type": PHONE,
                "url": format!("Steuer-ID {STEUER_ID}"),
                "id": STEUER_ID,
                "kunde": {"type": "input_text", "text": format!("Kontakt {MAIL}")},
                "bild": {"type": "input_image", "image_url": image, "detail": "auto"}
            }},
            "input": [{"role": "user", "content": [{"type": "input_text",
                "text": format!("Schreib an {MAIL}.")}]}]
        });
        exchange(&server, "/v1/responses", &body, &[MAIL, IBAN, STEUER_ID]);
        let r = up.last();
        assert_absent(&r, &[MAIL, IBAN, STEUER_ID, "2345678"]);
        let sent = r.json();
        let prompt = &sent["prompt"];
        assert_eq!(prompt["id"], "pmpt_1", "the prompt's own id stays");
        assert_eq!(prompt["version"], "2");
        let vars = &prompt["variables"];
        let mail = &tokens_in(&r.body_str())[0];
        assert_eq!(&vars["name"], mail, "{vars}");
        assert_eq!(
            vars["kunde"]["type"], "input_text",
            "a typed variable keeps its type"
        );
        assert_eq!(vars["kunde"]["text"], format!("Kontakt {mail}"));
        assert_eq!(vars["bild"]["type"], "input_image");
        assert_eq!(vars["bild"]["image_url"], image);
        assert_eq!(vars["bild"]["detail"], "auto");
        for k in ["status", "type", "id"] {
            let v = vars[k].as_str().unwrap();
            assert!(v.starts_with("[[") && tokens_in(v).len() == 1, "{k}: {v}");
        }
    }
}

#[test]
fn block_mode_sees_a_card_in_a_prompt_variable_named_id() {
    let up = FakeUpstream::start(echo);
    let toml = card_blocking_route(&up.url());
    let server = TestServer::start_with_config(&[], &toml);
    for stream in [false, true] {
        for key in ["id", "name", "type"] {
            let body = json!({"model": "gpt", "stream": stream,
                "prompt": {"id": "pmpt_1", "variables": {key: CARD}},
                "input": "Bitte zahlen."});
            let (status, text) = post_json(&server, "/karten/responses", &body);
            assert_eq!(status, 422, "{key}: {text}");
            let reply: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(reply["error"]["code"], "privacy_proxy_policy_blocked");
            assert!(!text.contains(CARD));
        }
    }
    assert!(up.requests().is_empty(), "nothing went upstream");
    let plain = json!({"model": "gpt", "prompt": {"id": "pmpt_1", "variables": {"id": "42"}},
        "input": "Hallo"});
    assert_eq!(post_json(&server, "/karten/responses", &plain).0, 200);
}

#[test]
fn values_in_url_fields_get_their_tokens() {
    let up = FakeUpstream::start(echo);
    let server = up.proxy(&[]);
    let encoded = MAIL.replace('@', "%40");
    let with_mail = format!("https://img.example/p.png?email={MAIL}&cc={encoded}");
    // base64 that happens to hold a value found in the text: an image is never touched
    let data_url = format!("data:image/png;base64,iVBORw0KGgo{IBAN}AAAA");
    let text = format!("Schreib an {MAIL}, IBAN {IBAN}.");
    for stream in [false, true] {
        let chat = json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": with_mail, "detail": "low"}},
            {"type": "image_url", "image_url": {"url": data_url}}]}]});
        exchange(&server, "/v1/chat/completions", &chat, &[MAIL, IBAN]);
        let r = up.last();
        assert_absent(&r, &[MAIL, &encoded]);
        let sent = r.json();
        let url = sent["messages"][0]["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap();
        let mail = &tokens_in(&r.body_str())[0];
        assert_eq!(
            url,
            format!("https://img.example/p.png?email={mail}&cc={mail}")
        );
        assert_eq!(
            sent["messages"][0]["content"][1]["image_url"]["detail"],
            "low"
        );
        assert_eq!(
            sent["messages"][0]["content"][2]["image_url"]["url"],
            data_url
        );

        let responses = json!({"model": "gpt", "stream": stream, "input": [{"role": "user", "content": [
            {"type": "input_text", "text": text},
            {"type": "input_image", "image_url": with_mail}]}]});
        exchange(&server, "/v1/responses", &responses, &[MAIL, IBAN]);
        let r = up.last();
        assert_absent(&r, &[MAIL, &encoded]);

        let anthropic = json!({"model": "c", "max_tokens": 50, "stream": stream, "messages": [{"role": "user", "content": [
            {"type": "text", "text": text},
            {"type": "document", "source": {"type": "url", "url": format!("https://docs.example/a.pdf?to={encoded}")}},
            {"type": "image", "source": {"type": "url", "url": with_mail}}]}]});
        exchange(&server, "/v1/messages", &anthropic, &[MAIL, IBAN]);
        let r = up.last();
        assert_absent(&r, &[MAIL, &encoded]);
        let sent = r.json();
        let mail = &tokens_in(&r.body_str())[0];
        assert_eq!(
            sent["messages"][0]["content"][1]["source"]["url"],
            format!("https://docs.example/a.pdf?to={mail}")
        );
        assert_eq!(sent["messages"][0]["content"][1]["source"]["type"], "url");
    }
}

const PAGE: &str = "https://example.com/kontakt";

/// An Anthropic web fetch of [`PAGE`] whose result, of type `ty` (the known one, or one the
/// proxy does not know), holds `document`; the result's address carries a query.
fn fetched(stream: bool, ty: &str, document: Value) -> Value {
    json!({"model": "c", "max_tokens": 50, "stream": stream, "messages": [
        {"role": "user", "content": "Lies die Seite."},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch",
                "input": {"url": PAGE}},
            {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1", "content": {
                "type": ty, "url": format!("{PAGE}?lang=de"),
                "content": document, "retrieved_at": "2025-08-25T10:30:00Z"}}]},
        {"role": "user", "content": "Fasse zusammen."}]})
}

fn text_document(media_type: &str, data: &[u8]) -> Value {
    json!({"type": "document", "title": "Kontakt",
        "source": {"type": "base64", "media_type": media_type, "data": base64_of(data)},
        "citations": {"enabled": true}})
}

#[test]
fn fetched_text_documents_are_decoded_and_anonymized() {
    let up = FakeUpstream::start(echo);
    let server = up.proxy(&[]);
    let page = format!("Kontakt: Max Mustermann, {MAIL}, IBAN {IBAN}\n");
    for stream in [false, true] {
        for ty in ["web_fetch_result", "web_fetch_result_v2"] {
            let body = fetched(stream, ty, text_document("text/plain", page.as_bytes()));
            // the tool input is text: the page's address is a value there
            exchange(&server, "/v1/messages", &body, &[PAGE]);
            let r = up.last();
            assert_absent(&r, &[MAIL, IBAN, &base64_of(page.as_bytes())]);
            let sent = r.json();
            let page_token = sent["messages"][1]["content"][0]["input"]["url"]
                .as_str()
                .unwrap();
            assert_eq!(tokens_in(page_token), [page_token]);
            let result = &sent["messages"][1]["content"][1]["content"];
            // an address is not run through the detector, but the value found elsewhere is
            // replaced in it
            assert_eq!(result["url"], format!("{page_token}?lang=de"), "{ty}");
            if ty == "web_fetch_result" {
                // a known block's timestamp is structure; in an unknown block all is text
                assert_eq!(result["retrieved_at"], "2025-08-25T10:30:00Z");
            }
            let source = &result["content"]["source"];
            assert_eq!(source["media_type"], "text/plain");
            let text = from_base64(source["data"].as_str().unwrap());
            assert!(!text.contains("Mustermann"), "{ty}: {text}");
            assert_eq!(tokens_in(&text).len(), 3, "{ty}: {text}");
        }
    }
}

#[test]
fn fetched_pdfs_are_refused() {
    let up = FakeUpstream::start(echo);
    let server = up.proxy(&[]);
    let pdf = format!("%PDF-1.4 Kontakt {MAIL}");
    for stream in [false, true] {
        for ty in ["web_fetch_result", "web_fetch_result_v2"] {
            let body = fetched(stream, ty, text_document("application/pdf", pdf.as_bytes()));
            let (status, text) = post_json(&server, "/v1/messages", &body);
            assert_eq!(status, 400, "{ty}: {text}");
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["type"], "error");
            assert_eq!(v["error"]["type"], "invalid_request_error");
            assert!(!text.contains("mustermann"));
        }
    }
    assert!(up.requests().is_empty(), "nothing is forwarded");
}

#[test]
fn values_cut_mid_word_at_a_part_boundary_are_replaced() {
    let up = FakeUpstream::start(echo);
    let server = up.proxy(&[]);
    let cases = [
        (
            "Mail max.mustermann",
            "@example.de bitte",
            MAIL,
            ["max.mustermann", "@example.de"],
        ),
        (
            "Steuer-ID 860957",
            "42719 danke",
            STEUER_ID,
            ["860957", "42719"],
        ),
    ];
    for stream in [false, true] {
        for (a, b, value, pieces) in cases {
            for (path, body) in two_text_parts(stream, a, b) {
                exchange(&server, path, &body, &[value]);
                let r = up.last();
                assert_absent(&r, &pieces);
                let sent = r.json();
                let parts = sent
                    .pointer("/messages/0/content")
                    .or_else(|| sent.pointer("/input/0/content"))
                    .unwrap();
                let first = parts[0]["text"].as_str().unwrap();
                let second = parts[1]["text"].as_str().unwrap();
                assert_eq!(tokens_in(first).len(), 1, "{path}: {first}");
                assert!(!has_digit_or_at(second), "{path}: {second}");
            }
        }
    }
}

fn has_digit_or_at(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit() || c == '@')
}

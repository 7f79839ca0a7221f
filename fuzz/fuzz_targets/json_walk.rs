//! Fuzz target for the JSON walkers of every wire format: the request walk (anonymize a body
//! for an endpoint) must refuse or produce valid JSON, and the reply walk (restore the tokens
//! of that exchange in the rewritten document) must not panic. Byte 0 picks the format and
//! endpoint.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tarnkappe::config::WireFormatName;
use tarnkappe::detect::Detector;
use tarnkappe::proxy::anon::anonymize_body;
use tarnkappe::proxy::format::{for_name, GENERIC};
use tarnkappe::proxy::restore::restore_tree;
use tarnkappe::json;
use tarnkappe::tokens::TolerantRestorer;

const CASES: [(WireFormatName, &str); 10] = [
    (WireFormatName::Openai, "/v1/chat/completions"),
    (WireFormatName::Openai, "/v1/responses"),
    (WireFormatName::Openai, "/v1/completions"),
    (WireFormatName::Openai, "/v1/embeddings"),
    (WireFormatName::Openai, "/v1/other"),
    (WireFormatName::Anthropic, "/v1/messages"),
    (WireFormatName::Anthropic, "/v1/messages/count_tokens"),
    (WireFormatName::Ollama, "/api/chat"),
    (WireFormatName::Ollama, "/api/generate"),
    (WireFormatName::Ollama, "/api/embed"),
];

fn detector() -> &'static Detector {
    static D: OnceLock<Detector> = OnceLock::new();
    D.get_or_init(Detector::new)
}

fuzz_target!(|data: &[u8]| {
    let [pick, body @ ..] = data else {
        return;
    };
    let (name, path) = CASES[*pick as usize % CASES.len()];
    let format = for_name(name);
    let endpoint = format.endpoint(path).unwrap_or(GENERIC);
    let Ok(a) = anonymize_body(detector(), format, endpoint, body) else {
        return;
    };
    let out = a.body.as_deref().unwrap_or(body);
    let text = std::str::from_utf8(out).expect("a rewritten body is UTF-8");
    let mut node = json::parse(text).expect("a rewritten body is JSON");
    let ex = TolerantRestorer::new(a.table.entries());
    restore_tree(&mut node, &ex, &[]);
    json::parse(&node.to_json_string()).expect("a restored document is JSON");
});

//! Request side: anonymize every text-bearing string of a JSON body with one token table per
//! exchange.
//!
//! Two passes over the same walk order: the first detects values in every text string (and
//! reserves literal tokens already present), the second replaces every exact occurrence of any
//! detected value in every text string, issuing tokens in order of first occurrence in the
//! document. A value found anywhere is therefore replaced everywhere, and the restored history
//! of a conversation anonymizes to the same tokens on every turn.

mod collect;
mod error;
mod identifier;
mod replace;
mod url;
mod values;

use std::sync::Arc;

use super::format::WireFormat;
use super::thinking::SignedTexts;
use super::walk::walk_request;
use crate::detect::values::ValueMatcher;
use crate::detect::Detector;
use crate::detection_cache::Scope;
use crate::json::{self, Node};
use crate::policy::Policy;
use crate::tokens::{RowIndex, TokenTable};
use collect::Collector;
pub(crate) use error::RewriteError;
use replace::Replacer;
use values::Values;

/// The rewritten request.
pub struct RewrittenBody {
    /// `None` when nothing was replaced: the original bytes are forwarded unchanged.
    pub body: Option<Vec<u8>>,
    pub table: TokenTable,
    /// Replaced occurrences.
    pub count: usize,
}

pub fn anonymize_body(
    detector: &Detector,
    format: &dyn WireFormat,
    endpoint: &str,
    body: &[u8],
) -> Result<RewrittenBody, RewriteError> {
    anonymize_body_in(detector, None, format, endpoint, body)
}

/// [`anonymize_body`] under a policy (`None`: every type, nothing added or allowed). Literal
/// tokens of the policy's own prefixes are reserved like the built-in ones.
pub(crate) fn anonymize_body_in(
    detector: &Detector,
    policy: Option<&Policy>,
    format: &dyn WireFormat,
    endpoint: &str,
    body: &[u8],
) -> Result<RewrittenBody, RewriteError> {
    let job = Job {
        limits: Limits::default(),
        seed: TokenTable::new(),
        signed: None,
        cache: None,
    };
    anonymize(
        detector,
        policy,
        format,
        endpoint,
        body,
        job,
        Original::Drop,
    )
    .map(|(rewritten, _)| rewritten)
}

/// Bounds on the work one request may cause.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The most distinct values (`api.max_values_per_request`).
    pub values: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            values: crate::config::DEFAULT_MAX_VALUES_PER_REQUEST,
        }
    }
}

/// How one request is anonymized: its bounds, the table its tokens are issued from (a
/// conversation's earlier tokens, or a fresh one), the signed thinking texts that replace the
/// blocks sent back with a known signature (`crate::proxy::thinking`), and the findings kept
/// of texts the caller sent before under this policy (`None`: every text is detected).
pub(crate) struct Job<'a> {
    pub limits: Limits,
    pub seed: TokenTable,
    pub signed: Option<Arc<SignedTexts>>,
    pub cache: Option<Scope<'a>>,
}

/// [`anonymize_body_in`], also returning the body as the client wrote it, parsed, whenever a
/// value was replaced: the reply side reads the client's own token forms from it
/// ([`crate::proxy::reply::exchange_for`]) instead of parsing the body a second time.
pub(crate) fn anonymize_keeping_original(
    detector: &Detector,
    policy: Option<&Policy>,
    format: &dyn WireFormat,
    endpoint: &str,
    body: &[u8],
    job: Job<'_>,
) -> Result<(RewrittenBody, Option<Node>), RewriteError> {
    anonymize(
        detector,
        policy,
        format,
        endpoint,
        body,
        job,
        Original::Keep,
    )
}

/// Whether [`anonymize`] also returns the parsed body as the client wrote it (a copy of the
/// tree before replacing: the proxy's reply side reads it, the other callers do not).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Original {
    Keep,
    Drop,
}

fn anonymize(
    detector: &Detector,
    policy: Option<&Policy>,
    format: &dyn WireFormat,
    endpoint: &str,
    body: &[u8],
    job: Job<'_>,
    original: Original,
) -> Result<(RewrittenBody, Option<Node>), RewriteError> {
    let Job {
        limits,
        seed: mut table,
        signed,
        cache,
    } = job;
    let text = std::str::from_utf8(body).map_err(|_| RewriteError::NotUtf8)?;
    let mut root = match json::parse_unique(text) {
        Ok(Some(root)) => root,
        Ok(None) => return Err(RewriteError::DuplicateMember),
        // a duplicate anywhere in the body is the reason given, even when the parser stopped
        // earlier: the refusal does not depend on how far parsing got
        Err(_) if crate::json::checks::has_duplicate_key(body) => {
            return Err(RewriteError::DuplicateMember)
        }
        Err(e) => return Err(RewriteError::NotJson(e)),
    };
    if !matches!(root, Node::Obj(_)) {
        return Err(RewriteError::NotObject);
    }
    format.check_request(endpoint, &root)?;
    // blocks sent back as the provider signed them are neither read nor rewritten
    let held = signed.map(|s| s.take_out(&mut root));

    let mut collect = Collector {
        detector,
        policy,
        cache: cache.as_ref(),
        table: &mut table,
        values: Values::default(),
        seen: RowIndex::default(),
        limit: limits.values,
        cuts: Vec::new(),
        refusal: None,
    };
    walk_request(format, &mut root, &mut collect);
    let Collector {
        values,
        refusal,
        cuts,
        ..
    } = collect;
    if let Some(reason) = refusal {
        return Err(reason);
    }
    if values.is_empty() {
        let changed = held.is_some_and(|h| h.put_back(&mut root));
        let unchanged = RewrittenBody {
            body: changed.then(|| root.to_bytes()),
            table,
            count: 0,
        };
        return Ok((unchanged, None));
    }
    // the replacing pass rewrites the tree in place: a copy is cheaper than a second parse
    let as_written = (original == Original::Keep).then(|| root.clone());
    let matcher = ValueMatcher::for_text(values.iter().map(|(_, v)| v), body.len())
        .ok_or(RewriteError::Internal)?;
    // every value gets its row on its first occurrence: no growing while issuing
    table.reserve(values.len());
    let mut replace = Replacer {
        matcher: &matcher,
        values: &values,
        rows: vec![None; values.len()],
        table: &mut table,
        count: 0,
        cuts: &cuts,
        run: 0,
    };
    walk_request(format, &mut root, &mut replace);
    let count = replace.count;
    if let Some(held) = held {
        held.put_back(&mut root);
    }
    // sized for the body as received plus some growth: no doubling copies while writing
    let mut out = String::with_capacity(body.len() + body.len() / 4 + 64);
    root.write(&mut out);
    let rewritten = RewrittenBody {
        body: Some(out.into_bytes()),
        table,
        count,
    };
    Ok((rewritten, as_written))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::EntityType;
    use crate::proxy::format::{anthropic::Anthropic, openai::OpenAi};

    fn run(format: &dyn WireFormat, body: &str) -> (String, usize) {
        let a = anonymize_body(&Detector::new(), format, "chat", body.as_bytes()).unwrap();
        let out = a
            .body
            .map(|b| String::from_utf8(b).unwrap())
            .unwrap_or_else(|| body.to_owned());
        (out, a.count)
    }

    #[test]
    fn numbering_follows_document_order_and_every_occurrence() {
        // the second value appears first in the document (in `system`), so it is number 1
        let body = r#"{"system":"an b@x.de","messages":[{"role":"user","content":"a@x.de und b@x.de"}],"note":"a@x.de"}"#;
        let (out, count) = run(&Anthropic, body);
        assert_eq!(
            out,
            r#"{"system":"an [[EMAIL_1]]","messages":[{"role":"user","content":"[[EMAIL_2]] und [[EMAIL_1]]"}],"note":"[[EMAIL_2]]"}"#
        );
        assert_eq!(count, 4);
    }

    #[test]
    fn structure_stays_and_json_arguments_stay_json() {
        let body = r#"{"model":"a@x.de","messages":[{"role":"user","name":"a@x.de","content":"x"},{"role":"assistant","tool_calls":[{"id":"a@x.de","type":"function","function":{"name":"f","arguments":"{\"to\": \"a@x.de\", \"n\": 1.50}"}}]}],"tools":[{"type":"function","function":{"name":"a@x.de","description":"a@x.de","parameters":{"type":"object","properties":{"a@x.de":{"type":"string","enum":["a@x.de"],"default":"a@x.de"}}}}}]}"#;
        let (out, _) = run(&OpenAi, body);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["model"], "a@x.de");
        assert_eq!(v["messages"][0]["name"], "EMAIL_1", "identifier alphabet");
        assert_eq!(v["messages"][1]["tool_calls"][0]["id"], "a@x.de");
        let args = v["messages"][1]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap();
        // the argument string keeps its bytes but for the replaced literal
        assert_eq!(args, r#"{"to": "[[EMAIL_1]]", "n": 1.50}"#);
        let f = &v["tools"][0]["function"];
        assert_eq!(f["name"], "a@x.de");
        assert_eq!(f["description"], "[[EMAIL_1]]");
        let prop = &f["parameters"]["properties"]["a@x.de"];
        assert_eq!(prop["enum"][0], "a@x.de");
        assert_eq!(prop["default"], "[[EMAIL_1]]");
    }

    #[test]
    fn user_named_objects_are_text_and_addresses_get_the_values_found_elsewhere() {
        let body = r#"{"prompt":{"id":"pmpt_1","variables":{"id":"a@x.de","img":{"type":"input_image","image_url":"https://i.example/?m=a%40x.de","file_id":"file_1"}}},"input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,a@x.de"}]}]}"#;
        let (out, _) = run(&OpenAi, body);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let vars = &v["prompt"]["variables"];
        assert_eq!(v["prompt"]["id"], "pmpt_1");
        assert_eq!(vars["id"], "[[EMAIL_1]]");
        assert_eq!(vars["img"]["image_url"], "https://i.example/?m=[[EMAIL_1]]");
        assert_eq!(
            vars["img"]["file_id"], "file_1",
            "a typed variable keeps its structure"
        );
        assert_eq!(
            v["input"][0]["content"][0]["image_url"],
            "data:image/png;base64,a@x.de"
        );
        // an address alone is not searched
        let (out, count) = run(&OpenAi, r#"{"url":"https://i.example/?m=a@x.de"}"#);
        assert_eq!(
            (out.as_str(), count),
            (r#"{"url":"https://i.example/?m=a@x.de"}"#, 0)
        );
    }

    #[test]
    fn unknown_blocks_read_their_documents_as_documents() {
        let pdf = r#"{"messages":[{"role":"user","content":[{"type":"new_result","url":"u","content":{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="}}}]}]}"#;
        let refused = anonymize_body(&Detector::new(), &Anthropic, "messages", pdf.as_bytes());
        assert!(matches!(refused, Err(RewriteError::Uninspectable(_))));
        let text = r#"{"messages":[{"role":"user","content":[{"type":"new_result","id":"a@x.de","content":[{"type":"text","text":"b@x.de"}]}]}]}"#;
        let (out, _) = run(&Anthropic, text);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let block = &v["messages"][0]["content"][0];
        assert_eq!(block["id"], "[[EMAIL_1]]", "every other member is text");
        assert_eq!(block["content"][0]["text"], "[[EMAIL_2]]");
    }

    #[test]
    fn values_share_one_string() {
        let mut v = Values::default();
        assert!(v.is_empty());
        v.push(EntityType::Person, "Anna");
        v.push(EntityType::EmailAddress, "");
        v.push(EntityType::Location, "Köln");
        assert_eq!(v.len(), 3);
        assert_eq!(v.get(2), (EntityType::Location, "Köln"));
        let all: Vec<(EntityType, &str)> = v.iter().collect();
        assert_eq!(
            all,
            vec![
                (EntityType::Person, "Anna"),
                (EntityType::EmailAddress, ""),
                (EntityType::Location, "Köln")
            ]
        );
    }

    #[test]
    fn only_provider_identifiers_are_structure() {
        let body = r#"{"model":"a@x.de","user_id":"a@x.de","accountId":"a@x.de","tool_call_id":"a@x.de","response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","x-hint":"a@x.de","$comment":"a@x.de","properties":{"m":{"type":"string","pattern":"a@x.de"}}}}}}"#;
        let (out, _) = run(&OpenAi, body);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["model"], "a@x.de");
        assert_eq!(v["tool_call_id"], "a@x.de");
        assert_eq!(v["user_id"], "[[EMAIL_1]]");
        assert_eq!(v["accountId"], "[[EMAIL_1]]");
        let schema = &v["response_format"]["json_schema"]["schema"];
        assert_eq!(schema["x-hint"], "[[EMAIL_1]]");
        assert_eq!(schema["$comment"], "[[EMAIL_1]]");
        assert_eq!(schema["properties"]["m"]["pattern"], "a@x.de");
        let tools = r#"{"tools":[{"type":"mcp","server_url":"https://a@x.de/","server_label":"a@x.de","owner":"a@x.de","function":{"name":"a@x.de","x_note":"a@x.de"}}]}"#;
        let (out, _) = run(&OpenAi, tools);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let tool = &v["tools"][0];
        assert_eq!(tool["server_url"], "https://a@x.de/");
        assert_eq!(tool["server_label"], "a@x.de");
        assert_eq!(tool["function"]["name"], "a@x.de");
        assert_eq!(tool["owner"], "[[EMAIL_1]]");
        assert_eq!(tool["function"]["x_note"], "[[EMAIL_1]]");
    }

    #[test]
    fn a_name_field_becomes_the_token_of_the_name_it_holds_most_of() {
        let body = r#"{"messages":[{"role":"user","name":"max_mustermann_2","content":"Max sagt: ich bin Max Mustermann."}]}"#;
        let (out, _) = run(&OpenAi, body);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let content = v["messages"][0]["content"].as_str().unwrap();
        let name = v["messages"][0]["name"].as_str().unwrap();
        assert!(!content.contains("Mustermann"), "{content}");
        let full = content.rsplit("bin ").next().unwrap().trim_end_matches('.');
        assert_eq!(format!("[[{name}]]"), full, "{out}");
    }

    #[test]
    fn unchanged_bodies_are_not_reserialized() {
        let body =
            "{ \"model\": \"m\", \"messages\": [ {\"role\":\"user\",\"content\":\"Hallo\"} ] }";
        let a = anonymize_body(&Detector::new(), &OpenAi, "chat", body.as_bytes()).unwrap();
        assert!(a.body.is_none() && a.count == 0);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for bad in ["", "[1]", "{\"a\":", "\"x\""] {
            assert!(anonymize_body(&Detector::new(), &OpenAi, "chat", bad.as_bytes()).is_err());
        }
        assert!(anonymize_body(
            &Detector::new(),
            &OpenAi,
            "embeddings",
            br#"{"input":[1,2]}"#
        )
        .is_err());
    }
}

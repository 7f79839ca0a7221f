//! Request side: anonymize every text-bearing string of a JSON body with one token table per
//! exchange.
//!
//! Two passes over the same walk order: the first detects values in every text string (and
//! reserves literal tokens already present), the second replaces every exact occurrence of any
//! detected value in every text string, issuing tokens in order of first occurrence in the
//! document. A value found anywhere is therefore replaced everywhere, and the restored history
//! of a conversation anonymizes to the same tokens on every turn.

use super::embedded::{Embedded, EmbeddedError};
use super::format::{FormatRefusal, WireFormat};
use super::walk::{walk_free, walk_request, TextKind, TextVisitor};
use crate::detect::values::ValueMatcher;
use crate::detect::{DetectError, Detector, EntityType, Everything, Finding};
use crate::json::{self, Node};
use crate::policy::Policy;
use crate::tokens::{finding_byte_ranges, RowIndex, TokenTable};

/// The rewritten request.
pub struct RewrittenBody {
    /// `None` when nothing was replaced: the original bytes are forwarded unchanged.
    pub body: Option<Vec<u8>>,
    pub table: TokenTable,
    /// Replaced occurrences.
    pub count: usize,
}

/// Why a body cannot be rewritten, so it is not forwarded (messages carry no content).
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    #[error("the request body is not valid UTF-8")]
    NotUtf8,
    /// The upstream may read the other copy than the one checked and anonymized here.
    #[error("the request body names the same member twice in one object")]
    DuplicateMember,
    #[error("the request body is not valid JSON ({0})")]
    NotJson(json::ParseError),
    #[error("the request body must be a JSON object")]
    NotObject,
    #[error(transparent)]
    Format(#[from] FormatRefusal),
    /// A value the walk cannot inspect (see [`crate::proxy::walk`]).
    #[error("{0}")]
    Uninspectable(&'static str),
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    #[error("internal error while preparing the rewrite")]
    Internal,
    /// A text past the detector's candidate limit: refused whole, never forwarded in part.
    #[error(transparent)]
    Detect(#[from] DetectError),
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
pub fn anonymize_body_in(
    detector: &Detector,
    policy: Option<&Policy>,
    format: &dyn WireFormat,
    endpoint: &str,
    body: &[u8],
) -> Result<RewrittenBody, RewriteError> {
    anonymize(
        detector,
        policy,
        format,
        endpoint,
        body,
        false,
        TokenTable::new(),
    )
    .map(|(rewritten, _)| rewritten)
}

/// [`anonymize_body_in`], also returning the body as the client wrote it, parsed, whenever a
/// value was replaced: the reply side reads the client's own token forms from it
/// ([`crate::proxy::reply::exchange_for`]) instead of parsing the body a second time. Tokens
/// are issued from `seed` on (the table of a conversation's earlier turns, or a fresh one).
pub fn anonymize_keeping_original(
    detector: &Detector,
    policy: Option<&Policy>,
    format: &dyn WireFormat,
    endpoint: &str,
    body: &[u8],
    seed: TokenTable,
) -> Result<(RewrittenBody, Option<Node>), RewriteError> {
    anonymize(detector, policy, format, endpoint, body, true, seed)
}

fn anonymize(
    detector: &Detector,
    policy: Option<&Policy>,
    format: &dyn WireFormat,
    endpoint: &str,
    body: &[u8],
    keep_original: bool,
    mut table: TokenTable,
) -> Result<(RewrittenBody, Option<Node>), RewriteError> {
    let text = std::str::from_utf8(body).map_err(|_| RewriteError::NotUtf8)?;
    let mut root = match json::parse_unique(text) {
        Ok(Some(root)) => root,
        Ok(None) => return Err(RewriteError::DuplicateMember),
        // as before the check moved into the parser: a duplicate anywhere in the body is the
        // reason given, even when the parser stopped earlier
        Err(_) if crate::json::checks::has_duplicate_key(body) => {
            return Err(RewriteError::DuplicateMember)
        }
        Err(e) => return Err(RewriteError::NotJson(e)),
    };
    if !matches!(root, Node::Obj(_)) {
        return Err(RewriteError::NotObject);
    }
    format.check_request(endpoint, &root)?;

    let mut collect = Collector {
        detector,
        policy,
        table: &mut table,
        values: Values::default(),
        seen: RowIndex::default(),
        refusal: None,
    };
    walk_request(format, &mut root, &mut collect);
    let Collector {
        values, refusal, ..
    } = collect;
    if let Some(reason) = refusal {
        return Err(reason);
    }
    if values.is_empty() {
        let unchanged = RewrittenBody {
            body: None,
            table,
            count: 0,
        };
        return Ok((unchanged, None));
    }
    // the replacing pass rewrites the tree in place: a copy is cheaper than a second parse
    let original = keep_original.then(|| root.clone());
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
    };
    walk_request(format, &mut root, &mut replace);
    let count = replace.count;
    // sized for the body as received plus some growth: no doubling copies while writing
    let mut out = String::with_capacity(body.len() + body.len() / 4 + 64);
    root.write(&mut out);
    let rewritten = RewrittenBody {
        body: Some(out.into_bytes()),
        table,
        count,
    };
    Ok((rewritten, original))
}

/// The values of one request in one string (one allocation for all, not one each), with each
/// value's type and byte range, in order of detection.
#[derive(Default)]
struct Values {
    text: String,
    rows: Vec<(EntityType, usize, usize)>,
}

impl Values {
    fn push(&mut self, t: EntityType, v: &str) {
        let start = self.text.len();
        self.text.push_str(v);
        self.rows.push((t, start, self.text.len()));
    }

    /// Value `i` (panics past the end, like an index).
    fn get(&self, i: usize) -> (EntityType, &str) {
        let (t, start, end) = self.rows[i];
        (t, &self.text[start..end])
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn iter(&self) -> impl Iterator<Item = (EntityType, &str)> + Clone {
        self.rows
            .iter()
            .map(|&(t, start, end)| (t, &self.text[start..end]))
    }
}

struct Collector<'a> {
    detector: &'a Detector,
    policy: Option<&'a Policy>,
    table: &'a mut TokenTable,
    values: Values,
    /// Rows of `values` by value: the first type a value is found as wins, and the
    /// value is stored once.
    seen: RowIndex,
    /// The first reason to refuse the request (the rewrite pass never runs then).
    refusal: Option<RewriteError>,
}

impl Collector<'_> {
    fn collect(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.table.reserve_literal_tokens(s);
        if let Some(p) = self.policy {
            for token in p.reserved_tokens(s) {
                self.table.reserve_token(token);
            }
        }
        let findings = self.detect(s);
        self.keep(s, &findings, None);
    }

    /// The findings of `s`; past the detector's candidate limit none, and the request is
    /// refused.
    fn detect(&mut self, s: &str) -> Vec<Finding> {
        let found = match self.policy {
            Some(p) => self.detector.try_detect_in(s, p),
            None => self.detector.try_detect_in(s, &Everything),
        };
        found.unwrap_or_else(|e| {
            self.refusal.get_or_insert(RewriteError::Detect(e));
            Vec::new()
        })
    }

    fn keep(&mut self, s: &str, findings: &[Finding], only: Option<EntityType>) {
        // room for every finding at once: no growing (and rehashing) value by value
        self.values.rows.reserve(findings.len());
        self.seen.reserve(findings.len(), |r| self.values.get(r).1);
        for (f, range) in findings.iter().zip(finding_byte_ranges(s, findings)) {
            let t = f.entity_type;
            if only.is_some_and(|o| o != t) {
                continue;
            }
            let Some(v) = range.and_then(|(start, end)| s.get(start..end)) else {
                continue;
            };
            if v.is_empty() {
                continue;
            }
            if let Err(hash) = self.seen.find(v, |r| self.values.get(r).1) {
                self.values.push(t, v);
                let row = self.values.len() - 1;
                self.seen.insert(hash, row, |r| self.values.get(r).1);
            }
        }
    }

    /// A participant name written as an identifier (`Max_Mustermann`, `MaxMustermann`,
    /// `max-mustermann`) is also read as the words it joins, capitalised, so that the detector
    /// sees `Max Mustermann`; the names found there join the request's values.
    fn collect_identifier(&mut self, s: &str) {
        self.collect(s);
        let spaced = identifier_words(s)
            .iter()
            .map(|w| capitalised(w))
            .collect::<Vec<_>>()
            .join(" ");
        if !spaced.is_empty() && spaced != s {
            let findings = self.detect(&spaced);
            self.keep(&spaced, &findings, Some(EntityType::Person));
        }
    }
}

impl TextVisitor for Collector<'_> {
    fn text(&mut self, s: &mut String, kind: TextKind) {
        match kind {
            TextKind::JsonSource => match json::parse(s) {
                Ok(mut inner) => walk_free(&mut inner, self),
                Err(_) => self.collect(s),
            },
            TextKind::Base64 | TextKind::DataUrl => match Embedded::decode(s, kind) {
                Ok(e) => self.collect(&e.text),
                Err(e) => {
                    self.refusal.get_or_insert(RewriteError::Embedded(e));
                }
            },
            TextKind::Identifier => self.collect_identifier(s),
            TextKind::Plain => self.collect(s),
        }
    }

    fn refuse(&mut self, reason: &'static str) {
        self.refusal
            .get_or_insert(RewriteError::Uninspectable(reason));
    }
}

/// The words an identifier joins: runs of letters, split where a lower-case letter is followed
/// by an upper-case one (`MaxMustermann` → `Max`, `Mustermann`).
fn identifier_words(s: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_lower = false;
    for (i, c) in s.char_indices() {
        if c.is_alphabetic() {
            if prev_lower && c.is_uppercase() {
                if let Some(st) = start {
                    words.push(&s[st..i]);
                }
                start = Some(i);
            } else if start.is_none() {
                start = Some(i);
            }
            prev_lower = c.is_lowercase();
        } else {
            if let Some(st) = start.take() {
                words.push(&s[st..i]);
            }
            prev_lower = false;
        }
    }
    if let Some(st) = start {
        words.push(&s[st..]);
    }
    words
}

/// `w` with its first letter upper-case and the rest lower-case.
fn capitalised(w: &str) -> String {
    let mut chars = w.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

struct Replacer<'a> {
    matcher: &'a ValueMatcher<'a>,
    values: &'a Values,
    /// Per value: its row in `table` once issued, so that later occurrences need no lookup.
    rows: Vec<Option<usize>>,
    table: &'a mut TokenTable,
    count: usize,
}

impl Replacer<'_> {
    /// The token of value `i` of `values`, issued on its first occurrence.
    fn token(&mut self, i: usize) -> &str {
        let row = match self.rows[i] {
            Some(row) => row,
            None => {
                let (t, v) = self.values.get(i);
                let row = self.table.row_for(t, v);
                self.rows[i] = Some(row);
                row
            }
        };
        &self.table.entries()[row].token
    }
}

impl Replacer<'_> {
    /// `s` with every value replaced by its token, or `None` when it holds none (most strings
    /// of a request: nothing is allocated for them).
    fn replace(&mut self, s: &str) -> Option<String> {
        let mut out: Option<String> = None;
        let mut last = 0;
        for (value, start, end) in self.matcher.find_iter(s) {
            let out = out.get_or_insert_with(|| String::with_capacity(s.len() + 16));
            out.push_str(&s[last..start]);
            out.push_str(self.token(value));
            self.count += 1;
            last = end;
        }
        let mut out = out?;
        out.push_str(&s[last..]);
        Some(out)
    }
}

impl Replacer<'_> {
    /// A participant name that holds a detected value, or any word of a detected person name
    /// (compared case-insensitively, `Max_Mustermann` and `max-mustermann` alike), becomes that
    /// value's bare token as a whole (`NAME_1`): still `[A-Za-z0-9_-]`, with no surname left
    /// beside it. Replies restore `NAME_1` to the name as detected.
    fn replace_identifier(&mut self, s: &str) -> Option<String> {
        let parts: Vec<String> = identifier_words(s)
            .iter()
            .map(|w| w.to_lowercase())
            .collect();
        // The value that accounts for most of the field: `Max Mustermann` rather than `Max`
        // for `Max_Mustermann`.
        let mut best: Option<(usize, usize)> = None;
        let occurring: Vec<usize> = self.matcher.find_iter(s).map(|(v, _, _)| v).collect();
        for (i, (t, v)) in self.values.iter().enumerate() {
            let words = identifier_words(v);
            let mut score = if occurring.contains(&i) {
                words.len().max(1)
            } else {
                0
            };
            if t == EntityType::Person {
                score += words
                    .iter()
                    .filter(|w| w.chars().count() >= 2 && parts.contains(&w.to_lowercase()))
                    .count();
            }
            if score > 0 && best.is_none_or(|(_, b)| score > b) {
                best = Some((i, score));
            }
        }
        let (hit, _) = best?;
        self.count += 1;
        let token = self.token(hit);
        Some(
            token
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
        )
    }
}

impl TextVisitor for Replacer<'_> {
    fn text(&mut self, s: &mut String, kind: TextKind) {
        match kind {
            TextKind::JsonSource => {
                if let Ok(mut inner) = json::parse(s) {
                    let before = self.count;
                    walk_free(&mut inner, self);
                    if self.count != before {
                        *s = inner.to_json_string();
                    }
                } else if let Some(new) = self.replace(s) {
                    *s = new;
                }
            }
            TextKind::Base64 | TextKind::DataUrl => {
                // The collecting pass refused what does not decode; this pass never sees it.
                if let Ok(e) = Embedded::decode(s, kind) {
                    if let Some(new) = self.replace(&e.text) {
                        *s = e.encode(&new);
                    }
                }
            }
            TextKind::Identifier => {
                if let Some(new) = self.replace_identifier(s) {
                    *s = new;
                }
            }
            TextKind::Plain => {
                if let Some(new) = self.replace(s) {
                    *s = new;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::format::{anthropic::Anthropic, openai::OpenAi};
    use aho_corasick::{AhoCorasick, MatchKind};

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
        assert_eq!(args, r#"{"to":"[[EMAIL_1]]","n":1.50}"#);
        let f = &v["tools"][0]["function"];
        assert_eq!(f["name"], "a@x.de");
        assert_eq!(f["description"], "[[EMAIL_1]]");
        let prop = &f["parameters"]["properties"]["a@x.de"];
        assert_eq!(prop["enum"][0], "a@x.de");
        assert_eq!(prop["default"], "[[EMAIL_1]]");
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
    fn identifiers_split_into_their_words() {
        assert_eq!(identifier_words("Max_Mustermann"), ["Max", "Mustermann"]);
        assert_eq!(identifier_words("MaxMustermann"), ["Max", "Mustermann"]);
        assert_eq!(identifier_words("max-mustermann2"), ["max", "mustermann"]);
        assert_eq!(identifier_words("JÖRG_Ölmann"), ["JÖRG", "Ölmann"]);
        assert!(identifier_words("_-42").is_empty());
        assert_eq!(capitalised("mAX"), "Max");
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
    fn both_matchers_find_leftmost_longest() {
        let values = ["Anna", "Anna Schmidt", "na S", "a@x.de"];
        let text = "Anna Schmidt, Anna, a@x.de; Anna Schmid";
        let packed = ValueMatcher::new(values.iter().copied()).unwrap();
        assert!(
            matches!(packed, ValueMatcher::Packed(_)),
            "this CPU has SSSE3/AVX2"
        );
        let automaton = ValueMatcher::Automaton(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(values)
                .unwrap(),
        );
        let expected = vec![(1, 0, 12), (0, 14, 18), (3, 20, 26), (0, 28, 32)];
        assert_eq!(packed.find_iter(text).collect::<Vec<_>>(), expected);
        assert_eq!(automaton.find_iter(text).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn up_to_128_values_stay_packed_and_find_what_the_automaton_finds() {
        let values: Vec<String> = (0..100).map(|i| format!("k{i}.lange@x.de")).collect();
        let text: String = (0..100)
            .rev()
            .map(|i| format!("an k{i}.lange@x.de, "))
            .collect();
        let packed = ValueMatcher::new(values.iter().map(String::as_str)).unwrap();
        assert!(matches!(packed, ValueMatcher::Packed(_)));
        let automaton = ValueMatcher::Automaton(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&values)
                .unwrap(),
        );
        let found: Vec<_> = packed.find_iter(&text).collect();
        assert_eq!(found.len(), 100);
        assert_eq!(found, automaton.find_iter(&text).collect::<Vec<_>>());
    }

    #[test]
    fn many_values_fall_back_to_the_automaton() {
        // the packed searcher takes at most 128 values
        let values: Vec<String> = (0..200).map(|i| format!("wert{i}@x.de")).collect();
        let matcher = ValueMatcher::new(values.iter().map(String::as_str)).unwrap();
        assert!(matches!(matcher, ValueMatcher::Automaton(_)));
        let found: Vec<_> = matcher.find_iter("an wert7@x.de, wert77@x.de").collect();
        assert_eq!(found, vec![(7, 3, 13), (77, 15, 26)]);
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

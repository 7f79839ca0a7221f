//! A policy compiled once at start-up: the checks of its configuration (one sentence per
//! problem), and the automata it runs on every text — one Aho-Corasick automaton for the allow
//! literals, one for the deny terms, one regex for all allow patterns, one regex per custom
//! recognizer. [`Policy`] implements the engine's [`Scope`], so the detector takes it as input.

use std::collections::BTreeMap;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::Regex;

use super::error::PolicyError;
use super::types::{slot, Types};
use crate::config::policies::{Action, PolicyConfig, Validator};
use crate::detect::{validate, Candidate, CustomType, EntityType, Evidence, Scope, Text};

/// Number of built-in types: the length of the per-type tables.
const TYPE_COUNT: usize = EntityType::ALL.len();

pub(crate) use super::types::REQUEST_TERM_PREFIX;
/// Type name of a request's own `deny_terms`.
pub(crate) const REQUEST_TERM_TYPE: &str = "DENY_TERM";

/// Longest regex program a policy may compile (bytes of the compiled form).
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// How far before a custom recognizer's match its context words are looked for (bytes).
const CONTEXT_BEFORE: usize = 50;
/// … and after it.
const CONTEXT_AFTER: usize = 25;

/// Terms matched as whole words, ASCII letters case-insensitive, with the type each gets.
///
/// The automaton holds the terms ASCII-lowercased and searches an ASCII-lowercased copy of the
/// text (same byte offsets), rather than using the automaton's own case folding: folded
/// patterns defeat its SIMD prefilter, and the whole text would be walked byte by byte.
struct Terms {
    matcher: AhoCorasick,
    types: Vec<EntityType>,
}

impl Terms {
    fn new(terms: Vec<(String, EntityType)>) -> Result<Option<Terms>, String> {
        if terms.is_empty() {
            return Ok(None);
        }
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(terms.iter().map(|(t, _)| t.to_ascii_lowercase()))
            .map_err(|e| e.to_string())?;
        Ok(Some(Terms {
            matcher,
            types: terms.into_iter().map(|(_, t)| t).collect(),
        }))
    }

    fn propose(&self, view: &str, out: &mut Vec<Candidate>) {
        let folded = view.to_ascii_lowercase();
        for m in self.matcher.find_iter(&folded) {
            if !word_edges(view, m.start(), m.end()) {
                continue;
            }
            out.push(Candidate {
                entity_type: self.types[m.pattern().as_usize()],
                start: m.start(),
                end: m.end(),
                score: 1.0,
                validated: true,
                evidence: Evidence::default(),
            });
        }
    }
}

/// True when `view[start..end]` neither starts nor ends inside a word.
fn word_edges(view: &str, start: usize, end: usize) -> bool {
    let inner = |c: char| c.is_alphanumeric();
    let first = view[start..end].chars().next().is_some_and(inner);
    let last = view[start..end].chars().next_back().is_some_and(inner);
    let before = view[..start].chars().next_back().is_some_and(inner);
    let after = view[end..].chars().next().is_some_and(inner);
    !((first && before) || (last && after))
}

/// Exact literals, leftmost-longest: the SIMD packed searcher where it applies (up to a few
/// dozen literals on a CPU with the vector instructions it needs — several times faster than
/// an automaton that has to look at every byte), the automaton otherwise.
enum Literals {
    Packed(aho_corasick::packed::Searcher),
    Automaton(AhoCorasick),
}

impl Literals {
    fn new(literals: &[String]) -> Result<Literals, String> {
        let packed = aho_corasick::packed::Config::new()
            .match_kind(aho_corasick::packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(literals)
            .build();
        if let Some(p) = packed {
            return Ok(Literals::Packed(p));
        }
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(literals)
            .map(Literals::Automaton)
            .map_err(|e| e.to_string())
    }

    fn find_all(&self, view: &str, out: &mut Vec<(usize, usize)>) {
        match self {
            Literals::Packed(p) => out.extend(p.find_iter(view).map(|m| (m.start(), m.end()))),
            Literals::Automaton(a) => out.extend(a.find_iter(view).map(|m| (m.start(), m.end()))),
        }
    }
}

struct CustomRecognizer {
    entity_type: EntityType,
    regex: Regex,
    validator: Validator,
    context: Option<AhoCorasick>,
    score: f32,
}

impl CustomRecognizer {
    fn propose(&self, view: &str, out: &mut Vec<Candidate>) {
        for m in self.regex.find_iter(view) {
            if m.is_empty() {
                continue;
            }
            let validated = match self.validator {
                Validator::None => false,
                v if check(v, m.as_str()) => true,
                _ => continue,
            };
            if let Some(words) = &self.context {
                let from = floor_boundary(view, m.start().saturating_sub(CONTEXT_BEFORE));
                let to = ceil_boundary(view, m.end() + CONTEXT_AFTER);
                let near =
                    words.is_match(&view[from..m.start()]) || words.is_match(&view[m.end()..to]);
                if !near {
                    continue;
                }
            }
            out.push(Candidate {
                entity_type: self.entity_type,
                start: m.start(),
                end: m.end(),
                score: self.score,
                validated,
                evidence: Evidence::default(),
            });
        }
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The check digit rule `v` over `value`.
pub(crate) fn check(v: Validator, value: &str) -> bool {
    let digits: Vec<u8> = value
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    match v {
        Validator::None => true,
        Validator::Luhn => validate::luhn(value),
        Validator::Mod97 => validate::mod97_10(value),
        Validator::Mod11 => match digits.split_last() {
            Some((&last, body)) if !body.is_empty() => validate::mod11_10_check(body) == last,
            _ => false,
        },
    }
}

/// One compiled policy.
pub struct Policy {
    pub name: String,
    /// Per type of [`EntityType::ALL`]: detected, and its own minimum score.
    on: [bool; EntityType::ALL.len()],
    min: [Option<f32>; EntityType::ALL.len()],
    custom_min: Vec<(EntityType, f32)>,
    allow_literals: Option<Literals>,
    allow_regex: Option<Regex>,
    deny: Option<Terms>,
    recognizers: Vec<CustomRecognizer>,
    blocked: Vec<EntityType>,
    /// Literal tokens of the policy's own prefixes (`[[PROJEKT_3]]`).
    reserved: Option<Regex>,
    summary: Summary,
}

/// What `GET /api/v1/policy` shows of a policy: its shape, never its terms or patterns.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Summary {
    pub name: String,
    /// Types detected: the built-in ones switched on, then the policy's own.
    pub types: Vec<TypeSummary>,
    pub allow_entries: usize,
    pub allow_patterns: usize,
    pub deny_terms: usize,
    pub recognizers: usize,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct TypeSummary {
    pub entity_type: EntityType,
    pub token_prefix: &'static str,
    pub min_score: f32,
    pub action: &'static str,
    /// `built_in`, or `custom` for a type the policy defines.
    pub origin: &'static str,
}

fn regex(pattern: &str) -> Result<Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => "it is too large".to_owned(),
            other => other
                .to_string()
                .lines()
                .last()
                .unwrap_or("it does not parse")
                .trim()
                .to_owned(),
        })
}

impl Policy {
    /// The built-in behaviour under `name`: every type, default threshold, mask.
    pub fn everything(name: &str) -> Policy {
        Policy::compile(name, &PolicyConfig::default()).unwrap_or_else(|_| unreachable!())
    }

    /// Checks and compiles `config`. The steps run in this order, so the first mistake of a
    /// configuration is the one reported; later steps may name custom types that deny entries
    /// and recognizers declare.
    pub fn compile(name: &str, config: &PolicyConfig) -> Result<Policy, PolicyError> {
        let mut types = Types::new(name);
        let on = switched_on(&types, config.types.as_deref())?;
        let deny_terms = deny_terms(&mut types, config, &on)?;
        let deny_count = deny_terms.len();
        let deny = Terms::new(deny_terms)
            .map_err(|e| types.err(format!("the deny terms cannot be compiled: {e}")))?;
        let recognizers = custom_recognizers(&mut types, config, &on)?;
        let MinScores { min, custom_min } = min_scores(&types, &config.min_score)?;
        let blocked = blocked_types(&types, &config.actions)?;
        let allow_literals = allow_literals(&types, &config.allow)?;
        let allow_regex = allow_patterns(&types, &config.allow_regex)?;
        let reserved = reserved_tokens(&types)?;
        let summary = Summary {
            name: name.to_owned(),
            types: type_summaries(&types, &on, &min, &custom_min, &blocked),
            allow_entries: config.allow.len(),
            allow_patterns: config.allow_regex.len(),
            deny_terms: deny_count,
            recognizers: recognizers.len(),
        };
        Ok(Policy {
            name: name.to_owned(),
            on,
            min,
            custom_min,
            allow_literals,
            allow_regex,
            deny,
            recognizers,
            blocked,
            reserved,
            summary,
        })
    }

    pub(crate) fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The names of the blocked types among `found`, each once, in the order of the policy's
    /// summary. Empty: the request may pass.
    pub(crate) fn blocked_among(
        &self,
        found: impl IntoIterator<Item = EntityType>,
    ) -> Vec<&'static str> {
        if self.blocked.is_empty() {
            return Vec::new();
        }
        let found: Vec<EntityType> = found
            .into_iter()
            .filter(|t| self.blocked.contains(t))
            .collect();
        self.summary
            .types
            .iter()
            .map(|s| s.entity_type)
            .filter(|t| found.contains(t))
            .map(EntityType::name)
            .collect()
    }

    /// Whether `text` already holds a literal token of one of the policy's own prefixes.
    pub(crate) fn holds_reserved_token(&self, text: &str) -> bool {
        self.reserved.as_ref().is_some_and(|r| r.is_match(text))
    }

    /// The literal tokens of the policy's own prefixes in `text`.
    pub(crate) fn reserved_tokens<'t>(
        &self,
        text: &'t str,
    ) -> impl Iterator<Item = &'t str> + use<'_, 't> {
        self.reserved
            .iter()
            .flat_map(move |r| r.find_iter(text).map(|m| m.as_str()))
    }
}

/// Which built-in types a policy detects: all, or those its `types` lists.
fn switched_on(
    types: &Types,
    listed: Option<&[String]>,
) -> Result<[bool; TYPE_COUNT], PolicyError> {
    let Some(listed) = listed else {
        return Ok([true; TYPE_COUNT]);
    };
    let mut on = [false; TYPE_COUNT];
    for n in listed {
        let t = EntityType::from_name(n)
            .ok_or_else(|| types.err(format!("types names the unknown entity type \"{n}\"")))?;
        if let Some(i) = slot(t) {
            on[i] = true;
        }
    }
    Ok(on)
}

/// The deny entries' terms with the type each declares, in configuration order.
fn deny_terms(
    types: &mut Types,
    config: &PolicyConfig,
    on: &[bool; TYPE_COUNT],
) -> Result<Vec<(String, EntityType)>, PolicyError> {
    let mut terms = Vec::new();
    for (i, d) in config.deny.iter().enumerate() {
        let what = format!("deny entry {}", i + 1);
        let t = types.declare(&d.entity_type, d.prefix.as_deref(), &what, on)?;
        if d.terms.is_empty() {
            return Err(types.err(format!("{what} has no terms")));
        }
        for term in &d.terms {
            if term.trim().is_empty() {
                return Err(types.err(format!("{what} has an empty term")));
            }
            terms.push((term.clone(), t));
        }
    }
    Ok(terms)
}

/// The policy's own recognizers, each checked: a regex that does not match the empty text, a score in
/// (0, 1], context words that are words.
fn custom_recognizers(
    types: &mut Types,
    config: &PolicyConfig,
    on: &[bool; TYPE_COUNT],
) -> Result<Vec<CustomRecognizer>, PolicyError> {
    let mut recognizers = Vec::new();
    for (i, r) in config.recognizers.iter().enumerate() {
        let what = format!("recognizer {}", i + 1);
        let t = types.declare(&r.entity_type, r.prefix.as_deref(), &what, on)?;
        let compiled =
            regex(&r.regex).map_err(|e| types.err(format!("{what} has an invalid regex: {e}")))?;
        if compiled.is_match("") {
            return Err(types.err(format!("{what} has a regex that matches the empty text")));
        }
        if !(r.score > 0.0 && r.score <= 1.0) {
            return Err(types.err(format!(
                "{what} has the score {}, but a score must be above 0 and at most 1",
                r.score
            )));
        }
        if r.context.iter().any(|w| w.trim().is_empty()) {
            return Err(types.err(format!("{what} has an empty context word")));
        }
        let context = if r.context.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(&r.context)
                    .map_err(|e| {
                        types.err(format!(
                            "{what} has context words that cannot be compiled: {e}"
                        ))
                    })?,
            )
        };
        recognizers.push(CustomRecognizer {
            entity_type: t,
            regex: compiled,
            validator: r.validator,
            context,
            score: r.score,
        });
    }
    Ok(recognizers)
}

/// The policy's own minimum scores: per built-in type, and per custom type.
struct MinScores {
    min: [Option<f32>; TYPE_COUNT],
    custom_min: Vec<(EntityType, f32)>,
}

fn min_scores(types: &Types, config: &BTreeMap<String, f32>) -> Result<MinScores, PolicyError> {
    let mut scores = MinScores {
        min: [None; TYPE_COUNT],
        custom_min: Vec::new(),
    };
    for (n, &score) in config {
        let t = types.known(n, "min_score")?;
        if !(0.0..=1.0).contains(&score) {
            return Err(types.err(format!(
                "min_score gives {n} the score {score}, but a score must be between 0 and 1"
            )));
        }
        match slot(t) {
            Some(i) => scores.min[i] = Some(score),
            None => scores.custom_min.push((t, score)),
        }
    }
    Ok(scores)
}

/// The types whose findings refuse the request rather than being masked.
fn blocked_types(
    types: &Types,
    actions: &BTreeMap<String, Action>,
) -> Result<Vec<EntityType>, PolicyError> {
    let mut blocked = Vec::new();
    for (n, action) in actions {
        let t = types.known(n, "actions")?;
        if *action == Action::Block {
            blocked.push(t);
        }
    }
    Ok(blocked)
}

/// The allow list's literals as one searcher; an empty entry would allow everything.
fn allow_literals(types: &Types, allow: &[String]) -> Result<Option<Literals>, PolicyError> {
    if let Some(i) = allow.iter().position(|a| a.is_empty()) {
        return Err(types.err(format!("allow entry {} is empty", i + 1)));
    }
    if allow.is_empty() {
        return Ok(None);
    }
    Literals::new(allow)
        .map(Some)
        .map_err(|e| types.err(format!("the allow list cannot be compiled: {e}")))
}

/// The allow patterns as one alternation, each first checked alone so a mistake names its entry.
fn allow_patterns(types: &Types, patterns: &[String]) -> Result<Option<Regex>, PolicyError> {
    for (i, p) in patterns.iter().enumerate() {
        let r = regex(p).map_err(|e| {
            types.err(format!(
                "allow_regex entry {} is an invalid regex: {e}",
                i + 1
            ))
        })?;
        if r.is_match("") {
            return Err(types.err(format!(
                "allow_regex entry {} matches the empty text",
                i + 1
            )));
        }
    }
    if patterns.is_empty() {
        return Ok(None);
    }
    let joined: Vec<String> = patterns.iter().map(|p| format!("(?:{p})")).collect();
    regex(&joined.join("|")).map(Some).map_err(|e| {
        types.err(format!(
            "the allow patterns together cannot be compiled: {e}"
        ))
    })
}

/// A regex for literal tokens of the custom types' prefixes, which a request may not bring in.
fn reserved_tokens(types: &Types) -> Result<Option<Regex>, PolicyError> {
    let prefixes: Vec<&str> = types.custom().map(|c| c.prefix()).collect();
    if prefixes.is_empty() {
        return Ok(None);
    }
    Regex::new(&format!(r"\[\[(?:{})_[0-9]+\]\]", prefixes.join("|")))
        .map(Some)
        .map_err(|e| types.err(format!("the token prefixes cannot be compiled: {e}")))
}

/// The summary rows: the built-in types switched on, then the custom ones by name.
fn type_summaries(
    types: &Types,
    on: &[bool; TYPE_COUNT],
    min: &[Option<f32>; TYPE_COUNT],
    custom_min: &[(EntityType, f32)],
    blocked: &[EntityType],
) -> Vec<TypeSummary> {
    let action = |t: EntityType| {
        if blocked.contains(&t) {
            "block"
        } else {
            "mask"
        }
    };
    let mut listed: Vec<TypeSummary> = EntityType::ALL
        .iter()
        .enumerate()
        .filter(|(i, _)| on[*i])
        .map(|(i, &t)| TypeSummary {
            entity_type: t,
            token_prefix: t.token_prefix(),
            min_score: min[i].unwrap_or(crate::detect::DEFAULT_THRESHOLD),
            action: action(t),
            origin: "built_in",
        })
        .collect();
    for c in types.custom() {
        let t = EntityType::Custom(*c);
        listed.push(TypeSummary {
            entity_type: t,
            token_prefix: c.prefix(),
            min_score: custom_min
                .iter()
                .find(|(x, _)| *x == t)
                .map_or(crate::detect::DEFAULT_THRESHOLD, |(_, s)| *s),
            action: action(t),
            origin: "custom",
        });
    }
    listed
}

impl Scope for Policy {
    fn admits(&self, t: EntityType, score: f32, default: f32) -> bool {
        match slot(t) {
            Some(i) => self.on[i] && score >= self.min[i].unwrap_or(default),
            None => {
                let min = self
                    .custom_min
                    .iter()
                    .find(|(x, _)| *x == t)
                    .map_or(default, |(_, s)| *s);
                score >= min
            }
        }
    }

    fn propose(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let view = text.view();
        if let Some(d) = &self.deny {
            d.propose(view, out);
        }
        for r in &self.recognizers {
            r.propose(view, out);
        }
    }

    fn allowed(&self, text: &Text<'_>, out: &mut Vec<(usize, usize)>) {
        let view = text.view();
        if let Some(a) = &self.allow_literals {
            a.find_all(view, out);
        }
        if let Some(r) = &self.allow_regex {
            out.extend(
                r.find_iter(view)
                    .filter(|m| !m.is_empty())
                    .map(|m| (m.start(), m.end())),
            );
        }
    }
}

/// A request's own `deny_terms` (REST `/anonymize`), all of the type [`REQUEST_TERM_TYPE`].
pub(crate) struct RequestTerms {
    terms: Option<Terms>,
    entity_type: EntityType,
}

impl RequestTerms {
    pub(crate) fn new(terms: &[String]) -> Option<RequestTerms> {
        let entity_type =
            EntityType::Custom(CustomType::intern(REQUEST_TERM_TYPE, REQUEST_TERM_PREFIX));
        let terms = Terms::new(terms.iter().map(|t| (t.clone(), entity_type)).collect()).ok()?;
        Some(RequestTerms { terms, entity_type })
    }

    pub(crate) fn entity_type(&self) -> EntityType {
        self.entity_type
    }
}

/// A policy plus a request's own deny terms.
pub(crate) struct WithTerms<'a> {
    pub policy: &'a Policy,
    pub terms: &'a RequestTerms,
}

impl Scope for WithTerms<'_> {
    fn admits(&self, t: EntityType, score: f32, default: f32) -> bool {
        t == self.terms.entity_type || self.policy.admits(t, score, default)
    }

    fn propose(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        self.policy.propose(text, out);
        if let Some(t) = &self.terms.terms {
            t.propose(text.view(), out);
        }
    }

    fn allowed(&self, text: &Text<'_>, out: &mut Vec<(usize, usize)>) {
        self.policy.allowed(text, out);
    }
}

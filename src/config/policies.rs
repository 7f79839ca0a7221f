//! The `[policies.<name>]` tables of `proxy.toml` as they are written: plain data, read by serde
//! and checked only when they are compiled (`crate::policy::Policy::compile`), where every problem becomes
//! one sentence that names the policy and the entry.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One named policy. Every key is optional: an empty table is the built-in behaviour (all
/// types, default threshold, mask).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// The built-in types that are detected (names as in `GET /entities`); absent: all of them.
    pub types: Option<Vec<String>>,
    /// Minimum score per type (built-in or custom), instead of the default 0.5.
    pub min_score: BTreeMap<String, f32>,
    /// Literal strings never masked (exact, case-sensitive).
    pub allow: Vec<String>,
    /// Regular expressions whose matches are never masked.
    pub allow_regex: Vec<String>,
    /// Terms always masked, grouped by the type they get.
    pub deny: Vec<DenyConfig>,
    /// Recognizers of the policy's own.
    pub recognizers: Vec<RecognizerConfig>,
    /// `mask` (default) or `block` per type (built-in or custom).
    pub actions: BTreeMap<String, Action>,
}

/// Terms that are always masked as `type`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DenyConfig {
    /// A built-in type, or a type of the policy's own (which then needs a token prefix).
    #[serde(rename = "type")]
    pub entity_type: String,
    /// Token prefix of a custom type (`PROJEKT` → `[[PROJEKT_1]]`); default: the type's name.
    #[serde(default)]
    pub prefix: Option<String>,
    pub terms: Vec<String>,
}

/// A custom recognizer: a pattern, an optional check, optional context, a score.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecognizerConfig {
    #[serde(rename = "type")]
    pub entity_type: String,
    #[serde(default)]
    pub prefix: Option<String>,
    pub regex: String,
    #[serde(default)]
    pub validator: Validator,
    /// When given, a match counts only with one of these words shortly before or after it.
    #[serde(default)]
    pub context: Vec<String>,
    #[serde(default = "default_score")]
    pub score: f32,
}

fn default_score() -> f32 {
    0.8
}

/// The built-in checks a custom recognizer may apply to its match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Validator {
    /// Luhn (mod 10) over the digits of the match.
    Luhn,
    /// ISO 7064 MOD 97-10 over the letters and digits of the match (letters count 10–35).
    Mod97,
    /// ISO 7064 MOD 11,10 over the digits of the match; the last digit is the check digit.
    Mod11,
    #[default]
    None,
}

/// What happens to a request in which a type is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    #[default]
    Mask,
    /// Refuse the request (REST 422 `policy_blocked`; proxy: provider-shaped 422, nothing
    /// forwarded), naming the types found, never the values.
    Block,
}

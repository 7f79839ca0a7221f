//! Tolerant restore for one exchange: the canonical `[[NAME_1]]` plus the forms models produce
//! when they mangle a token — `[NAME_1]`, `[[ NAME_1 ]]`, `[[name_1]]`, bare `NAME_1` on word
//! boundaries, markdown-escaped `\[\[NAME\_1\]\]`, markdown-wrapped `_NAME_1_` / `` `NAME_1` ``.
//! Only tokens issued in this exchange are ever replaced; anything else stays as written.
//!
//! The same grammar drives the streaming restorer ([`super::StreamRestorer`]): [`TolerantRestorer::scan`]
//! reports where a possible partial token starts so that exactly that suffix is held back.
//!
//! Two guards keep restoring honest:
//! - The client's own words are never rewritten: a token of which the client's request already
//!   held any tolerant form (`EMAIL_1`, `[NAME_1]`, `[[name_1]]`, …) is restored only from its
//!   canonical form, which the proxy itself issued ([`TolerantRestorer::note_client_text`]). A literal
//!   canonical token in a request is never issued in the first place (its number is skipped).
//! - The output is bounded: with a [`TolerantRestorer::limit_growth`] budget, a form is restored only
//!   while the bytes it adds fit the budget; past it, forms stay as written.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::LazyLock;

use ahash::{AHashMap, AHashSet};

mod forms;

use super::growth::GrowthBudget;
use super::links::{LinkContext, ToolPolicy};
use super::MappingEntry;
use crate::detect::EntityType;

const MAX_SPACES: usize = 2;
const MAX_DIGITS: usize = 6;

/// All known prefixes (every built-in type of `GET /entities`), to count unrestored foreign
/// tokens: built once for the process, since the set is the same for every exchange.
static KNOWN_PREFIXES: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| EntityType::ALL.iter().map(|t| t.token_prefix()).collect());

/// Counters of one exchange (counts only, never values).
#[derive(Debug, Default)]
pub struct RestoreCounts {
    /// Tokens restored from a non-canonical form.
    pub tolerant: AtomicUsize,
    /// Canonical-looking tokens of a known prefix that this exchange did not issue, left as is.
    pub unrestored: AtomicUsize,
    /// Tokens restored in total.
    pub restored: AtomicUsize,
    /// Forms left as written because restoring them would have exceeded the growth budget.
    pub over_budget: AtomicUsize,
    /// Forms left as written in a link or image target (`docs/proxy.md`, "Link targets").
    pub in_link_target: AtomicUsize,
}

/// A token of this exchange: the index of its prefix in [`TolerantRestorer`]'s `prefixes`, and
/// its number.
type TokenKey = (usize, u64);

/// The issued tokens of one exchange and the tolerant grammar over them.
#[derive(Debug, Default)]
pub struct TolerantRestorer {
    /// The exchange's mapping, owned and looked up by row: a restorer is built for every
    /// request, a dense one issues about 80 tokens, and none of their values is copied.
    entries: Vec<MappingEntry>,
    /// Token → index into `entries` (aHash: SipHash would be most of the build).
    values: AHashMap<TokenKey, usize>,
    /// Upper-case prefixes issued in this exchange (a handful: one per entity type at most).
    prefixes: Vec<String>,
    longest_prefix: usize,
    /// First bytes of issued prefixes (upper case), for the bare form.
    first_letters: [bool; 26],
    /// Tokens of which the client's own request held a tolerant form: restored only from their
    /// canonical form.
    client_forms: AHashSet<TokenKey>,
    budget: Option<GrowthBudget>,
    /// What may be restored into tool-call arguments (the route's `tool_arguments`).
    tools: std::sync::Arc<ToolPolicy>,
    pub counts: RestoreCounts,
}

/// Result of matching at one position.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// No token form starts here.
    No,
    /// The text ends while a token form could still complete.
    Partial,
    /// A restorable form of `len` bytes; `canonical` is false for tolerant forms.
    Hit {
        len: usize,
        key: TokenKey,
        canonical: bool,
    },
    /// A canonical token of a known prefix that this exchange did not issue.
    Foreign { len: usize },
}

impl TolerantRestorer {
    pub fn new(entries: Vec<MappingEntry>) -> TolerantRestorer {
        let mut restorer = TolerantRestorer::default();
        restorer.values.reserve(entries.len());
        for (row, e) in entries.iter().enumerate() {
            let Some(inner) = e
                .token
                .strip_prefix("[[")
                .and_then(|t| t.strip_suffix("]]"))
            else {
                continue;
            };
            let Some((prefix, num)) = inner.rsplit_once('_') else {
                continue;
            };
            let Ok(n) = num.parse::<u64>() else { continue };
            let at = match restorer.prefix_index(prefix) {
                Some(at) => at,
                None => {
                    restorer.prefixes.push(prefix.to_owned());
                    restorer.prefixes.len() - 1
                }
            };
            restorer.values.entry((at, n)).or_insert(row);
            restorer.longest_prefix = restorer.longest_prefix.max(prefix.len());
            if let Some(&b) = prefix.as_bytes().first() {
                if b.is_ascii_uppercase() {
                    restorer.first_letters[(b - b'A') as usize] = true;
                }
            }
        }
        restorer.entries = entries;
        restorer
    }

    /// Index of `prefix` among the issued prefixes.
    fn prefix_index(&self, prefix: &str) -> Option<usize> {
        self.prefixes.iter().position(|p| p == prefix)
    }

    /// Records the tolerant forms of this exchange's tokens that occur in `text`, a string of
    /// the client's own request (before anonymization): those tokens are then restored only
    /// from their canonical `[[PREFIX_n]]` form, so that a reply quoting the client's
    /// `EMAIL_1` or `[NAME_1]` keeps it as written.
    pub fn note_client_text(&mut self, text: &str) {
        if self.values.is_empty() {
            return;
        }
        let b = text.as_bytes();
        // Every form has its `_` (or `\_`) at most `reach` bytes after its first byte (two
        // escaped openers, spaces, the letters), so only the bytes shortly before an underscore
        // can start one: a prompt without underscores is passed over at memchr's speed.
        let reach = 16 + self.longest_prefix.max(8);
        let mut i = 0;
        for u in memchr::memchr_iter(b'_', b) {
            i = i.max(u.saturating_sub(reach));
            while i < u {
                i = self.note_client_form(b, i);
            }
        }
    }

    /// [`TolerantRestorer::note_client_text`] at `b[i]`: records the form that starts there,
    /// if any, and returns where to look next.
    fn note_client_form(&mut self, b: &[u8], i: usize) -> usize {
        let c = b[i];
        let candidate = c == b'['
            || c == b'\\'
            || (c.is_ascii_uppercase() && self.first_letters[(c - b'A') as usize]);
        if !candidate {
            return i + 1;
        }
        let before = i.checked_sub(1).map(|j| b[j]);
        let before2 = i.checked_sub(2).map(|j| b[j]);
        let step = if c.is_ascii_uppercase() {
            if bare_boundary_before(before, before2) {
                self.bare(b, i, true)
            } else {
                Step::No
            }
        } else {
            self.bracketed(b, i, true, true)
        };
        match step {
            Step::Hit {
                len,
                key,
                canonical,
            } => {
                if !canonical {
                    self.client_forms.insert(key);
                }
                i + len.max(1)
            }
            _ => i + 1,
        }
    }

    /// Bounds what restoring may add: `initial` bytes now, more with [`TolerantRestorer::grant`]. A
    /// restored value counts with its JSON escaping (the larger of its two lengths), minus the
    /// form it replaces.
    pub fn limit_growth(&mut self, initial: u64) {
        self.budget = Some(GrowthBudget::new(initial));
    }

    /// Restores into tool-call arguments only as `tools` allows.
    pub(crate) fn set_tool_policy(&mut self, tools: std::sync::Arc<ToolPolicy>) {
        self.tools = tools;
    }

    /// What may be restored into tool-call arguments.
    pub(crate) fn tool_policy(&self) -> &ToolPolicy {
        &self.tools
    }

    /// Raises the growth budget by `bytes` (no-op without a budget).
    pub(crate) fn grant(&self, bytes: u64) {
        if let Some(b) = &self.budget {
            b.grant(bytes);
        }
    }

    /// Whether a form was left unrestored because of the growth budget.
    pub(crate) fn budget_exhausted(&self) -> bool {
        self.budget.as_ref().is_some_and(GrowthBudget::exhausted)
    }

    /// Takes `growth` bytes from the budget; false (and nothing taken) when they do not fit.
    fn take_growth(&self, growth: u64) -> bool {
        self.budget.as_ref().is_none_or(|b| b.take(growth))
    }

    /// Restores every form in `text`. With `json_escape`, `text` is the inside of a JSON string
    /// or JSON source text (tool arguments): values are escaped for it and the
    /// markdown-escaped forms are not recognised.
    pub fn restore(&self, text: &str, json_escape: bool) -> String {
        self.restored(text, json_escape)
            .unwrap_or_else(|| text.to_owned())
    }

    /// [`TolerantRestorer::restore`], or `None` when `text` comes out unchanged. Every form
    /// (and every foreign token counted as unrestored) holds an underscore, so a text without
    /// one is passed over at memchr's speed, without a copy.
    pub fn restored(&self, text: &str, json_escape: bool) -> Option<String> {
        memchr::memchr(b'_', text.as_bytes())?;
        let mut links = if json_escape {
            LinkContext::json_source()
        } else {
            LinkContext::default()
        };
        self.restored_in(text, json_escape, &mut links)
    }

    /// [`TolerantRestorer::restored`] of a text that `links` reads on from where it stands
    /// (the next block of a message, a tool argument's value), and goes on reading.
    pub(crate) fn restored_in(
        &self,
        text: &str,
        json_escape: bool,
        links: &mut LinkContext,
    ) -> Option<String> {
        if memchr::memchr(b'_', text.as_bytes()).is_none() {
            links.feed(text.as_bytes());
            return None;
        }
        let mut out = String::with_capacity(text.len() + 16);
        let held = self.scan(text, [None, None], true, json_escape, links, &mut out);
        debug_assert_eq!(held, text.len());
        (out != text).then_some(out)
    }

    /// Scans `text` (whose preceding bytes were `prev`: the last, then the one before it; a
    /// bare form's word boundary looks two bytes back), appending restored output to `out`.
    /// Returns the byte offset from which a possible partial token was held back (`text.len()`
    /// when nothing is held). With `at_end` nothing is held. `links` has read the text before
    /// and reads what is released: a form in a link or image target stays as written.
    pub(crate) fn scan(
        &self,
        text: &str,
        prev: [Option<u8>; 2],
        at_end: bool,
        json_escape: bool,
        links: &mut LinkContext,
        out: &mut String,
    ) -> usize {
        if self.values.is_empty() && !text.contains("[[") {
            out.push_str(text);
            return text.len();
        }
        let b = text.as_bytes();
        let (mut copied, mut fed, mut i) = (0, 0, 0);
        while i < b.len() {
            let c = b[i];
            let candidate = c == b'['
                || (c == b'\\' && !json_escape)
                || (c.is_ascii_uppercase() && self.first_letters[(c - b'A') as usize]);
            if !candidate {
                i += 1;
                continue;
            }
            let before = if i == 0 { prev[0] } else { Some(b[i - 1]) };
            let before2 = match i {
                0 => prev[1],
                1 => prev[0],
                _ => Some(b[i - 2]),
            };
            let step = if c.is_ascii_uppercase() {
                if bare_boundary_before(before, before2) {
                    self.bare(b, i, at_end)
                } else {
                    Step::No
                }
            } else {
                self.bracketed(b, i, at_end, !json_escape)
            };
            match step {
                Step::No => i += 1,
                Step::Partial => {
                    links.feed(&b[fed..i]);
                    out.push_str(&text[copied..i]);
                    return i;
                }
                Step::Foreign { len } => {
                    self.counts.unrestored.fetch_add(1, Ordering::Relaxed);
                    i += len;
                }
                Step::Hit { canonical, key, .. }
                    if !canonical && self.client_forms.contains(&key) =>
                {
                    // the client wrote this form itself: it stays as written
                    i += 1;
                }
                Step::Hit {
                    len,
                    key,
                    canonical,
                } => {
                    links.feed(&b[fed..i]);
                    fed = i;
                    let Some(v) = self.value_at(&key, len, links) else {
                        i += len;
                        continue;
                    };
                    out.push_str(&text[copied..i]);
                    if json_escape {
                        crate::json::escape_into(v, out);
                    } else {
                        out.push_str(v);
                    }
                    self.counts.restored.fetch_add(1, Ordering::Relaxed);
                    if !canonical {
                        self.counts.tolerant.fetch_add(1, Ordering::Relaxed);
                    }
                    i += len;
                    copied = i;
                }
            }
        }
        links.feed(&b[fed..]);
        out.push_str(&text[copied..]);
        b.len()
    }

    /// The value a form of `len` bytes restores to here, or `None` when it stays as written:
    /// in a link or image target, or past the growth budget.
    fn value_at(&self, key: &TokenKey, len: usize, links: &LinkContext) -> Option<&str> {
        if links.in_target() {
            // a target the model chose: a value there would leave for the model's host
            self.counts.in_link_target.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let v = self.entries.get(*self.values.get(key)?)?.value.as_str();
        let growth = (crate::json::escaped_len(v) as u64).saturating_sub(len as u64);
        if !self.take_growth(growth) {
            self.counts.over_budget.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        Some(v)
    }
}

/// A bare token may start after a non-word byte, or after a markdown `_`/`*` that itself
/// follows a non-word byte.
fn bare_boundary_before(before: Option<u8>, before2: Option<u8>) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c >= 0x80;
    match before {
        None => true,
        Some(b'_') => !before2.is_some_and(word),
        Some(c) => !word(c),
    }
}

/// The restorer of the streaming tests: a name with quotes and a non-ASCII letter (escaped
/// differently in JSON and plain text) and an e-mail address.
#[cfg(test)]
pub(crate) fn sample_exchange() -> std::sync::Arc<TolerantRestorer> {
    use crate::detect::EntityType;
    std::sync::Arc::new(TolerantRestorer::new(vec![
        MappingEntry {
            token: "[[NAME_1]]".into(),
            entity_type: EntityType::Person,
            value: "Zoë \"Z\"".into(),
        },
        MappingEntry {
            token: "[[EMAIL_1]]".into(),
            entity_type: EntityType::EmailAddress,
            value: "z@x.de".into(),
        },
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn restorer() -> TolerantRestorer {
        TolerantRestorer::new(vec![
            MappingEntry {
                token: "[[NAME_1]]".into(),
                entity_type: EntityType::Person,
                value: "Jörg \"J\" Maier".into(),
            },
            MappingEntry {
                token: "[[EMAIL_12]]".into(),
                entity_type: EntityType::EmailAddress,
                value: "a@b.de".into(),
            },
        ])
    }

    #[test]
    fn canonical_and_tolerant_forms() {
        let e = restorer();
        let cases = [
            ("Hi [[NAME_1]]!", "Hi Jörg \"J\" Maier!"),
            ("[NAME_1]", "Jörg \"J\" Maier"),
            ("[[ NAME_1 ]]", "Jörg \"J\" Maier"),
            ("[[name_1]]", "Jörg \"J\" Maier"),
            ("an NAME_1.", "an Jörg \"J\" Maier."),
            ("**NAME_1**", "**Jörg \"J\" Maier**"),
            ("_NAME_1_", "_Jörg \"J\" Maier_"),
            ("`[[EMAIL_12]]`", "`a@b.de`"),
            ("\\[\\[NAME\\_1\\]\\]", "Jörg \"J\" Maier"),
            ("[[NAME_1]", "Jörg \"J\" Maier"),
        ];
        for (input, want) in cases {
            assert_eq!(e.restore(input, false), want, "{input}");
        }
        assert_eq!(e.counts.tolerant.load(Ordering::Relaxed), 8);
    }

    #[test]
    fn never_touches_foreign_or_non_boundary() {
        let e = restorer();
        for input in [
            "[[NAME_2]]",
            "[[EMAIL_1]]",
            "XNAME_1",
            "NAME_12",
            "NAME_1x",
            "my_NAME_1",
            "name_1",
            "[[FOO_1]]",
            "NAME_",
            "[[NAME]]",
        ] {
            assert_eq!(e.restore(input, false), input, "{input}");
        }
        assert_eq!(e.counts.unrestored.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn forms_the_client_wrote_are_restored_only_canonically() {
        let mut e = restorer();
        e.note_client_text("Vorlage: **NAME_1** und [EMAIL_12], sonst nichts");
        for kept in [
            "NAME_1",
            "**NAME_1**",
            "[NAME_1]",
            "[[name_1]]",
            "[EMAIL_12]",
        ] {
            assert_eq!(e.restore(kept, false), kept);
        }
        assert_eq!(e.restore("[[NAME_1]]", false), "Jörg \"J\" Maier");
        assert_eq!(e.restore("[[EMAIL_12]]", false), "a@b.de");
        // a token the client wrote no form of keeps its tolerant restore
        let mut e = restorer();
        e.note_client_text("[NAME_1]");
        assert_eq!(e.restore("EMAIL_12", false), "a@b.de");
    }

    #[test]
    fn client_forms_are_noted_far_into_long_text_and_at_full_reach() {
        let filler = "Sehr geehrte Damen und Herren, bitte prüfen Sie den Vorgang. ".repeat(20);
        // the widest form: escaped openers, two spaces, lower case, escaped underscore
        let wide = format!("{filler}\\[\\[  name\\_1  \\]\\] {filler}");
        let mut e = restorer();
        e.note_client_text(&wide);
        assert_eq!(e.restore("[NAME_1]", false), "[NAME_1]", "noted: kept");
        assert_eq!(
            e.restore("EMAIL_12", false),
            "a@b.de",
            "not noted: restored"
        );
        // underscores of other words before it, and a bare form right after one
        let snake = format!("{filler}my_var and_more_EMAIL_12 x_EMAIL_12 {filler}EMAIL_12.");
        let mut e = restorer();
        e.note_client_text(&snake);
        assert_eq!(e.restore("[EMAIL_12]", false), "[EMAIL_12]");
        assert_eq!(e.restore("[NAME_1]", false), "Jörg \"J\" Maier");
        // no underscore at all: nothing noted
        let mut e = restorer();
        e.note_client_text(&format!("{filler}[[NAME 1]] EMAIL12"));
        assert_eq!(e.restore("[NAME_1]", false), "Jörg \"J\" Maier");
        assert_eq!(e.restore("EMAIL_12", false), "a@b.de");
    }

    #[test]
    fn restored_is_none_exactly_when_nothing_changes() {
        let e = restorer();
        assert_eq!(e.restored("Hallo [[NAME 1]] und NAME1", false), None);
        assert_eq!(e.restored("snake_case ohne Token", false), None);
        assert_eq!(
            e.restored("an [[NAME_1]]", false).as_deref(),
            Some("an Jörg \"J\" Maier")
        );
        // a foreign canonical token stays, and is still counted
        assert_eq!(e.restored("[[FOO_1]] [[EMAIL_1]]", false), None);
        assert_eq!(e.counts.unrestored.load(Ordering::Relaxed), 1);
        assert_eq!(e.restore("ohne", false), "ohne");
    }

    #[test]
    fn the_growth_budget_stops_restoring_and_says_so() {
        let mut e = restorer();
        // "Jörg \"J\" Maier" escapes to 17 bytes and replaces 10: 7 bytes of growth each
        e.limit_growth(20);
        let out = e.restore(&"[[NAME_1]]".repeat(4), false);
        assert_eq!(out, "Jörg \"J\" Maier".repeat(2) + &"[[NAME_1]]".repeat(2));
        assert!(e.budget_exhausted());
        e.grant(8);
        assert_eq!(e.restore("[[NAME_1]]", false), "Jörg \"J\" Maier");
        assert_eq!(e.counts.over_budget.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn json_escape_mode() {
        let e = restorer();
        assert_eq!(
            e.restore(r#"{"to":"[[NAME_1]]"}"#, true),
            r#"{"to":"Jörg \"J\" Maier"}"#
        );
    }

    #[test]
    fn scan_holds_back_partial_forms() {
        let e = restorer();
        for (input, held_from) in [
            ("Hi [[NA", 3),
            ("Hi [", 3),
            ("Hi NAM", 3),
            ("Hi NAME_1", 3),
            ("Hi [[NAME_1]", 3),
            ("Hi \\", 3),
            ("Hi N", 3),
            ("Hi X", 4),
            ("Hi [x", 5),
        ] {
            let mut out = String::new();
            assert_eq!(
                e.scan(
                    input,
                    [None, None],
                    false,
                    false,
                    &mut LinkContext::default(),
                    &mut out
                ),
                held_from,
                "{input}"
            );
        }
    }
}

//! The collecting pass: detects the values of every text string of a request (and reserves the
//! literal tokens already present), up to the request's bound on values.

use std::ops::Range;
use std::sync::Arc;

use super::error::RewriteError;
use super::identifier::{capitalised, identifier_words};
use super::url::is_data;
use super::values::Values;
use crate::detect::examples::{
    follows_example_marker, is_bare_origin, is_example_domain, is_json_member_value,
};
use crate::detect::{Detector, EntityType, Everything, Finding};
use crate::detection_cache::Scope;
use crate::json;
use crate::policy::Policy;
use crate::proxy::embedded::Embedded;
use crate::proxy::runs::{Cut, Joined};
use crate::proxy::walk::{walk_free, TextKind, TextVisitor};
use crate::tokens::{finding_byte_ranges, RowIndex, TokenTable};

/// A number shorter than this is no value of any type: it is not run through the detector
/// (values found elsewhere are still replaced in it).
const SHORTEST_NUMBER_VALUE: usize = 5;

pub(super) struct Collector<'a> {
    pub detector: &'a Detector,
    pub policy: Option<&'a Policy>,
    /// Findings kept of texts this caller sent before under this policy.
    pub cache: Option<&'a Scope<'a>>,
    pub table: &'a mut TokenTable,
    pub values: Values,
    /// Rows of `values` by value: the first type a value is found as wins, and the
    /// value is stored once.
    pub seen: RowIndex,
    /// The most values the request may hold.
    pub limit: usize,
    /// Per text run of the request, in walk order: the pieces of values cut at part boundaries.
    pub cuts: Vec<Vec<Cut>>,
    /// The first reason to refuse the request (the rewrite pass never runs then).
    pub refusal: Option<RewriteError>,
}

impl Collector<'_> {
    fn collect(&mut self, s: &str) {
        if s.is_empty() || self.refusal.is_some() {
            return;
        }
        self.reserve_tokens(s);
        let findings = self.detect(s);
        self.keep(s, &findings, None);
    }

    /// A tool or schema description: every value but the examples it shows — dates after a
    /// marker (`e.g. "2023-10-01 00:00"`), names and dates as whole values of a JSON call it
    /// shows (`{"pattern": "John Smith"}`), sites it names (`https://www.example.com`, no path)
    /// and addresses on example domains; an e-mail address, an IBAN or an address with a path
    /// there is still a value.
    fn collect_instruction(&mut self, s: &str) {
        if s.is_empty() || self.refusal.is_some() {
            return;
        }
        self.reserve_tokens(s);
        let findings = self.detect(s);
        let instruction_only = |f: &Finding| match f.entity_type {
            EntityType::Date => {
                follows_example_marker(s, f.bytes.0)
                    || is_json_member_value(s, f.bytes.0, f.bytes.1)
            }
            EntityType::Person => is_json_member_value(s, f.bytes.0, f.bytes.1),
            EntityType::Url => s
                .get(f.bytes.0..f.bytes.1)
                .is_some_and(|u| is_bare_origin(u) || is_example_domain(u)),
            _ => false,
        };
        let kept: Vec<Finding> = findings
            .iter()
            .filter(|f| !instruction_only(f))
            .copied()
            .collect();
        self.keep(s, &kept, None);
    }

    fn reserve_tokens(&mut self, s: &str) {
        self.table.reserve_literal_tokens(s);
        if let Some(p) = self.policy {
            for token in p.reserved_tokens(s) {
                self.table.reserve_token(token);
            }
        }
    }

    /// The findings of `s` (kept ones when it was seen before); past the detector's candidate
    /// limit none, and the request is refused.
    fn detect(&mut self, s: &str) -> Arc<Vec<Finding>> {
        let (detector, policy) = (self.detector, self.policy);
        let detect = || match policy {
            Some(p) => detector.try_detect_in(s, p),
            None => detector.try_detect_in(s, &Everything),
        };
        let found = match self.cache {
            Some(cache) => {
                let (found, lookup) = cache.findings(s, detect);
                crate::telemetry::metrics().detection_cache(lookup);
                found
            }
            None => detect().map(Arc::new),
        };
        found.unwrap_or_else(|e| {
            self.refusal.get_or_insert(RewriteError::Detect(e));
            Arc::new(Vec::new())
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
        if self.values.len() > self.limit {
            self.refusal
                .get_or_insert(RewriteError::TooManyValues { limit: self.limit });
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
        if !spaced.is_empty() && spaced != s && self.refusal.is_none() {
            let findings = self.detect(&spaced);
            self.keep(&spaced, &findings, Some(EntityType::Person));
        }
    }

    /// The adjacent text parts of one message, detected as one text (`docs/proxy.md`, "Text
    /// parts of one message"): values within a part join the request's values like any other,
    /// a value over a boundary too, and its pieces are noted for the replacing pass. Where a
    /// separator was put inside a word, the text around it is read again without one.
    fn collect_run(&mut self, parts: &[String]) {
        let mut cuts = Vec::new();
        if self.refusal.is_none() {
            parts.iter().for_each(|p| self.reserve_tokens(p));
            let joined = Joined::new(parts);
            let findings = self.detect(&joined.text);
            self.keep(&joined.text, &findings, None);
            let mut within = Vec::new();
            for (start, end) in finding_byte_ranges(&joined.text, &findings)
                .into_iter()
                .flatten()
            {
                let pieces = joined.pieces(start, end);
                if pieces.len() < 2 {
                    within.extend(pieces);
                    continue;
                }
                self.cut(&joined.text[start..end], pieces, &mut cuts);
            }
            if joined.seams().next().is_some() {
                self.collect_seams(parts, &within, &mut cuts);
            }
            cuts.sort_by_key(|c: &Cut| (c.part, c.range.start));
        }
        self.cuts.push(cuts);
    }

    /// The values over a seam of `parts` joined without separator, that neither overlap a cut
    /// already made nor cut a value found within a part (`within`) in two.
    fn collect_seams(
        &mut self,
        parts: &[String],
        within: &[(usize, Range<usize>)],
        cuts: &mut Vec<Cut>,
    ) {
        let tight = Joined::tight(parts);
        for (seam, around) in tight.seams() {
            let text = &tight.text[around.clone()];
            let findings = self.detect(text);
            let ranges = finding_byte_ranges(text, &findings);
            for (f, range) in findings.iter().zip(ranges) {
                let Some((start, end)) = range.map(|(s, e)| (around.start + s, around.start + e))
                else {
                    continue;
                };
                if !(start < seam && seam < end) {
                    continue;
                }
                let pieces = tight.pieces(start, end);
                let clash = pieces.iter().any(|(part, r)| {
                    let overlaps = |o: &Range<usize>| o.start < r.end && r.start < o.end;
                    let contains = |o: &Range<usize>| r.start <= o.start && o.end <= r.end;
                    cuts.iter().any(|c| c.part == *part && overlaps(&c.range))
                        || within
                            .iter()
                            .any(|(p, o)| p == part && overlaps(o) && !contains(o))
                });
                if clash {
                    continue;
                }
                let mut whole = *f;
                whole.bytes = (start, end);
                self.keep(&tight.text, std::slice::from_ref(&whole), None);
                self.cut(&tight.text[start..end], pieces, cuts);
            }
        }
    }

    /// Notes the pieces of value `v`, cut at part boundaries, for the replacing pass.
    fn cut(&mut self, v: &str, pieces: Vec<(usize, Range<usize>)>, cuts: &mut Vec<Cut>) {
        let Ok(value) = self.seen.find(v, |r| self.values.get(r).1) else {
            return;
        };
        for (k, (part, range)) in pieces.into_iter().enumerate() {
            cuts.push(Cut {
                part,
                range,
                value,
                first: k == 0,
            });
        }
    }
}

/// Whether a member name can be left to the replacing pass alone: a lower-case identifier
/// (`max_tokens`, `content`, `betreff`) is no value by itself.
fn lower_identifier(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
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
            TextKind::Instruction => self.collect_instruction(s),
            TextKind::Number if s.len() >= SHORTEST_NUMBER_VALUE => self.collect(s),
            TextKind::Number => {}
            TextKind::MemberName if !lower_identifier(s) => self.collect(s),
            TextKind::MemberName => {}
            // no value is looked for in an address (the replacing pass puts those found
            // elsewhere into it); the tokens a client wrote there are reserved
            TextKind::Url if !is_data(s) => self.reserve_tokens(s),
            TextKind::Url => {}
        }
    }

    fn text_run(&mut self, parts: &mut [String]) {
        self.collect_run(parts);
    }

    fn refuse(&mut self, reason: &'static str) {
        self.refusal
            .get_or_insert(RewriteError::Uninspectable(reason));
    }
}

//! The detection engine through its public API: one shared `Detector` per test run (building
//! one loads every gazetteer and table) and its findings as the strings they cover.
//! `textish` is the generator of engine-like input for the property tests (the service's token
//! tests use it too).

pub mod textish;

use std::sync::OnceLock;

use tarnkappe_detect::{Detector, EntityType};

pub fn detector() -> &'static Detector {
    static D: OnceLock<Detector> = OnceLock::new();
    D.get_or_init(Detector::new)
}

/// Every finding in `text` as `(type, covered text)`; offsets are code points.
pub fn findings(text: &str) -> Vec<(EntityType, String)> {
    detector()
        .detect(text)
        .into_iter()
        .map(|f| {
            let v = text.chars().skip(f.start).take(f.end - f.start).collect();
            (f.entity_type, v)
        })
        .collect()
}

/// The text of each finding of type `t` in `text`.
pub fn found(text: &str, t: EntityType) -> Vec<String> {
    findings(text)
        .into_iter()
        .filter(|(ft, _)| *ft == t)
        .map(|(_, v)| v)
        .collect()
}

/// What a finding's span becomes in [`masked`]: shaped like a token (`[[…]]`, so a test can
/// say a value starts right after a label: `"Kunde: [["`) around a character no word holds, so a
/// word found in the masked text lies wholly outside every finding.
const MASK: &str = "[[\u{FFFC}]]";

/// `text` with the span of every finding replaced by [`MASK`]: what anonymization keeps of it
/// (tokens aside), told from the findings alone.
pub fn masked(text: &str) -> String {
    let mut spans = detector()
        .detect(text)
        .into_iter()
        .map(|f| f.start..f.end)
        .peekable();
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        while spans.next_if(|s| s.end <= i).is_some() {}
        match spans.peek() {
            Some(s) if s.contains(&i) => {
                if s.start == i {
                    out.push_str(MASK);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The PERSON findings of `text`.
pub fn names(text: &str) -> Vec<String> {
    found(text, EntityType::Person)
}

/// The LOCATION findings of `text`.
pub fn places(text: &str) -> Vec<String> {
    found(text, EntityType::Location)
}

/// Every word of `words` is in the masked text: no finding of any type covers it.
pub fn kept(text: &str, words: &[&str]) {
    let out = masked(text);
    for w in words {
        assert!(out.contains(w), "{w:?} must stay in {text:?}: {out:?}");
    }
}

/// None of `values` survives masking: every occurrence is (at least partly) under a finding.
pub fn hidden(text: &str, values: &[&str]) {
    let out = masked(text);
    for v in values {
        assert!(!out.contains(v), "{v:?} leaks from {text:?}: {out:?}");
    }
}

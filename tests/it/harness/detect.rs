//! The detection engine through its public API: one shared `Detector` per test run (building
//! one loads every gazetteer and table) and its findings as the strings they cover.

use std::sync::OnceLock;

use tarnkappe::detect::{Detector, EntityType};
use tarnkappe::tokens::anonymize;

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

/// The anonymized text of `text`.
pub fn masked(text: &str) -> String {
    anonymize(detector(), text).anonymized_text
}

/// The PERSON findings of `text`.
pub fn names(text: &str) -> Vec<String> {
    found(text, EntityType::Person)
}

/// The LOCATION findings of `text`.
pub fn places(text: &str) -> Vec<String> {
    found(text, EntityType::Location)
}

/// Every word of `words` is in the anonymized text: no finding of any type covers it.
pub fn kept(text: &str, words: &[&str]) {
    let out = masked(text);
    for w in words {
        assert!(out.contains(w), "{w:?} must stay in {text:?}: {out:?}");
    }
}

/// None of `values` survives anonymization.
pub fn hidden(text: &str, values: &[&str]) {
    let out = masked(text);
    for v in values {
        assert!(!out.contains(v), "{v:?} leaks from {text:?}: {out:?}");
    }
}

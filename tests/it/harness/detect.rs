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

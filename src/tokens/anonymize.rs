use serde::Serialize;

use super::{MappingEntry, Restorer, TokenTable};
use crate::detect::{DetectError, Detector, EntityType, Everything, Finding, Scope};

/// One replaced finding, as `POST /anonymize` reports it (offsets in code points).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    pub entity_type: EntityType,
    pub start: usize,
    pub end: usize,
    pub score: f64,
    pub token: String,
    pub text: String,
}

/// `stats` of docs/api.md, all integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stats {
    #[serde(rename = "entityCount")]
    pub entity_count: usize,
    #[serde(rename = "uniqueTokens")]
    pub unique_tokens: usize,
    #[serde(rename = "anonymizationRate")]
    pub anonymization_rate: u32,
    #[serde(rename = "dataLoss")]
    pub data_loss: u32,
}

/// The result of anonymizing one text (without the session id, which the API adds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Anonymized {
    pub anonymized_text: String,
    pub entities: Vec<Entity>,
    pub mapping: Vec<MappingEntry>,
    pub stats: Stats,
}

/// Detects and replaces personal data in `text` with a fresh token table.
pub fn anonymize(detector: &Detector, text: &str) -> Anonymized {
    anonymize_in(detector, &Everything, text)
}

/// [`anonymize`] under a policy (`scope`, see `crate::detect::scope`).
pub fn anonymize_in(detector: &Detector, scope: &dyn Scope, text: &str) -> Anonymized {
    anonymized(text, &detector.detect_in(text, scope))
}

/// [`anonymize_in`] within the detector's candidate limit: the service's path, which refuses a
/// text past it rather than answer with a partial result.
pub(crate) fn try_anonymize_in(
    detector: &Detector,
    scope: &dyn Scope,
    text: &str,
) -> Result<Anonymized, DetectError> {
    Ok(anonymized(text, &detector.try_detect_in(text, scope)?))
}

fn anonymized(text: &str, findings: &[Finding]) -> Anonymized {
    let mut table = TokenTable::new();
    let (anonymized_text, entities) = anonymize_findings(&mut table, text, findings);
    let mapping = table.into_entries();
    let stats = stats(text, &anonymized_text, &entities, &mapping);
    Anonymized {
        anonymized_text,
        entities,
        mapping,
        stats,
    }
}

/// Replaces `findings` (sorted, disjoint, code-point offsets into `text`) by tokens from `table`.
/// Tokens are issued in order of appearance. Findings out of bounds or overlapping a previous
/// one are skipped rather than trusted.
pub(crate) fn anonymize_findings(
    table: &mut TokenTable,
    text: &str,
    findings: &[Finding],
) -> (String, Vec<Entity>) {
    let byte_at = finding_byte_ranges(text, findings);
    let mut out = String::with_capacity(text.len());
    let mut entities = Vec::with_capacity(findings.len());
    let mut copied_to = 0;
    for (f, range) in findings.iter().zip(byte_at) {
        let Some((start, end)) = range else {
            continue;
        };
        if start < copied_to {
            continue;
        }
        let value = &text[start..end];
        let token = table.token_for(f.entity_type, value).to_owned();
        out.push_str(&text[copied_to..start]);
        out.push_str(&token);
        copied_to = end;
        entities.push(Entity {
            entity_type: f.entity_type,
            start: f.start,
            end: f.end,
            score: round_score(f.score),
            token,
            text: value.to_owned(),
        });
    }
    out.push_str(&text[copied_to..]);
    (out, entities)
}

fn stats(text: &str, anonymized: &str, entities: &[Entity], mapping: &[MappingEntry]) -> Stats {
    let total = text.chars().count();
    let covered: usize = entities.iter().map(|e| e.end - e.start).sum();
    Stats {
        entity_count: entities.len(),
        unique_tokens: mapping.len(),
        anonymization_rate: percent(covered, total),
        data_loss: percent(lost_in_round_trip(text, anonymized, mapping), total),
    }
}

/// Code points of `text` that restoring `anonymized` would not give back. Every token starts
/// with `[[`, and a token cannot begin in the text next to it (`[` + `[[NAME_1]]` still holds
/// the token only where it was put), so a text without `[[` round-trips exactly and the
/// restore — a full pass over the text — is only run for texts that hold `[[`.
fn lost_in_round_trip(text: &str, anonymized: &str, mapping: &[MappingEntry]) -> usize {
    if memchr::memmem::find(text.as_bytes(), b"[[").is_none() {
        return 0;
    }
    let restored = Restorer::new(mapping.iter().map(|m| (m.token.as_str(), m.value.as_str())))
        .restore(anonymized);
    lost_code_points(text, &restored)
}

/// Code points of `original` that `restored` does not reproduce: everything between the common
/// prefix and the common suffix. Zero exactly when the round trip is byte-exact.
fn lost_code_points(original: &str, restored: &str) -> usize {
    if original == restored {
        return 0;
    }
    let prefix = original
        .chars()
        .zip(restored.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let total = original.chars().count();
    let suffix = original
        .chars()
        .rev()
        .zip(restored.chars().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(total - prefix);
    (total - prefix - suffix).max(1)
}

fn percent(part: usize, total: usize) -> u32 {
    if total == 0 {
        return 0;
    }
    ((100.0 * part as f64 / total as f64).round() as u32).min(100)
}

/// Scores travel as f64 rounded to 2 decimals, so `0.85` is not printed as `0.8500000238`.
fn round_score(score: f32) -> f64 {
    (f64::from(score) * 100.0).round() / 100.0
}

/// The byte range of each finding in `text`, the text it was detected in ([`Finding::bytes`]);
/// None when it is empty or not a slice of `text` (never for the detector's own findings).
pub(crate) fn finding_byte_ranges(text: &str, findings: &[Finding]) -> Vec<Option<(usize, usize)>> {
    findings
        .iter()
        .map(|f| {
            let (start, end) = f.bytes;
            (start < end && text.get(start..end).is_some()).then_some((start, end))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finding of `text`'s code points `start..end`.
    fn finding(text: &str, t: EntityType, start: usize, end: usize) -> Finding {
        let byte = |c: usize| {
            text.char_indices()
                .map(|(b, _)| b)
                .chain([text.len()])
                .nth(c)
        };
        Finding {
            entity_type: t,
            start,
            end,
            bytes: (byte(start).unwrap_or(0), byte(end).unwrap_or(0)),
            score: 0.9,
            validated: false,
            evidence: Default::default(),
        }
    }

    #[test]
    fn replaces_in_code_points_and_reports_stats() {
        let text = "Grüße an Jörg, Jörg!";
        let findings = [
            finding(text, EntityType::Person, 9, 13),
            finding(text, EntityType::Person, 15, 19),
        ];
        let mut table = TokenTable::new();
        let (out, entities) = anonymize_findings(&mut table, text, &findings);
        assert_eq!(out, "Grüße an [[NAME_1]], [[NAME_1]]!");
        assert_eq!(entities[1].text, "Jörg");
        let s = stats(text, &out, &entities, table.entries());
        assert_eq!(
            (
                s.entity_count,
                s.unique_tokens,
                s.anonymization_rate,
                s.data_loss
            ),
            (2, 1, 40, 0)
        );
    }

    #[test]
    fn round_trip_loss_with_and_without_brackets() {
        let mapping = |token: &str, value: &str| MappingEntry {
            token: token.to_owned(),
            value: value.to_owned(),
            entity_type: EntityType::Person,
        };
        let m = [mapping("[[NAME_1]]", "Jörg")];
        // No `[[` in the text: exact by construction.
        assert_eq!(lost_in_round_trip("an Jörg", "an [[NAME_1]]", &m), 0);
        // `[[` in the text: the restore runs and finds the one token.
        assert_eq!(lost_in_round_trip("[[x]] Jörg", "[[x]] [[NAME_1]]", &m), 0);
        // A literal token in the text is restored too: a loss the stats must show.
        assert_eq!(
            lost_in_round_trip("[[NAME_1]] Jörg", "[[NAME_1]] [[NAME_1]]", &m),
            10
        );
    }

    #[test]
    fn lost_code_points_counts_the_difference() {
        assert_eq!(lost_code_points("abcdef", "abcdef"), 0);
        assert_eq!(lost_code_points("abcdef", "abXYef"), 2);
        assert_eq!(lost_code_points("aa", "aaa"), 1);
    }

    #[test]
    fn empty_text_has_zero_rates() {
        let a = anonymize(&Detector::new(), "");
        assert_eq!(
            a.stats,
            Stats {
                entity_count: 0,
                unique_tokens: 0,
                anonymization_rate: 0,
                data_loss: 0
            }
        );
    }
}

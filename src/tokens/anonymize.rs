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

/// The byte range of each finding's code-point span in `text` (None when out of bounds or
/// empty), computed in one pass over `text`.
pub(crate) fn finding_byte_ranges(text: &str, findings: &[Finding]) -> Vec<Option<(usize, usize)>> {
    let range = |start: Option<usize>, end: Option<usize>| match (start, end) {
        (Some(start), Some(end)) if start < end => Some((start, end)),
        _ => None,
    };
    let mut wanted: Vec<usize> = findings.iter().flat_map(|f| [f.start, f.end]).collect();
    // The detector's findings are sorted and disjoint: their offsets are then already the
    // sorted list to convert, and each finding's pair sits at its own place in the result.
    if wanted.is_sorted() {
        let bytes = char_to_byte_offsets(text, &wanted);
        return bytes
            .chunks_exact(2)
            .map(|se| range(se[0], se[1]))
            .collect();
    }
    wanted.sort_unstable();
    wanted.dedup();
    let bytes = char_to_byte_offsets(text, &wanted);
    let byte_of = |c: usize| wanted.binary_search(&c).ok().and_then(|i| bytes[i]);
    findings
        .iter()
        .map(|f| range(byte_of(f.start), byte_of(f.end)))
        .collect()
}

/// The byte offset of each code-point offset of the sorted list `chars` (None past the end),
/// counting the bytes that start a code point (every byte but a `10xxxxxx` continuation).
fn char_to_byte_offsets(text: &str, chars: &[usize]) -> Vec<Option<usize>> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let b = text.as_bytes();
    // `at_char` code points start in `b[..at_byte]`
    let (mut at_char, mut at_byte) = (0usize, 0usize);
    chars
        .iter()
        .map(|&want| {
            // Eight bytes at a time while all the code points starting in them come before
            // `want` (German text has an umlaut every few words: skipping only pure-ASCII
            // words left most of a prompt to the byte loop). The step may end inside a code
            // point; the byte loop below only counts starts, so it picks up from there.
            while let Some(Ok(word)) = b.get(at_byte..at_byte + 8).map(<[u8; 8]>::try_from) {
                let w = u64::from_le_bytes(word);
                // bit 7 set and bit 6 clear: a continuation byte; the eight 0/1 flags are
                // summed into the top byte by one multiplication (no popcount instruction
                // in the baseline x86-64 target)
                let flags = (w & !(w << 1) & HIGH) >> 7;
                let continuations = (flags.wrapping_mul(ONES) >> 56) as usize;
                let starts = 8 - continuations;
                if at_char + starts > want {
                    break;
                }
                at_byte += 8;
                at_char += starts;
            }
            while let Some(&x) = b.get(at_byte) {
                if x & 0xC0 != 0x80 {
                    if at_char == want {
                        break;
                    }
                    at_char += 1;
                }
                at_byte += 1;
            }
            (at_char == want).then_some(at_byte)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(t: EntityType, start: usize, end: usize) -> Finding {
        Finding {
            entity_type: t,
            start,
            end,
            score: 0.9,
            validated: false,
            evidence: Default::default(),
        }
    }

    #[test]
    fn replaces_in_code_points_and_reports_stats() {
        let text = "Grüße an Jörg, Jörg!";
        let findings = [
            finding(EntityType::Person, 9, 13),
            finding(EntityType::Person, 15, 19),
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
    fn code_points_become_byte_offsets() {
        // `ä` and `€` take 2 and 3 bytes.
        assert_eq!(
            char_to_byte_offsets("aä€b", &[0, 1, 2, 3, 4, 5]),
            vec![Some(0), Some(1), Some(3), Some(6), Some(7), None]
        );
        let f = |start, end| finding(EntityType::Person, start, end);
        assert_eq!(
            finding_byte_ranges("Grüße Jörg", &[f(6, 10), f(3, 3), f(8, 20)]),
            vec![Some((8, 13)), None, None]
        );
        // sorted and disjoint, as the detector's findings: the same ranges
        assert_eq!(
            finding_byte_ranges("Grüße Jörg", &[f(0, 2), f(3, 3), f(6, 10), f(10, 20)]),
            vec![Some((0, 2)), None, Some((8, 13)), None]
        );
    }

    #[test]
    fn code_point_offsets_agree_with_char_indices_across_word_steps() {
        // multi-byte code points straddling every position of the eight-byte steps
        let text: String = "Grüße, Straße 5 – 10 € für Zoë 😀 und abc ä".repeat(7);
        let mut expected: Vec<Option<usize>> = text.char_indices().map(|(b, _)| Some(b)).collect();
        expected.push(Some(text.len()));
        expected.push(None);
        let all: Vec<usize> = (0..expected.len()).collect();
        assert_eq!(char_to_byte_offsets(&text, &all), expected);
        // sparse, far apart, as the findings of a long prompt
        let some = [3, 40, 41, 200, expected.len() - 2];
        let got = char_to_byte_offsets(&text, &some);
        let want: Vec<Option<usize>> = some.iter().map(|&c| expected[c]).collect();
        assert_eq!(got, want);
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

//! The context step (docs/detection.md, "Context"): one step after the finders that applies
//! every type's context rule to the candidates that ask for it ([`Ask::Score`]). Recognizers
//! propose a candidate with its base score and the form it was found in; the step looks for the
//! type's context words ([`Rule::lists`], lists of `data/lexicon/`) in the type's window
//! ([`Rule::back`] bytes before, a strong word in parentheses after), records them in the
//! evidence, drops a candidate whose evidence needs a strong word that is not there, and scores
//! the rest by the row of the type's table that the words found select.
//!
//! Every table here is data: a type's rows, written out, not code per recognizer. A row reads
//! `(from + up − down)` clamped to 0–1, `from` being the candidate's base score or a fixed one:
//! the shared rule of docs/entities.md §1.6 (boost for the strongest word found, capped at
//! +0.35, minus a penalty for a negative word) is the rows of [`boost`]; the types whose score
//! is a fixed value per case (KVNR, USt-IdNr., Steuer-ID, AUSWEIS) write their values out.

use std::sync::OnceLock;

use crate::finding::{Ask, Candidate, Form, Needs};
use crate::lexicon::{Lexicon, Lists};
use crate::recognizers::{Context, ContextIndex};
use crate::{EntityType, Text};

/// One cell of a score table.
#[derive(Debug, Clone, Copy)]
enum Cell {
    /// The score `from` (`None`: the candidate's base score) plus `up` minus `down`, clamped
    /// to 0–1.
    Score {
        from: Option<f32>,
        up: f32,
        down: f32,
    },
    /// No candidate.
    Drop,
}

use Cell::Drop as DROP;

/// A score table: rows by the strongest positive word found (strong, weak, none), columns
/// without and with a negative word.
type Table = [[Cell; 2]; 3];

/// The context rule of one entity type.
struct Rule {
    entity: EntityType,
    /// The strong, weak and negative words (lexicon lists).
    lists: fn(&'static Lists) -> [&'static [&'static str]; 3],
    /// Bytes looked back (same line or a preceding `label:` line).
    back: usize,
    /// The table of [`Form::Main`] candidates.
    main: Table,
    /// The table of [`Form::Unchecked`] candidates (a check digit failed or is missing).
    unchecked: Table,
}

/// `score` whatever the base.
const fn set(score: f32) -> Cell {
    Cell::Score {
        from: Some(score),
        up: 0.0,
        down: 0.0,
    }
}

/// `score` minus `down`.
const fn set_minus(score: f32, down: f32) -> Cell {
    Cell::Score {
        from: Some(score),
        up: 0.0,
        down,
    }
}

/// The base plus `up` minus `down`.
const fn base(up: f32, down: f32) -> Cell {
    Cell::Score {
        from: None,
        up,
        down,
    }
}

/// The shared rule (§1.6): the base plus `strong` or `weak` (the boost, already capped at 0.35),
/// minus `penalty` when a negative word is near.
const fn boost(strong: f32, weak: f32, penalty: f32) -> Table {
    [
        [base(strong, 0.0), base(strong, penalty)],
        [base(weak, 0.0), base(weak, penalty)],
        [base(0.0, 0.0), base(0.0, penalty)],
    ]
}

/// A type without [`Form::Unchecked`] candidates.
const NONE: Table = boost(0.0, 0.0, 0.0);

/// A value whose check digit failed counts only after a strong label (`Needs::Strong`): the typo
/// rule of entities.md §1.6.
const TYPO_WITH_STRONG_LABEL: Table = [[set(0.6), set(0.6)], [DROP, DROP], [DROP, DROP]];

/// Every type's rule. Rows: strong, weak, no positive word; columns: without, with a negative
/// word. A strong word nearer than a negative one clears the negative (`ContextIndex`).
const RULES: &[Rule] = &[
    Rule {
        entity: EntityType::Kvnr,
        lists: |l| {
            [
                &l.kvnr_context_strong,
                &l.kvnr_context_weak,
                &l.kvnr_context_negative,
            ]
        },
        back: 50,
        main: [
            [set(0.95), set(0.95)],
            [set(0.75), set(0.3)],
            [set(0.55), set(0.3)],
        ],
        unchecked: TYPO_WITH_STRONG_LABEL,
    },
    Rule {
        entity: EntityType::UstId,
        lists: |l| {
            [
                &l.ust_id_context_strong,
                &l.ust_id_context_weak,
                &l.ust_id_context_negative,
            ]
        },
        back: 50,
        // `DE` + check digit is distinctive on its own: 0.75 without a word.
        main: [
            [set(0.95), set(0.95)],
            [set(0.85), set(0.45)],
            [set(0.75), set(0.45)],
        ],
        unchecked: TYPO_WITH_STRONG_LABEL,
    },
    Rule {
        entity: EntityType::SteuerId,
        lists: |l| {
            [
                &l.steuer_id_context_strong,
                &l.steuer_id_context_weak,
                &l.steuer_id_context_negative,
            ]
        },
        back: 50,
        main: [
            [set(0.95), set(0.95)],
            [set(0.75), set(0.3)],
            [set(0.6), set(0.3)],
        ],
        unchecked: NONE,
    },
    Rule {
        entity: EntityType::Ausweis,
        lists: |l| {
            [
                &l.ausweis_context_strong,
                &l.ausweis_context_weak,
                &l.ausweis_context_negative,
            ]
        },
        back: 50,
        // With a valid ICAO check digit.
        main: [
            [set(0.95), set_minus(0.95, 0.3)],
            [set(0.75), set_minus(0.75, 0.3)],
            [set(0.55), set_minus(0.55, 0.3)],
        ],
        // Without a check digit: product codes look alike, only a strong word lifts it.
        unchecked: [
            [set(0.8), set_minus(0.8, 0.3)],
            [set(0.3), set_minus(0.3, 0.3)],
            [set(0.3), set_minus(0.3, 0.3)],
        ],
    },
    Rule {
        entity: EntityType::EmailAddress,
        lists: |l| [&l.email_context_strong, &l.email_context_weak, &[]],
        back: 50,
        main: boost(0.1, 0.1, 0.0),
        unchecked: NONE,
    },
    Rule {
        entity: EntityType::Iban,
        lists: |l| {
            [
                &l.iban_context_strong,
                &l.iban_context_weak,
                &l.iban_context_negative,
            ]
        },
        back: 50,
        main: boost(0.05, 0.05, 0.15),
        unchecked: NONE,
    },
    Rule {
        entity: EntityType::CreditCard,
        lists: |l| {
            [
                &l.credit_card_context_strong,
                &l.credit_card_context_weak,
                &l.credit_card_context_negative,
            ]
        },
        back: 50,
        main: boost(0.3, 0.15, 0.3),
        unchecked: NONE,
    },
    Rule {
        entity: EntityType::PhoneNumber,
        lists: |l| {
            [
                &l.phone_context_strong,
                &l.phone_context_weak,
                &l.phone_context_negative,
            ]
        },
        back: 50,
        main: boost(0.2, 0.1, 0.3),
        unchecked: NONE,
    },
    Rule {
        entity: EntityType::Steuernummer,
        lists: |l| {
            [
                &l.steuernummer_context_strong,
                &l.steuernummer_context_weak,
                &l.steuernummer_context_negative,
            ]
        },
        back: 120,
        // Grouped as a Steuernummer; plain digits (Form::Unchecked) only with a strong
        // label (Needs::Strong) and no negative word. The look-back spans a form's label line.
        main: boost(0.35, 0.2, 0.3),
        unchecked: [[set(0.7), DROP], [DROP, DROP], [DROP, DROP]],
    },
    Rule {
        entity: EntityType::SvNummer,
        lists: |l| {
            [
                &l.sv_nummer_context_strong,
                &l.sv_nummer_context_weak,
                &l.sv_nummer_context_negative,
            ]
        },
        back: 50,
        main: boost(0.15, 0.1, 0.15),
        unchecked: NONE,
    },
    Rule {
        entity: EntityType::Date,
        lists: |l| {
            [
                &l.date_context_strong,
                &l.date_context_weak,
                &l.date_context_negative,
            ]
        },
        back: 50,
        // Month + year asks Needs::Strong (birth context).
        main: boost(0.35, 0.1, 0.3),
        unchecked: NONE,
    },
    Rule {
        entity: EntityType::UsSsn,
        lists: |l| {
            [
                &l.us_ssn_context_strong,
                &l.us_ssn_context_weak,
                &l.us_ssn_context_negative,
            ]
        },
        back: 50,
        main: boost(0.35, 0.15, 0.3),
        unchecked: NONE,
    },
];

/// A rule compiled: its context words in one automaton.
struct Compiled {
    rule: &'static Rule,
    index: ContextIndex,
}

/// The compiled rules, built once.
fn compiled() -> &'static [Compiled] {
    static COMPILED: OnceLock<Vec<Compiled>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let lists = &Lexicon::get().lists;
        RULES
            .iter()
            .map(|rule| {
                let [strong, weak, negative] = (rule.lists)(lists);
                Compiled {
                    rule,
                    index: ContextIndex::new(&Context {
                        strong,
                        weak,
                        negative,
                    }),
                }
            })
            .collect()
    })
}

/// Applies the context rules to the candidates of `out` that ask for it: records the words
/// found, drops those that need a word that is not there, scores the rest. The order of the
/// candidates kept is unchanged.
pub(crate) fn apply(text: &Text<'_>, out: &mut Vec<Candidate>) {
    let s = text.view();
    let rules = compiled();
    out.retain_mut(|c| {
        let Ask::Score { form, needs } = c.evidence.ask else {
            return true;
        };
        // A type that asks without a rule keeps its base score (fails open to detection).
        let Some(compiled) = rules.iter().find(|r| r.rule.entity == c.entity_type) else {
            return true;
        };
        let rule = compiled.rule;
        let mut found = compiled.index.evidence_within(s, c.start, c.end, rule.back);
        // A negative cue the recognizer found itself (DATE's amount words) counts as well.
        found.negative |= c.evidence.context.negative();
        if needs == Needs::Strong && !found.strong {
            return false;
        }
        let table = match form {
            Form::Main => &rule.main,
            Form::Unchecked => &rule.unchecked,
        };
        let row = if found.strong {
            0
        } else if found.weak {
            1
        } else {
            2
        };
        let Cell::Score { from, up, down } = table[row][usize::from(found.negative)] else {
            return false;
        };
        c.score = (from.unwrap_or(c.score) + up - down).clamp(0.0, 1.0);
        c.evidence.context = found.cues();
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::cand;

    /// The candidate `value` of `s` asking with `form`/`needs`, after the step (`None`: dropped).
    fn stepped(s: &str, value: &str, t: EntityType, ask: (Form, Needs)) -> Option<Candidate> {
        let text = Text::new(s);
        let start = text.view().find(value)?;
        let c = cand(t, start, start + value.len(), 0.5, true).asking(ask.0, ask.1);
        let mut out = vec![c, cand(t, 0, 1, 0.42, false)];
        apply(&text, &mut out);
        // A candidate that does not ask is left as it is.
        assert_eq!(out.last().map(|c| c.score), Some(0.42));
        (out.len() == 2).then(|| out[0])
    }

    #[test]
    fn a_fixed_table_is_not_base_plus_boost_minus_penalty() {
        let main = (Form::Main, Needs::Nothing);
        // weak and negative: 0.3, where 0.55 + 0.2 − a penalty would give 0.5
        let c = stepped(
            "Krankenkasse, Bestellnummer A123456780",
            "A123456780",
            EntityType::Kvnr,
            main,
        );
        let c = c.expect("kept");
        assert_eq!(c.score, 0.3);
        assert!(c.evidence.context.weak() && c.evidence.context.negative());
        let c = stepped("KVNR A123456780", "A123456780", EntityType::Kvnr, main);
        assert_eq!(c.map(|c| c.score), Some(0.95));
    }

    #[test]
    fn a_candidate_that_needs_a_strong_word_is_dropped_without_one() {
        let typo = (Form::Unchecked, Needs::Strong);
        let kept = stepped("KVNR: A123456781", "A123456781", EntityType::Kvnr, typo);
        assert_eq!(kept.map(|c| c.score), Some(0.6));
        let gone = stepped(
            "Krankenkasse A123456781",
            "A123456781",
            EntityType::Kvnr,
            typo,
        );
        assert_eq!(gone, None);
    }

    #[test]
    fn the_shared_rule_adds_to_the_base() {
        let c = stepped(
            "Tel. 030 1234567",
            "030 1234567",
            EntityType::PhoneNumber,
            (Form::Main, Needs::Nothing),
        );
        // 0.5 + 0.2 for a strong word
        assert_eq!(c.map(|c| c.score), Some(0.5 + 0.2));
    }

    #[test]
    fn the_ask_adds_at_most_one_word_to_a_candidate() {
        // Two bytes of ask past the 64 of before; measured no dearer (benches/RESULTS.md).
        assert_eq!(std::mem::size_of::<Ask>(), 2);
        assert!(std::mem::size_of::<Candidate>() <= 72);
    }

    #[test]
    fn every_type_has_one_rule() {
        for (k, r) in RULES.iter().enumerate() {
            assert!(
                RULES[k + 1..].iter().all(|o| o.entity != r.entity),
                "{:?}",
                r.entity
            );
        }
        assert_eq!(compiled().len(), RULES.len());
    }
}

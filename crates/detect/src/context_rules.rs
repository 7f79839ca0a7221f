//! The context step (docs/detection.md, "Context"): one step after the finders that applies
//! every type's context rule to the candidates that ask for it ([`Ask::Score`]). Recognizers
//! propose a candidate with its base score and the form it was found in; the step looks for the
//! type's context words ([`Rule::lists`], lists of `data/lexicon/`) in the type's window
//! ([`Rule::back`] bytes before, a strong word in parentheses after), records them in the
//! evidence, drops a candidate whose evidence needs a strong word that is not there, and scores
//! the rest by the row of its form's table ([`Rule::tables`]) that the words found select.
//!
//! Every table here is data: a type's rows, written out, not code per recognizer. A row reads
//! `(from + up − down)` clamped to 0–1, `from` being the candidate's base score, the base
//! less a mark-down, or a fixed score ([`Start`]): the shared rule of docs/entities.md §1.6
//! (boost for the strongest word found, capped at +0.35, minus a penalty for a negative word)
//! is the rows of [`boost`]; the types whose score is a fixed value per case (KVNR, USt-IdNr.,
//! Steuer-ID, AUSWEIS) write their values out; a form whose meaning changes with the words
//! (an IP quad that may be a version, a plate after an all-caps word) has a table of its own.

use std::sync::OnceLock;

use crate::finding::{Ask, Candidate, Form, Needs};
use crate::lexicon::{Lexicon, Lists};
use crate::recognizers::{Context, ContextIndex};
use crate::{EntityType, Text};

/// Where the score of a cell starts.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// The candidate's base score.
    Base,
    /// The base score less a mark-down, taken before the boost: what a form loses without the
    /// word the row lacks (an IP quad below 10 without a strong word is likely a version).
    BaseLess(f32),
    /// A fixed score, whatever the base.
    Fixed(f32),
}

/// One cell of a score table.
#[derive(Debug, Clone, Copy)]
enum Cell {
    /// `from` plus `up` minus `down`, clamped to 0–1.
    Score { from: Start, up: f32, down: f32 },
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
    /// A table for each form the type's recognizer proposes (each form once); a candidate
    /// asking with a form not listed keeps its base score.
    tables: &'static [(Form, Table)],
}

/// `score` whatever the base.
const fn set(score: f32) -> Cell {
    fixed(score, 0.0, 0.0)
}

/// `score` minus `down`.
const fn set_minus(score: f32, down: f32) -> Cell {
    fixed(score, 0.0, down)
}

/// `score` plus `up` minus `down`, whatever the base.
const fn fixed(score: f32, up: f32, down: f32) -> Cell {
    Cell::Score {
        from: Start::Fixed(score),
        up,
        down,
    }
}

/// The base plus `up` minus `down`.
const fn base(up: f32, down: f32) -> Cell {
    Cell::Score {
        from: Start::Base,
        up,
        down,
    }
}

/// The base less `cut`, plus `up`, minus `down`.
const fn base_less(cut: f32, up: f32, down: f32) -> Cell {
    Cell::Score {
        from: Start::BaseLess(cut),
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

/// The shared rule on a fixed score instead of the base.
const fn boost_from(score: f32, strong: f32, weak: f32, penalty: f32) -> Table {
    [
        [fixed(score, strong, 0.0), fixed(score, strong, penalty)],
        [fixed(score, weak, 0.0), fixed(score, weak, penalty)],
        [fixed(score, 0.0, 0.0), fixed(score, 0.0, penalty)],
    ]
}

/// A value whose check digit failed counts only after a strong label (`Needs::Strong`): the typo
/// rule of entities.md §1.6.
const TYPO_WITH_STRONG_LABEL: Table = [[set(0.6), set(0.6)], [DROP, DROP], [DROP, DROP]];

/// IP_ADDRESS: what a negative word (`Kapitel`, `Raum`) costs an IPv4 address in every form
/// (IPv6 pays 0.3).
const IP_V4_PENALTY: f32 = 0.35;

/// KFZ: a plate after an all-caps word (`AB MO 10 UHR`: signage, not prose) loses 0.3 after
/// the shared rule.
const KFZ_AFTER_CAPS: f32 = 0.3;

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
        tables: &[
            (
                Form::Main,
                [
                    [set(0.95), set(0.95)],
                    [set(0.75), set(0.3)],
                    [set(0.55), set(0.3)],
                ],
            ),
            (Form::Unchecked, TYPO_WITH_STRONG_LABEL),
        ],
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
        tables: &[
            // `DE` + check digit is distinctive on its own: 0.75 without a word.
            (
                Form::Main,
                [
                    [set(0.95), set(0.95)],
                    [set(0.85), set(0.45)],
                    [set(0.75), set(0.45)],
                ],
            ),
            (Form::Unchecked, TYPO_WITH_STRONG_LABEL),
        ],
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
        tables: &[(
            Form::Main,
            [
                [set(0.95), set(0.95)],
                [set(0.75), set(0.3)],
                [set(0.6), set(0.3)],
            ],
        )],
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
        tables: &[
            // With a valid ICAO check digit.
            (
                Form::Main,
                [
                    [set(0.95), set_minus(0.95, 0.3)],
                    [set(0.75), set_minus(0.75, 0.3)],
                    [set(0.55), set_minus(0.55, 0.3)],
                ],
            ),
            // Without a check digit: product codes look alike, only a strong word lifts it.
            (
                Form::Unchecked,
                [
                    [set(0.8), set_minus(0.8, 0.3)],
                    [set(0.3), set_minus(0.3, 0.3)],
                    [set(0.3), set_minus(0.3, 0.3)],
                ],
            ),
        ],
    },
    Rule {
        entity: EntityType::EmailAddress,
        lists: |l| [&l.email_context_strong, &l.email_context_weak, &[]],
        back: 50,
        tables: &[(Form::Main, boost(0.1, 0.1, 0.0))],
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
        tables: &[(Form::Main, boost(0.05, 0.05, 0.15))],
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
        tables: &[(Form::Main, boost(0.3, 0.15, 0.3))],
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
        tables: &[(Form::Main, boost(0.2, 0.1, 0.3))],
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
        tables: &[
            (Form::Main, boost(0.35, 0.2, 0.3)),
            (
                Form::Unchecked,
                [[set(0.7), DROP], [DROP, DROP], [DROP, DROP]],
            ),
        ],
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
        tables: &[(Form::Main, boost(0.15, 0.1, 0.15))],
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
        tables: &[(Form::Main, boost(0.35, 0.1, 0.3))],
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
        tables: &[(Form::Main, boost(0.35, 0.15, 0.3))],
    },
    Rule {
        entity: EntityType::IpAddress,
        lists: |l| {
            [
                &l.ip_context_strong,
                &l.ip_context_weak,
                &l.ip_context_negative,
            ]
        },
        back: 50,
        tables: &[
            // IPv4.
            (Form::Main, boost(0.2, 0.1, IP_V4_PENALTY)),
            // IPv6.
            (Form::Alternate, boost(0.2, 0.1, 0.3)),
            // First number below 10 (`2.4.1.0`): without a strong word 0.3 less.
            (
                Form::VersionLike,
                [
                    [base(0.2, 0.0), base(0.2, IP_V4_PENALTY)],
                    [base_less(0.3, 0.1, 0.0), base_less(0.3, 0.1, IP_V4_PENALTY)],
                    [base_less(0.3, 0.0, 0.0), base_less(0.3, 0.0, IP_V4_PENALTY)],
                ],
            ),
            // A version word before it: 0.55 with a strong word, else from 0.
            (
                Form::AfterVersionWord,
                [
                    [fixed(0.55, 0.2, 0.0), fixed(0.55, 0.2, IP_V4_PENALTY)],
                    [fixed(0.0, 0.1, 0.0), fixed(0.0, 0.1, IP_V4_PENALTY)],
                    [fixed(0.0, 0.0, 0.0), fixed(0.0, 0.0, IP_V4_PENALTY)],
                ],
            ),
            // Its own label names a version: from 0 whatever the words.
            (Form::VersionLabel, boost_from(0.0, 0.2, 0.1, IP_V4_PENALTY)),
        ],
    },
    Rule {
        entity: EntityType::KfzKennzeichen,
        lists: |l| {
            [
                &l.kfz_context_strong,
                &l.kfz_context_weak,
                &l.kfz_context_negative,
            ]
        },
        back: 50,
        tables: &[
            (Form::Main, boost(0.2, 0.2, 0.3)),
            // The Main table, then 0.3 less; with a negative word both in one cell, clamped at
            // 0 (subtracted after the clamp it went below 0; either way far below 0.5).
            (
                Form::AfterCapsWord,
                [
                    [base(0.2, KFZ_AFTER_CAPS), base(0.2, 0.3 + KFZ_AFTER_CAPS)],
                    [base(0.2, KFZ_AFTER_CAPS), base(0.2, 0.3 + KFZ_AFTER_CAPS)],
                    [base(0.0, KFZ_AFTER_CAPS), base(0.0, 0.3 + KFZ_AFTER_CAPS)],
                ],
            ),
        ],
    },
    Rule {
        entity: EntityType::Location,
        lists: |l| {
            [
                &l.location_context_strong,
                &l.location_context_weak,
                &l.location_context_negative,
            ]
        },
        back: 50,
        // Streets only (postcodes and towns read their context themselves): a strong word
        // lifts them, weak and negative words do not count.
        tables: &[
            // A German street and house number.
            (
                Form::Main,
                [
                    [base(0.15, 0.0), base(0.15, 0.0)],
                    [base(0.0, 0.0), base(0.0, 0.0)],
                    [base(0.0, 0.0), base(0.0, 0.0)],
                ],
            ),
            // The number first, the English way (`42 Baker Street`).
            (
                Form::Alternate,
                [
                    [set(0.85), set(0.85)],
                    [base(0.0, 0.0), base(0.0, 0.0)],
                    [base(0.0, 0.0), base(0.0, 0.0)],
                ],
            ),
        ],
    },
];

/// A rule compiled: its context words in one automaton.
struct Compiled {
    rule: &'static Rule,
    index: ContextIndex,
}

/// Builds the compiled rules now (the detector's constructor), so that no text waits for them.
pub(crate) fn prepare() {
    compiled();
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
        // So does a form its type has no table for.
        let Some((_, table)) = rule.tables.iter().find(|(f, _)| *f == form) else {
            return true;
        };
        let mut found = compiled.index.evidence_within(s, c.start, c.end, rule.back);
        // A negative cue the recognizer found itself (DATE's amount words) counts as well.
        found.negative |= c.evidence.context.negative();
        if needs == Needs::Strong && !found.strong {
            return false;
        }
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
        let start = match from {
            Start::Base => c.score,
            Start::BaseLess(cut) => c.score - cut,
            Start::Fixed(score) => score,
        };
        c.score = (start + up - down).clamp(0.0, 1.0);
        c.evidence.context = found.cues();
        true
    });
}

#[cfg(test)]
#[path = "context_rules_tests.rs"]
mod tests;

//! SV-Nummer (entities.md §10): 2 + 6 digits, letter, 2 digits, check digit; optional single
//! space/hyphen separators at the group borders.

use regex::Regex;

use super::{cand, numeric_standalone, Context};
use crate::detect::{validate, Candidate, EntityType, Recognizer, Text};

const CONTEXT: Context = Context {
    strong: &[
        "sozialversicherungsnummer",
        "sv-nummer",
        "sv-nr.",
        "sv-nr",
        "svnr",
        "svn",
        "versicherungsnummer",
        "vsnr",
        "versnr",
        "vers.-nr.",
        "rentenversicherungsnummer",
        "rv-nummer",
        "rvnr",
        "rv-nr.",
        "sozialversicherungsausweis",
        "social security number",
    ],
    weak: &[
        "rentenversicherung",
        "drv",
        "krankenkasse",
        "arbeitgeber",
        "lohnabrechnung",
        "deüv",
    ],
    negative: &[
        "krankenversichertennummer",
        "kvnr",
        "versicherungsscheinnummer",
        "policennummer",
        "vertragsnummer",
    ],
};

pub struct SvNummerRecognizer {
    pattern: Regex,
}

impl SvNummerRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(
            r"[0-9]{2}[ -]?[0-9]{2} ?[0-9]{2} ?[0-9]{2}[ -]?[A-Za-z][ -]?[0-9]{2} ?[0-9]",
        )
        .expect("static SV pattern");
        SvNummerRecognizer { pattern }
    }
}

impl Recognizer for SvNummerRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::SvNummer
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(&self.pattern, s, text.digit_windows()) {
            if !numeric_standalone(s, m.start(), m.end()) {
                continue;
            }
            let compact: Vec<u8> = m
                .as_str()
                .bytes()
                .filter(u8::is_ascii_alphanumeric)
                .collect();
            let Some(strict) = validate::sv_nummer(&compact) else {
                continue;
            };
            let ev = CONTEXT.evidence(s, m.start(), m.end());
            let base = if strict { 0.85 } else { 0.6 };
            let score = ev.score(base, 0.15, 0.1, 0.15);
            out.push(cand(EntityType::SvNummer, m.start(), m.end(), score, true));
        }
    }
}

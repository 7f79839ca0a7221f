//! Structured data: the value of a name key in JSON, YAML or form data (`"firstName": "Anna"`,
//! `name='Anna Schmidt'`). The keys come from `data/lexicon/person_field_keys.txt`.

use super::scores::FIELD;
use crate::lexicon::{class, Lexicon};
use crate::recognizers::{cand, field_captures_in, WindowMatch};
use crate::{Candidate, EntityType, Text};

pub(super) struct Fields {
    pattern: regex::Regex,
}

impl Fields {
    pub fn new(lex: &Lexicon) -> Fields {
        let keys = lex.lists.person_field_keys.join("|");
        let pattern = regex::Regex::new(&format!(
            r#"(?i)["']?(?:{keys})["']?\s*[:=]\s*["']([^"'\n,;{{}}]{{1,60}})["']"#
        ))
        .expect("static field pattern");
        Fields { pattern }
    }

    /// Appends the name values of structured fields in `text` to `out`.
    pub fn find(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for (base, c) in field_captures_in(&self.pattern, s, text.field_windows()) {
            if let Some(v) = c.get(1) {
                let v = WindowMatch::new(s, base + v.start(), base + v.end());
                let t = v.as_str();
                if t.chars().any(char::is_alphabetic)
                    && t.chars().all(|x| {
                        x.is_alphabetic()
                            || matches!(x, ' ' | '-' | '.' | '\'' | '\u{300}'..='\u{36f}')
                    })
                    && !identifier(t)
                {
                    let c = cand(EntityType::Person, v.start(), v.end(), FIELD.score, false);
                    out.push(c.because(FIELD.basis));
                }
            }
        }
    }
}

/// A lower-case, hyphenated value without a space whose parts no name list holds: the name of
/// a thing in code (`name: 'review-changes'`), not of a person.
fn identifier(value: &str) -> bool {
    let lex = Lexicon::get();
    value.contains('-')
        && !value.contains(' ')
        && !value.chars().any(char::is_uppercase)
        && value
            .split('-')
            .all(|p| lex.form_bits(p) & (class::FIRST_NAME | class::LAST_NAME) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_keys_give_their_values() {
        let fields = Fields::new(Lexicon::get());
        let s = r#"{"firstName": "Anna", "city": "Köln", "last_name": "Nowak"}"#;
        let mut out = Vec::new();
        fields.find(&Text::new(s), &mut out);
        let values: Vec<&str> = out.iter().map(|c| &s[c.start..c.end]).collect();
        assert_eq!(values, vec!["Anna", "Nowak"]);
        // The name of a thing in code is no person's.
        let s = "export const meta = { name: 'review-changes', owner: 'anna' }";
        let mut out = Vec::new();
        fields.find(&Text::new(s), &mut out);
        assert!(out.is_empty(), "{out:?}");
    }
}

//! One recognizer per entity type, a file each; the registry that runs them is
//! [`crate::registry`]. Shared helpers: span and window helpers in [`window`], context scoring in
//! [`context`].

mod address_line;
pub(crate) mod ausweis;
mod context;
pub(crate) mod credit_card;
pub(crate) mod date;
pub(crate) mod email;
mod english_address;
pub(crate) mod iban;
pub(crate) mod ip;
pub(crate) mod kfz;
pub(crate) mod kvnr;
pub(crate) mod location;
pub(crate) mod person;
pub(crate) mod phone;
pub(crate) mod secret;
pub(crate) mod steuer_id;
pub(crate) mod steuernummer;
mod street;
pub(crate) mod sv_nummer;
mod town_noun;
pub(crate) mod url;
pub(crate) mod us_ssn;
pub(crate) mod ust_id;
mod window;
mod word_scan;

pub(crate) use super::finding::cand;

pub(crate) use context::{with_exact_lower, with_lower, Context, ContextIndex};
pub(crate) use window::{
    before, captures_in, ceil_boundary, clusters, field_captures_in, find_in, floor_boundary,
    number_continues_left, number_continues_right, numeric_standalone, standalone, widen,
    WindowMatch,
};

/// What one recognizer alone proposes in a text, for the recognizers' own tests: the values
/// (from the view) with their scores and whether a check digit confirmed them.
#[cfg(test)]
pub(crate) fn proposed(r: &dyn crate::Recognizer, s: &str) -> Vec<(String, f32, bool)> {
    let text = crate::Text::new(s);
    let mut out = Vec::new();
    r.recognize(&text, &mut out);
    crate::context_rules::apply(&text, &mut out);
    out.iter()
        .map(|c| (text.view()[c.start..c.end].to_owned(), c.score, c.validated))
        .collect()
}

/// True when some proposal of `r` on `s` passed its check digits.
#[cfg(test)]
pub(crate) fn validated(r: &dyn crate::Recognizer, s: &str) -> bool {
    proposed(r, s).iter().any(|(_, _, validated)| *validated)
}

/// The values of [`proposed`] at or above the default threshold.
#[cfg(test)]
pub(crate) fn kept(r: &dyn crate::Recognizer, s: &str) -> Vec<String> {
    proposed(r, s)
        .into_iter()
        .filter(|(_, score, _)| *score >= crate::DEFAULT_THRESHOLD)
        .map(|(v, _, _)| v)
        .collect()
}

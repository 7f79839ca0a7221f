//! Phase 4, repeated mentions: a surname or given name alone that repeats a word of a name
//! found with confidence (`Nowak` after `Katarzyna Nowak`), also in the genitive (`Nowaks`).

use super::facts::{length_bit, NameContext};
use super::scores::{push, Found, CONFIDENT, MENTION};
use crate::recognizers::cand;
use crate::words::Shape;
use crate::{Candidate, EntityType};

/// Appends repeated mentions of the names in `found` (to `found`, or to `out` for a genitive).
pub(super) fn find(cx: &NameContext<'_>, found: &mut Found, out: &mut Vec<Candidate>) {
    let (s, n) = (cx.text, cx.words.len());
    // 4. Repeated mentions of names found with confidence (surname or given name alone).
    let mut known: Vec<&str> = Vec::new();
    for &(a, b, p) in found.iter() {
        if p.score >= CONFIDENT {
            for k in a..=b {
                if cx.words[k].shape != Shape::Lower && !cx.is_initial(k) && !cx.word_info[k].stop {
                    known.push(cx.words[k].text(s));
                }
            }
        }
    }
    if !known.is_empty() {
        known.sort_unstable();
        known.dedup();
        // Most words differ in first byte or length from every known name (and its
        // genitive): a bit test per word keeps the search off the hot path.
        let mut lengths = vec![0u128; 256];
        for k in &known {
            let first = k.as_bytes().first().map_or(0, |&b| usize::from(b));
            lengths[first] |= length_bit(k.len()) | length_bit(k.len() + 1);
        }
        // Words inside a name of several words are that name, not a mention of it.
        let mut in_name = vec![false; n];
        for &(a, b, _) in found.iter().filter(|(a, b, _)| b > a) {
            in_name[a..=b].fill(true);
        }
        for (i, &inside) in in_name.iter().enumerate() {
            if inside {
                continue;
            }
            let t = cx.words[i].text(s);
            let first = t.as_bytes().first().map_or(0, |&b| usize::from(b));
            if lengths[first] & length_bit(t.len()) == 0 {
                continue;
            }
            let base = t
                .strip_suffix('s')
                .filter(|b| known.binary_search(b).is_ok());
            if known.binary_search(&t).is_ok() {
                push(found, i, i, MENTION);
            } else if base.is_some() {
                let (a, _) = cx.span(i, i);
                let end = cx.words[i].end - 1;
                out.push(
                    cand(EntityType::Person, a, end, MENTION.score, false).because(MENTION.basis),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::names;

    #[test]
    fn a_surname_repeats_a_confident_name() {
        assert_eq!(
            names("Katarzyna Nowak kam. Später sagte Nowak nichts."),
            vec!["Katarzyna Nowak", "Nowak"]
        );
        // Without a confident name first, a lone common word stays a word.
        assert_eq!(names("Die Kosten stiegen."), Vec::<String>::new());
    }
}

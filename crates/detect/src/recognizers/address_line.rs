//! LOCATION from the shape of an address line (docs/entities.md §13.1): the street of
//! `Name 12, 12345 Town` whose name no street pattern knows (`Zeil 106`, gazetteer-only streets,
//! unusual spellings). [`street_before`] reads it back from the postcode the location
//! recognizer found.

use crate::lexicon::{class, Lexicon};
use crate::text::Lexed;
use crate::words::{Shape, Word};

/// Score of a street read off an address line ([`street_before`]): the
/// shape vouches for it, not the name.
pub(super) const STREET: f32 = 0.7;

/// A house number: 1–999, then an optional letter, then an optional range or sub-number
/// (`12`, `7a`, `40-42`, `12/1`).
fn is_house_number(t: &str) -> bool {
    let b = t.as_bytes();
    let digits = |from: usize| {
        b[from.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let n = digits(0);
    if !(1..=3).contains(&n) || b[0] == b'0' {
        return false;
    }
    let mut i = n + usize::from(b.get(n).is_some_and(u8::is_ascii_alphabetic));
    if matches!(b.get(i), Some(b'-' | b'/')) {
        let m = digits(i + 1);
        if !(1..=3).contains(&m) {
            return false;
        }
        i += 1 + m;
        i += usize::from(b.get(i).is_some_and(u8::is_ascii_alphabetic));
    }
    i == b.len()
}

/// The street of an address line whose name the street pattern does not know (`Zeil 106,
/// 60313 Frankfurt`, `in der Kattreper Kuhle 3, 12345 Musterdorf`): the words before a house
/// number (1–999, a letter or range after it) that stands right before `, ` and the
/// postcode at `at`. The name runs back from the number over at most four words joined by
/// single spaces and stops before a stop word or article, a label, salutation, title or
/// role, an address word (`Anschrift`), a given name, or any other gap; its first word is
/// capitalised. Returns its byte span.
pub(super) fn street_before(
    s: &str,
    words: &[Word],
    lexed: &Lexed,
    lexicon: &Lexicon,
    at: usize,
) -> Option<(usize, usize)> {
    let head = s.get(..at)?.strip_suffix(", ")?;
    let num_start = head.rfind(' ')? + 1;
    if !is_house_number(&head[num_start..]) {
        return None;
    }
    let last = words
        .partition_point(|w| w.end < num_start)
        .checked_sub(1)?;
    if words.get(last)?.end + 1 != num_start {
        return None;
    }
    let lists = &lexicon.lists;
    let halts = class::STOP
        | class::DETERMINER
        | class::LABEL
        | class::SALUTATION
        | class::TITLE
        | class::ROLE;
    let mut first = None;
    let mut j = last;
    loop {
        let facts = lexed.facts().get(j)?;
        let low = lexed.low(j);
        if facts.bits & halts != 0
            || facts.cased & class::FIRST_NAME != 0
            || lists.location_context_strong.contains(&low)
            || lists.location_context_weak.contains(&low)
        {
            break;
        }
        first = Some(j);
        if last - j == 3 || j == 0 || s.get(words[j - 1].end..words[j].start) != Some(" ") {
            break;
        }
        j -= 1;
    }
    let w = words.get(first?)?;
    (w.shape == Shape::Capitalised).then_some((w.start, head.len()))
}

#[cfg(test)]
mod tests {
    use crate::recognizers::person::places;

    #[test]
    fn an_address_line_gives_the_street_its_pattern_misses() {
        assert_eq!(
            places("Treffpunkt ist Zeil 106, 60313 Frankfurt am Main."),
            vec!["Zeil 106", "60313 Frankfurt am Main"]
        );
        assert_eq!(
            places("Wir sitzen in der Kattreper Kuhle 3b, 12345 Musterdorf."),
            vec!["Kattreper Kuhle 3b", "12345 Musterdorf"]
        );
        // No house number (an order number has more digits), no street.
        assert_eq!(
            places("Bestellung 47110, 80331 München"),
            vec!["80331 München"]
        );
        assert_eq!(
            places("Rechnung 4711, 80331 München"),
            vec!["80331 München"]
        );
    }

    #[test]
    fn house_numbers() {
        for (t, ok) in [
            ("12", true),
            ("7a", true),
            ("40-42", true),
            ("12/1", true),
            ("999", true),
            ("1000", false),
            ("012", false),
            ("12ab", false),
            ("", false),
            ("a1", false),
        ] {
            assert_eq!(super::is_house_number(t), ok, "{t}");
        }
    }
}

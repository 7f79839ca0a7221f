//! LOCATION (docs/entities.md §13): street + house number, postcode + town, and a town named alone
//! after a preposition or label. Towns come from the GeoNames gazetteer (see NOTICE). Streets are
//! scored by the context step (`crate::context_rules`); postcodes and towns read their context
//! words here, where those decide whether there is a candidate at all (docs/detection.md).

use regex::Regex;

use super::address_line;
use super::context::{lower, with_exact_lower};
use super::english_address::EnglishAddresses;
use super::street::{house_number_start, street_windows, StreetKind, StreetSearch};
use super::town_noun;
use super::{cand, Context, ContextIndex};
use crate::finding::{Form, Needs};
use crate::lexicon::{class, Lexicon};
use crate::text::{Lexed, WordFacts};
use crate::words::{Shape, Word};
use crate::{Candidate, EntityType, Recognizer, Text};

pub struct LocationRecognizer {
    /// Structured data: `"city": "Köln"`, `"zip": "50667"`, `"street": "Hauptstraße 1"`.
    field: Regex,
    /// German street + house number, one pattern per [`StreetKind`].
    street: StreetSearch,
    /// English, UK and US addresses: `42 Baker Street`, `London NW1 6XE`.
    english: EnglishAddresses,
    /// Address context (`Anschrift`, `wohnt`, `in`) of postcodes; streets ask the context
    /// step, whose rule holds the same lists.
    context: ContextIndex,
    /// Context of a town named alone: labels (`Wohnort:`) as weak, residence words as strong.
    town_context: ContextIndex,
    lexicon: &'static Lexicon,
    /// `street_stop` as a set: looked up once per compound street.
    street_stop: ahash::AHashSet<&'static str>,
}

impl LocationRecognizer {
    pub fn new() -> Self {
        let lexicon = Lexicon::get();
        let lists = &lexicon.lists;
        let street = StreetSearch::new(lists);
        let field = Regex::new(&format!(
            r#"(?i)["']?(?:{})["']?\s*[:=]\s*["']([^"'\n{{}}]{{2,80}})["']"#,
            lists.location_field_keys.join("|")
        ))
        .expect("static field pattern");
        LocationRecognizer {
            field,
            street,
            english: EnglishAddresses::new(lists),
            context: ContextIndex::new(&Context {
                strong: &lists.location_context_strong,
                weak: &lists.location_context_weak,
                negative: &lists.location_context_negative,
            }),
            town_context: ContextIndex::new(&Context {
                strong: &lists.town_context_strong,
                weak: &lists.town_labels,
                negative: &[],
            }),
            lexicon,
            street_stop: lists.street_stop.iter().copied().collect(),
        }
    }

    fn streets(
        &self,
        s: &str,
        windows: &[(usize, usize)],
        out: &mut Vec<Candidate>,
    ) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for (kind, start, end) in self.street.matches(s, windows) {
            let num_start = house_number_start(s, start, end);
            let num = &s[num_start..end];
            if s[..start]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
            {
                continue;
            }
            let next = s[end..].chars().next();
            if next.is_some_and(char::is_alphanumeric)
                || (matches!(next, Some('.' | ',' | ':'))
                    && s[end + 1..].starts_with(|x: char| x.is_ascii_digit()))
            {
                continue;
            }
            let lists = &self.lexicon.lists;
            let name = s[start..num_start].trim_end();
            // The house number's leading digits as `parse` reads them (0 when none or too many).
            let number: u32 = num
                .bytes()
                .take_while(u8::is_ascii_digit)
                .try_fold(0u32, |n, d| {
                    n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
                })
                .filter(|_| num.starts_with(|c: char| c.is_ascii_digit()))
                .unwrap_or(0);
            // Unit after the number: `Parkplatz 10 Minuten`.
            let rest = s[end..].trim_start_matches(' ');
            let unit_end = rest
                .char_indices()
                .find(|&(_, x)| !(x.is_alphabetic() || x == '%' || x == '€'))
                .map_or(rest.len(), |(i, _)| i);
            // (No list holds an empty word.)
            let unit = unit_end > 0
                && with_exact_lower(&rest[..unit_end], |next_word| {
                    lists.number_units.contains(&next_word) || next_word == "%" || next_word == "€"
                });
            if unit {
                continue;
            }
            let Some(base) = with_exact_lower(name, |name_lower| {
                self.street_base(kind, name_lower, number)
            }) else {
                continue;
            };
            found.push((start, end));
            // The context step lifts it after a strong word.
            out.push(
                cand(EntityType::Location, start, end, base, false)
                    .asking(Form::Main, Needs::Nothing),
            );
        }
        found
    }

    /// Base score of a street match of `kind` with the name `name_lower` (lowercase) and house
    /// number `number`; `None` when the name or number rules it out.
    fn street_base(&self, kind: StreetKind, name_lower: &str, number: u32) -> Option<f32> {
        let lists = &self.lexicon.lists;
        let last_word = name_lower.rsplit([' ', '-']).next().unwrap_or("");
        match kind {
            StreetKind::Compound => {
                if self.street_stop.contains(name_lower) || number > 2000 {
                    return None;
                }
                let weak_suffix = lists
                    .weak_street_suffixes
                    .iter()
                    .any(|suf| name_lower.ends_with(suf));
                Some(if weak_suffix { 0.6 } else { 0.75 })
            }
            StreetKind::TwoWord => {
                let first = name_lower.split(' ').next().unwrap_or("");
                (!self.lexicon.is_stop(first) && number <= 2000).then_some(0.75)
            }
            StreetKind::Prep => (!lists.prep_street_stop.contains(&last_word)
                && !self.lexicon.is_stop(last_word)
                && number <= 999)
                .then_some(0.6),
            StreetKind::Named => Some(0.75),
        }
    }

    /// The longest run of words from `first` that names a place: `Frankfurt am Main`,
    /// `Halle (Saale)`, `Bad Homburg`. Returns (end byte, in gazetteer).
    fn town_at(
        &self,
        s: &str,
        words: &[Word],
        first: usize,
        set: &ahash::AHashSet<&'static str>,
    ) -> Option<(usize, bool)> {
        let w0 = words.get(first)?;
        if w0.shape != Shape::Capitalised && w0.shape != Shape::Upper {
            return None;
        }
        let mut best: Option<(usize, bool)> = None;
        let mut prev_end = w0.end;
        for k in 0..4 {
            let Some(w) = words.get(first + k) else { break };
            if k > 0 {
                let gap = &s[prev_end..w.start];
                if !(gap == " " || gap == ". " || gap == " (") || gap.contains('\n') {
                    break;
                }
            }
            prev_end = w.end;
            let mut end = w.end;
            if s[end..].starts_with(')') && s[w0.start..end].contains('(') {
                end += 1;
            }
            let name = &s[w0.start..end];
            if set.contains(name) {
                best = Some((end, true));
            } else if let Some(head) = name.split('-').next().filter(|h| h.len() < name.len()) {
                // `Köln-Ehrenfeld`: a known town plus a district.
                if k == 0 && set.contains(head) {
                    best = Some((end, true));
                }
            }
        }
        best.or(Some((w0.end, false)))
    }

    /// Postcodes with their town (`50667 Köln`, `D-50667 Köln`), a five-digit postcode alone in
    /// address context, and the street an address line holds before its postcode.
    fn postcodes(
        &self,
        s: &str,
        digit_runs: &[(usize, usize)],
        words: &[Word],
        lexed: &Lexed,
        streets: &[(usize, usize)],
        out: &mut Vec<Candidate>,
    ) {
        for &(digits_start, digits_end) in digit_runs {
            let Some(start) = self.postcode_start(s, digits_start, digits_end) else {
                continue;
            };
            let lists = &self.lexicon.lists;
            let prefixed = start < digits_start;
            let digits = &s[digits_start..digits_end];
            let zero_zero = digits.len() == 5 && digits.starts_with("00");
            // The town: the first word after the postcode, on the same line.
            let wi = words.partition_point(|w| w.start <= digits_end);
            // Streets are in text order: only those ending at most 3 bytes before are looked at
            // (a scan of all of them per postcode was quadratic on long address lists).
            let near = streets.partition_point(|&(_, e)| e + 3 < start);
            let mut after_street = streets[near..]
                .iter()
                .take_while(|&&(_, e)| e <= start)
                .any(|&(_, e)| s[e..start].chars().all(|c| matches!(c, ',' | ' ' | '\n')));
            // Context words are looked up last: most numbers fail the cheaper checks.
            // Looked up once, when first needed.
            let strong_memo = std::cell::OnceCell::new();
            let strong_context =
                || *strong_memo.get_or_init(|| self.context.strong(s, start, digits_end));
            let town = words.get(wi).filter(|w| w.start == digits_end + 1);
            let Some(w) = town else {
                if digits.len() == 5 && strong_context() {
                    out.push(cand(EntityType::Location, start, digits_end, 0.7, false));
                }
                continue;
            };
            let word_text = w.text(s);
            let wl = lower(word_text);
            if lists.after_number_stop.contains(&wl.as_str()) || self.lexicon.is_stop(&wl) {
                continue;
            }
            let newline_gap = s[digits_end..w.start].contains('\n');
            if newline_gap {
                continue;
            }
            let Some((end, known)) = self.town_at(s, words, wi, &self.lexicon.places) else {
                continue;
            };
            if zero_zero {
                // German postcodes never start with 00 (docs/entities.md §13.1): not a postcode, but a
                // known town after it is still a place in an address line.
                if known {
                    out.push(cand(EntityType::Location, w.start, end, 0.7, false));
                }
                continue;
            }
            // A street the pattern does not know, read off the address line (`Zeil 106, `).
            let street = if after_street || !(digits.len() == 5 || prefixed || known) {
                None
            } else {
                address_line::street_before(s, words, lexed, self.lexicon, start)
            };
            after_street |= street.is_some();
            let score = postcode_score(known, digits.len() == 5, prefixed, after_street);
            let score = if after_street || strong_context() {
                (score + 0.15_f32).min(0.95)
            } else {
                score
            };
            if let Some((a, e)) = street.filter(|_| score >= 0.5) {
                let street_score = if strong_context() {
                    address_line::STREET + 0.15
                } else {
                    address_line::STREET
                };
                out.push(cand(EntityType::Location, a, e, street_score, false));
            }
            out.push(cand(EntityType::Location, start, end, score, false));
        }
    }

    /// Where the postcode of the digits `digits_start..digits_end` starts (with a country prefix
    /// such as `D-`), or `None` when they cannot be one: not 4 or 5 digits before a space or line
    /// break, inside a longer token, a year, or after a word that makes them a year, an amount or
    /// an order number.
    fn postcode_start(&self, s: &str, digits_start: usize, digits_end: usize) -> Option<usize> {
        let b = s.as_bytes();
        // 4 or 5 digits and a space or line break: `50667 Köln`, `D-50667 Köln`.
        if !(4..=5).contains(&(digits_end - digits_start))
            || !matches!(b.get(digits_end), Some(b' ' | b'\n'))
        {
            return None;
        }
        let lists = &self.lexicon.lists;
        let start = lists
            .country_prefixes
            .iter()
            .find(|p| s[..digits_start].ends_with(**p))
            .map_or(digits_start, |p| digits_start - p.len());
        if s[..start].chars().next_back().is_some_and(|c| {
            c.is_alphanumeric() || c == '.' || c == ',' || c == '-' || c == '/' || c == '+'
        }) {
            return None;
        }
        let prefixed = start < digits_start;
        let digits = &s[digits_start..digits_end];
        let n: u32 = digits.parse().unwrap_or(0);
        if digits.len() == 4 && !prefixed && (1900..=2100).contains(&n) {
            return None;
        }
        let before_word = lower(
            s[..start]
                .trim_end()
                .rsplit(|c: char| !c.is_alphanumeric() && c != '.')
                .next()
                .unwrap_or(""),
        );
        if lists.postcode_not_after.contains(&before_word.as_str()) {
            return None;
        }
        Some(start)
    }

    /// Towns named alone, each scored by the words around it.
    fn towns(&self, s: &str, words: &[Word], lexed: &Lexed, out: &mut Vec<Candidate>) {
        // End of the last town seen, and whether context made it a place.
        let mut last_town: Option<(usize, bool)> = None;
        for (i, &w) in words.iter().enumerate() {
            let facts = lexed.facts().get(i).copied();
            if !self.may_be_town(s, w, facts) {
                continue;
            }
            let (end, _) = if w.shape == Shape::Capitalised {
                self.town_at(s, words, i, &self.lexicon.towns)
                    .unwrap_or((w.end, true))
            } else {
                (w.end, true)
            };
            let bits = facts.map_or(0, |f| f.bits);
            let signs = self.town_signs(s, words, i, end, bits, last_town);
            // `to poll`, `zu essen`: a lower-case word after an infinitive marker is a verb.
            if w.shape == Shape::Lower
                && self
                    .lexicon
                    .lists
                    .verb_markers
                    .contains(&signs.prev_lower.as_str())
            {
                continue;
            }
            let score = self.town_score(s, words, lexed, i, end, &signs);
            if score > 0.0 {
                out.push(cand(EntityType::Location, w.start, end, score, false));
            }
            let placed = signs.prep || signs.arrow || signs.label || signs.dateline;
            last_town = Some((end, score >= 0.5 && placed));
        }
    }

    /// Whether the word `w` may name a town: a known one, a known one before a hyphen
    /// (`Köln-Ehrenfeld`), or a lower-case one that is no common word.
    fn may_be_town(&self, s: &str, w: Word, facts: Option<WordFacts>) -> bool {
        let bits = facts.map_or(0, |f| f.bits);
        match w.shape {
            // Segmentation noted the hyphen, so most words need no search for one.
            Shape::Capitalised => {
                facts.is_some_and(|f| f.cased & class::TOWN != 0)
                    || w.hyphen && {
                        let text = w.text(s);
                        text.as_bytes()
                            .iter()
                            .position(|&c| c == b'-')
                            .and_then(|h| text.get(..h))
                            .is_some_and(|head| self.lexicon.towns.contains(head))
                    }
            }
            Shape::Lower => {
                w.text(s).len() >= 4
                    && bits & class::TOWN != 0
                    && bits & (class::STOP | class::COMMON) == 0
            }
            _ => false,
        }
    }

    /// What the text around the town `words[i]` (ending at `end`) says about it.
    fn town_signs(
        &self,
        s: &str,
        words: &[Word],
        i: usize,
        end: usize,
        bits: u32,
        last_town: Option<(usize, bool)>,
    ) -> TownSigns {
        let w = words[i];
        let lists = &self.lexicon.lists;
        // Context: preposition or arrow directly before, or a label.
        let prev_text = s[..w.start].trim_end_matches([' ', '\u{a0}']);
        let prev_word = i
            .checked_sub(1)
            .map(|j| words[j])
            .filter(|p| p.end == prev_text.len());
        let prev_lower = prev_word.map(|p| lower(p.text(s))).unwrap_or_default();
        let arrow = prev_text.ends_with('→')
            || prev_text.ends_with("->")
            || s[end..].trim_start().starts_with('→')
            || s[end..].trim_start().starts_with("->");
        // A town that continues an enumeration of towns found with context
        // (`in Paris, Wien und Zürich`) has the same context.
        let enumerated = last_town.is_some_and(|(e, strong)| {
            strong
                && matches!(
                    s.get(e..w.start),
                    Some(
                        ", " | " und "
                            | " oder "
                            | " and "
                            | " or "
                            | " sowie "
                            | "/"
                            | " / "
                            | " bzw. "
                    )
                )
        });
        let prep = enumerated || lists.town_prepositions.contains(&prev_lower.as_str());
        let context = self.town_context.before(s, w.start, 40);
        let label = prev_text.ends_with(':') && context.weak;
        let org_before =
            prev_word.is_some_and(|p| lists.org_words.contains(&lower(p.text(s)).as_str()));
        let next_text = s[end..].trim_start_matches(' ');
        let org_after = lists.org_after.iter().any(|o| next_text.starts_with(o));
        let line_start = s[..w.start].rfind('\n').map_or(0, |p| p + 1);
        let dateline = s[line_start..w.start].trim().is_empty()
            && s[end..].starts_with(", ")
            && s[end + 2..].starts_with(|c: char| c.is_ascii_digit());
        TownSigns {
            prev_lower,
            prep,
            arrow,
            label,
            strong: context.strong,
            org: org_before || org_after,
            dateline,
            ambiguous: bits & class::AMBIGUOUS_TOWN != 0,
        }
    }

    /// The score of the town `words[i]` from its signs; 0 when it is no place here.
    fn town_score(
        &self,
        s: &str,
        words: &[Word],
        lexed: &Lexed,
        i: usize,
        end: usize,
        signs: &TownSigns,
    ) -> f32 {
        let lists = &self.lexicon.lists;
        let shape = words[i].shape;
        if signs.org {
            0.0
        } else if signs.ambiguous {
            if (signs.prep && signs.strong) || signs.label {
                0.7
            } else if shape == Shape::Capitalised
                && lists
                    .place_prepositions
                    .contains(&signs.prev_lower.as_str())
                && !lists.ambiguous_town_idioms.contains(&lexed.low(i))
                && !town_noun::coordinated_noun(s, words, lexed, end)
            {
                // `in Weiden`, `nach Hof`: the noun would need an article (`in den
                // Weiden`); not in an idiom (`in Brand`, `aus Stein`) or a pair of nouns
                // (`in Bad und Küche`).
                town_noun::AFTER_PREPOSITION
            } else {
                0.0
            }
        } else if signs.label {
            0.8
        } else if signs.dateline {
            0.75
        } else if signs.prep || signs.arrow {
            if shape == Shape::Lower {
                0.6
            } else {
                0.7
            }
        } else {
            0.3
        }
    }
}

/// What the text around a possible town says about it.
struct TownSigns {
    /// The word before it, lower-cased.
    prev_lower: String,
    /// After a preposition (`in`, `nach`), or continuing an enumeration of towns found so.
    prep: bool,
    /// An arrow before or after it (`Berlin → Hamburg`).
    arrow: bool,
    /// After a label (`Wohnort:`).
    label: bool,
    /// Residence words before it.
    strong: bool,
    /// An organisation word before or after it: part of a name, not a place.
    org: bool,
    /// It opens a line and a date follows (`Berlin, 3. Mai`).
    dateline: bool,
    /// The town's name is also a common word (`Weiden`, `Hof`).
    ambiguous: bool,
}

/// The score of a postcode with its town, before context: a known town counts most, then a
/// street before it, then five digits.
fn postcode_score(known: bool, five_digits: bool, prefixed: bool, after_street: bool) -> f32 {
    if known && (five_digits || prefixed) {
        0.85
    } else if known {
        0.7
    } else if after_street && five_digits {
        0.8
    } else if five_digits {
        0.4
    } else {
        0.3
    }
}

impl Recognizer for LocationRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Location
    }

    fn is_heavy(&self) -> bool {
        true
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for (base, c) in super::field_captures_in(&self.field, s, text.field_windows()) {
            if let Some(v) = c.get(1) {
                let v = super::WindowMatch::new(s, base + v.start(), base + v.end());
                let t = v.as_str().trim();
                let digits = t.bytes().filter(u8::is_ascii_digit).count();
                let plausible = t.chars().any(char::is_alphabetic)
                    || (4..=5).contains(&digits) && digits == t.len();
                if plausible && t.len() == v.as_str().len() {
                    out.push(cand(EntityType::Location, v.start(), v.end(), 0.8, false));
                }
            }
        }
        let streets = self.streets(s, &street_windows(s, text.digit_runs()), out);
        self.english.find(s, text.digit_runs(), out);
        let words = text.words();
        self.postcodes(s, text.digit_runs(), words, text.lexed(), &streets, out);
        self.towns(s, words, text.lexed(), out);
    }
}

#[cfg(test)]
#[path = "location_tests.rs"]
mod tests;

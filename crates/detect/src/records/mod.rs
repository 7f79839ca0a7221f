//! Records: personal data in tables and record-shaped text — CSV/TSV, Markdown tables, SQL
//! `INSERT`, JSON objects and arrays, `key: value` / `key=value` lines and log lines.
//!
//! Prose rules anchor names and towns on the words around them; a table cell has no such words,
//! but it has a column. Each shape module finds its shape cheaply (a text without one pays a few
//! byte scans) and reports a [`Table`]: cells with the column they belong to and the column's
//! name, if any. The shared steps here then use what the record tells:
//!
//! - a column named like a personal field (`data/record_fields.txt`: `nachname`, `ort`, `plz`,
//!   `geburtstag`, …) makes its plausible cells that type ([`cells::plausible`]); a weak name
//!   (`name`) needs the table to have another personal column or a cell found as that type;
//! - a column without a known name whose other cells were found as PERSON or LOCATION (by the
//!   other recognizers or the gazetteers) carries the type to cells the gazetteers do not know;
//! - a value found so is found everywhere in the text;
//! - a column named as not personal (`betrag`, `status`, `id`) never takes a type.
//!
//! Letter datelines (`Guben, den 22.07.2024`) are a LOCATION anchor ([`dateline`]).
//!
//! The recognizer reads the candidates the others proposed (it is registered last), so it only
//! adds what they missed, with scores that let a whole cell win over a part of it.

mod cells;
mod dateline;
mod delimited;
pub(crate) mod fields;
mod json;
mod keyvalue;
mod markdown;
mod sql;
mod table;

use std::sync::OnceLock;

use ahash::AHashMap;

use super::finding::{cand, Basis};
use super::lexicon::{class, Lexicon};
use super::recognizers::with_exact_lower;
use super::values::ValueMatcher;
use super::{Candidate, EntityType, Recognizer, Text, DEFAULT_THRESHOLD};
use cells::Vouch;
use fields::Kind;
use table::{Cell, Table};

/// Candidates of the other word type scored below this are guesses a column outranks.
const ANCHORED_BELOW: f32 = 0.75;
/// Score of a cell whose column name gives its type.
const NAMED: f32 = 0.9;
/// Score of a cell that takes its type from the other cells of its column, and of a later
/// mention of a value found in a record.
const CARRIED: f32 = 0.8;

/// The candidates of the other recognizers that pass the threshold, sorted by start, and the
/// look-back that reaches every one overlapping a span.
struct Known(Vec<Candidate>, usize);

impl Known {
    fn new(out: &[Candidate]) -> Known {
        // Reserved for all: most candidates pass (a filtered collect grows step by step).
        let mut v: Vec<Candidate> = Vec::with_capacity(out.len());
        v.extend(
            out.iter()
                .filter(|c| c.score >= DEFAULT_THRESHOLD && c.start < c.end)
                .copied(),
        );
        // Stable: each recognizer's candidates are one run in text order, which a stable sort
        // merges (the order among equal starts does not matter to any reader of `Known`).
        v.sort_by_key(|c| c.start);
        // Candidates are short: at most 512 bytes back, less when the longest is shorter (a
        // candidate starting further back ends before the span).
        let back = v
            .iter()
            .map(|c| c.end - c.start)
            .max()
            .unwrap_or(0)
            .min(512);
        Known(v, back)
    }

    /// The candidates overlapping `[a, b)` that start at most 512 bytes before it.
    fn overlapping(&self, a: usize, b: usize) -> impl Iterator<Item = &Candidate> {
        let from = self.0.partition_point(|c| c.start + self.1 < a);
        let to = self.0.partition_point(|c| c.start < b);
        self.0[from..to.max(from)].iter().filter(move |c| c.end > a)
    }
}

/// True when the cell `v` at `[a, b)` shows type `t` by itself: a candidate of that type on it,
/// or a gazetteer word (a given or uncommon surname for PERSON, a town for LOCATION).
fn evidence(known: &Known, v: &str, a: usize, b: usize, t: EntityType) -> bool {
    known.overlapping(a, b).any(|c| c.entity_type == t) || in_gazetteer(v, t)
}

/// Bit of a type in [`overlap_bits`].
fn type_bit(t: EntityType) -> u8 {
    match t {
        EntityType::Person => 1,
        EntityType::Location => 2,
        _ => 4,
    }
}

/// [`type_bit`]s of the [`CARRIED_TYPES`] of the candidates overlapping `[a, b)`: one look-up
/// for both of a cell's [`evidence`] tests.
fn overlap_bits(known: &Known, a: usize, b: usize) -> u8 {
    known
        .overlapping(a, b)
        .filter(|c| CARRIED_TYPES.contains(&c.entity_type))
        .fold(0, |bits, c| bits | type_bit(c.entity_type))
}

/// The gazetteer half of [`evidence`]: a given or uncommon family name among the words of
/// `v` for PERSON, a town for LOCATION.
fn in_gazetteer(v: &str, t: EntityType) -> bool {
    let lex = Lexicon::get();
    match t {
        EntityType::Person => {
            // The words between spaces and commas, each tested against the names' bytes as it
            // is read (one pass over the cell); an empty word is no name (tested).
            let set = name_bytes();
            let bytes = v.as_bytes();
            let (mut from, mut ok) = (0, true);
            for i in 0..=bytes.len() {
                match bytes.get(i) {
                    Some(b' ' | b',') | None => {
                        if ok && i > from && is_name(lex, &v[from..i]) {
                            return true;
                        }
                        (from, ok) = (i + 1, true);
                    }
                    Some(&c) => ok &= may_hold(set, c),
                }
            }
            false
        }
        EntityType::Location => {
            may_be_town(v)
                && with_exact_lower(v, |lower| {
                    let bits = lex.form_bits(lower);
                    bits & class::TOWN != 0 && bits & class::AMBIGUOUS_TOWN == 0
                })
        }
        _ => false,
    }
}

/// True when the word `w` is a given name or an uncommon family name, as written.
fn is_name(lex: &Lexicon, w: &str) -> bool {
    with_exact_lower(w, |lower| {
        let (bits, cased) = lex.classes(w, lower);
        cased & class::FIRST_NAME != 0 || cased & class::LAST_NAME != 0 && bits & class::COMMON == 0
    })
}

/// Per ASCII byte: whether it occurs, lowercased, in one of `words` (as written or lowercased).
fn byte_set<'w>(words: impl Iterator<Item = &'w &'static str>) -> [bool; 128] {
    let mut set = [false; 128];
    for w in words {
        for b in w.bytes().filter(u8::is_ascii) {
            set[usize::from(b.to_ascii_lowercase())] = true;
        }
        // Only a non-ASCII letter can lowercase to an ASCII one (`K`, the Kelvin sign).
        if !w.is_ascii() {
            for b in w.to_lowercase().bytes().filter(u8::is_ascii) {
                set[usize::from(b)] = true;
            }
        }
    }
    set
}

/// False when `w` holds an ASCII byte that no word of the gazetteer behind `set` holds (a
/// digit or `@` for names, `@` or `:` for towns): its lowercase form then equals no such word's
/// (a look-up could match only by a collision of the 64-bit form hash), and it is no such
/// word's exact spelling, so [`evidence`] skips its look-up (most words of a cell with numbers
/// or addresses).
fn may_be(set: &[bool; 128], w: &str) -> bool {
    w.bytes().all(|b| may_hold(set, b))
}

/// [`may_be`] for one byte.
fn may_hold(set: &[bool; 128], b: u8) -> bool {
    !b.is_ascii() || set[usize::from(b.to_ascii_lowercase())]
}

/// The byte set of given and family names.
fn name_bytes() -> &'static [bool; 128] {
    static SET: OnceLock<[bool; 128]> = OnceLock::new();
    let lex = Lexicon::get();
    SET.get_or_init(|| byte_set(lex.first.iter().chain(&lex.last)))
}

/// [`may_be`] for given and family names.
#[cfg(test)]
fn may_be_name(w: &str) -> bool {
    may_be(name_bytes(), w)
}

/// [`may_be`] for towns.
fn may_be_town(w: &str) -> bool {
    static SET: OnceLock<[bool; 128]> = OnceLock::new();
    may_be(SET.get_or_init(|| byte_set(Lexicon::get().towns.iter())), w)
}

/// The types a column can take from its other cells.
const CARRIED_TYPES: [EntityType; 2] = [EntityType::Person, EntityType::Location];
/// An [`overlap_bits`] value not looked up yet.
const UNSEEN: u8 = u8::MAX;
/// The types a named column gives its cells (the others have recognizers of their own that
/// find their values anywhere; their columns only count as personal).
fn fills(t: EntityType) -> bool {
    matches!(
        t,
        EntityType::Person | EntityType::Location | EntityType::Date | EntityType::PhoneNumber
    )
}

/// A candidate of type `t` for the whole cell `[a, b)` of `s`: scored at least as high as any
/// candidate inside it, so the whole cell wins over a part (equal scores go to the longer
/// span). `None` when the others already cover every letter and digit of the cell (their
/// finer spans stand: `Hauptstraße 5, 10115 Berlin` is two; several names in a name cell are
/// one), or when a value of another type
/// than PERSON or LOCATION overlaps it (`Erstzulassung 09.10.01` is no place).
fn whole_cell(
    s: &str,
    known: &Known,
    t: EntityType,
    a: usize,
    b: usize,
    base: f32,
) -> Option<Candidate> {
    let mut score = base;
    let mut covered = a;
    let mut gap = false;
    let mut parts = 0;
    for c in known.overlapping(a, b) {
        let soft = matches!(c.entity_type, EntityType::Person | EntityType::Location);
        if c.validated || !soft {
            return None;
        }
        if c.entity_type != t && c.score < base.min(ANCHORED_BELOW) {
            // An unanchored guess of the other word type (the tagger's `Quappendorf` as a
            // name in a column of towns) covers nothing: the column outranks it.
            continue;
        }
        parts += usize::from(c.entity_type == t && t == EntityType::Person);
        if c.start >= a && c.end <= b {
            score = score.max(c.score);
        }
        let between = s.get(covered..c.start.max(covered)).unwrap_or("");
        gap |= between.chars().any(char::is_alphanumeric);
        covered = covered.max(c.end);
    }
    gap |= s
        .get(covered.min(b)..b)
        .unwrap_or("")
        .chars()
        .any(char::is_alphanumeric);
    // Several names inside one name cell (`Brökelmann, Jana`) are one value.
    (gap || parts >= 2).then(|| cand(t, a, b, score, false).because(Basis::Field))
}

/// Types the cells of `table`, appending candidates to `out`.
fn type_table(s: &str, table: &Table, known: &Known, out: &mut Vec<Candidate>) {
    let kinds: Vec<Kind> = table
        .names
        .iter()
        .map(|n| match n.and_then(|(a, b)| s.get(a..b)) {
            Some(name) => fields::kind(name),
            None => Kind::Unknown,
        })
        .collect();
    let personal_table = kinds
        .iter()
        .any(|k| matches!(k, Kind::Personal { strong: true, .. }));
    let by_column = by_column(&table.cells, kinds.len());
    let value = |c: &Cell| s.get(c.start..c.end).unwrap_or("");
    // Whether each distinct value of a column is plausible (one map for all columns, cleared
    // per column: `key: value` lines have a column per key).
    let mut memo: AHashMap<&str, bool> = AHashMap::new();
    let mut overlaps: Vec<u8> = Vec::new();
    for (kind, cells) in kinds.iter().zip(by_column.columns()) {
        match *kind {
            Kind::Personal { t, strong } if fills(t) => {
                let on = strong
                    || personal_table
                    || cells
                        .iter()
                        .any(|c| evidence(known, value(c), c.start, c.end, t));
                if !on {
                    continue;
                }
                let vouch = if strong && table.strict {
                    Vouch::Strong
                } else {
                    Vouch::Loose
                };
                memo.clear();
                for c in cells {
                    let v = value(c);
                    // A lone cell (most keys of `key: value` lines) has nothing to share.
                    let ok = if cells.len() == 1 {
                        cells::plausible(t, v, vouch)
                    } else {
                        *memo
                            .entry(v)
                            .or_insert_with(|| cells::plausible(t, v, vouch))
                    };
                    if ok {
                        out.extend(whole_cell(s, known, t, c.start, c.end, NAMED));
                    }
                }
            }
            Kind::Unknown if cells.len() >= 2 => {
                // At least two cells and half of them must show the type: counting stops as
                // soon as that is reached or out of reach.
                let need = cells.len().div_ceil(2).max(2);
                // Each cell's overlapping candidates are looked up once for both types.
                overlaps.clear();
                overlaps.resize(cells.len(), UNSEEN);
                for t in CARRIED_TYPES {
                    let mut shown = 0;
                    for (i, (c, bits)) in cells.iter().zip(overlaps.iter_mut()).enumerate() {
                        if shown >= need || shown + (cells.len() - i) < need {
                            break;
                        }
                        if *bits == UNSEEN {
                            *bits = overlap_bits(known, c.start, c.end);
                        }
                        let shows = *bits & type_bit(t) != 0 || in_gazetteer(value(c), t);
                        shown += usize::from(shows);
                    }
                    if shown < need {
                        continue;
                    }
                    memo.clear();
                    memo.reserve(cells.len());
                    for c in cells {
                        let v = value(c);
                        if *memo
                            .entry(v)
                            .or_insert_with(|| cells::plausible(t, v, Vouch::Loose))
                        {
                            out.extend(whole_cell(s, known, t, c.start, c.end, CARRIED));
                        }
                    }
                    break;
                }
            }
            _ => {}
        }
    }
}

/// Cells grouped by column in one buffer (a `key: value` text has a column per key, most
/// with one cell: a `Vec` each cost an allocation per key).
struct ByColumn {
    cells: Vec<Cell>,
    /// `cells[ends[i - 1]..ends[i]]` (from 0 for the first) are column `i`'s, in table order.
    ends: Vec<usize>,
}

impl ByColumn {
    fn columns(&self) -> impl Iterator<Item = &[Cell]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(a, &b)| self.cells.get(a..b).unwrap_or(&[]))
    }
}

/// The cells of columns `0..columns` (a stable counting sort by column; cells of other
/// columns are dropped).
fn by_column(cells: &[Cell], columns: usize) -> ByColumn {
    let mut ends = vec![0usize; columns];
    for c in cells {
        if let Some(n) = ends.get_mut(c.column) {
            *n += 1;
        }
    }
    let mut next = Vec::with_capacity(columns);
    let mut total = 0;
    for n in &mut ends {
        next.push(total);
        total += *n;
        *n = total;
    }
    let mut sorted = vec![
        Cell {
            start: 0,
            end: 0,
            column: 0
        };
        total
    ];
    for c in cells {
        if let Some(at) = next.get_mut(c.column) {
            sorted[*at] = *c;
            *at += 1;
        }
    }
    ByColumn {
        cells: sorted,
        ends,
    }
}

/// Later mentions of the PERSON and LOCATION values in `found` (whole words, 4+ bytes, not
/// bare numbers), anywhere in `s`.
fn mentions(s: &str, found: &[Candidate], known: &Known, out: &mut Vec<Candidate>) {
    let mut values: Vec<(&str, EntityType)> = found
        .iter()
        .filter(|c| matches!(c.entity_type, EntityType::Person | EntityType::Location))
        .filter_map(|c| Some((s.get(c.start..c.end)?, c.entity_type)))
        .filter(|(v, _)| v.len() >= 4 && v.chars().any(char::is_alphabetic))
        .filter(|(v, _)| v.contains(' ') || !common_word(v))
        .collect();
    // Each distinct value once, with the first of its types in type order, in value order
    // (a column repeats its values: they are merged in a map before the sort).
    let mut first_type: AHashMap<&str, EntityType> = AHashMap::with_capacity(values.len());
    for (v, t) in values.drain(..) {
        let held = first_type.entry(v).or_insert(t);
        *held = (*held).min(t);
    }
    values.extend(first_type);
    values.sort_unstable();
    if values.is_empty() {
        return;
    }
    // Occurrences that are a found cell or lie in a known candidate need nothing more. Stable:
    // the cells of each column come in text order, runs that a stable sort merges.
    let mut have: Vec<(usize, usize)> = found.iter().map(|c| (c.start, c.end)).collect();
    have.sort();
    // Built per text, by `ValueMatcher::for_text`: in a short text (a dense 2 KB request, ~26
    // values) one first-byte scan of the text with nothing to build, in a long one the packed
    // searcher, which builds in a fraction of the time of an automaton; the same
    // leftmost-longest matches either way.
    let Some(matcher) = ValueMatcher::for_text(values.iter().map(|v| v.0), s.len()) else {
        return;
    };
    for (pattern, a, b) in matcher.find_iter(s) {
        if have.binary_search(&(a, b)).is_ok()
            || known.overlapping(a, b).any(|c| c.start <= a && c.end >= b)
            || !super::recognizers::standalone(s, a, b)
        {
            continue;
        }
        let t = values[pattern].1;
        out.push(cand(t, a, b, CARRIED, false).because(Basis::Mention));
    }
}

/// True for a word that is also a common noun or stop word (`Koch`, `Wolf`): a later mention
/// of it alone is not taken for the value.
fn common_word(v: &str) -> bool {
    with_exact_lower(v, |lower| {
        Lexicon::get().form_bits(lower) & (class::COMMON | class::STOP) != 0
    })
}

/// Finds every record shape in the view and the tables they hold.
fn tables(s: &str) -> Vec<Table> {
    let mut out = Vec::new();
    markdown::find(s, &mut out);
    delimited::find(s, &mut out);
    sql::find(s, &mut out);
    json::find(s, &mut out);
    keyvalue::find(s, &mut out);
    out
}

/// Proposes PERSON, LOCATION, DATE and PHONE_NUMBER for record cells and LOCATION for letter
/// datelines. Must run after the other recognizers (it reads their candidates).
pub struct RecordRecognizer {
    dateline: dateline::Datelines,
}

impl RecordRecognizer {
    pub fn new() -> Self {
        RecordRecognizer {
            dateline: dateline::Datelines::new(),
        }
    }
}

impl Default for RecordRecognizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Recognizer for RecordRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Location
    }

    fn reads_candidates(&self) -> bool {
        true
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        self.dateline.find(s, out);
        let tables = tables(s);
        if tables.is_empty() {
            return;
        }
        // Headers of strict shapes are no data (`| Ward |`, `"Koch": …`); labels of loose
        // lines may be (`Anna Schmidt: Hallo` in a chat transcript).
        let mut names: Vec<(usize, usize)> = tables
            .iter()
            .filter(|t| t.strict)
            .flat_map(|t| t.names.iter().flatten().copied())
            .collect();
        names.sort_unstable();
        out.retain(|c| {
            let i = names.partition_point(|&(a, _)| a <= c.start);
            c.validated || i == 0 || names[i - 1].1 < c.end
        });
        let known = Known::new(out);
        let mut found = Vec::new();
        for t in &tables {
            type_table(s, t, &known, &mut found);
        }
        mentions(s, &found, &known, out);
        out.extend(found);
    }
}

/// `(column name, cell)` pairs of the tables one shape's `find` reports in `s` (test helper shared
/// by the shape modules).
#[cfg(test)]
fn named_cells(s: &str, find: fn(&str, &mut Vec<Table>)) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    find(s, &mut out);
    out.iter()
        .flat_map(|t| {
            t.cells.iter().map(|c| {
                let (a, b) = t.names[c.column].unwrap_or((0, 0));
                (&s[a..b], &s[c.start..c.end])
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::table::{trim_value, Cell};
    use super::{
        by_column, cand, is_name, may_be_name, may_be_town, overlap_bits, type_bit, EntityType,
        Known, Lexicon, CARRIED_TYPES,
    };

    #[test]
    fn cells_grouped_by_column_in_order() {
        let cell = |start, column| Cell {
            start,
            end: start + 1,
            column,
        };
        let cells = [cell(0, 2), cell(1, 0), cell(2, 2), cell(3, 5), cell(4, 0)];
        let grouped = by_column(&cells, 4);
        let starts: Vec<Vec<usize>> = grouped
            .columns()
            .map(|c| c.iter().map(|c| c.start).collect())
            .collect();
        assert_eq!(starts, [vec![1, 4], vec![], vec![0, 2], vec![]]);
    }

    #[test]
    fn overlap_bits_tell_what_overlapping_tells() {
        let out = [
            cand(EntityType::Person, 0, 4, 0.9, false),
            cand(EntityType::Location, 3, 8, 0.9, false),
            cand(EntityType::EmailAddress, 10, 20, 0.9, false),
        ];
        let known = Known::new(&out);
        assert_eq!(overlap_bits(&known, 3, 4), 3);
        assert_eq!(overlap_bits(&known, 10, 12), 0);
        for (a, b) in [(0, 2), (3, 4), (5, 9), (8, 10), (10, 12)] {
            for t in CARRIED_TYPES {
                assert_eq!(
                    overlap_bits(&known, a, b) & type_bit(t) != 0,
                    known.overlapping(a, b).any(|c| c.entity_type == t),
                    "{a}..{b} {t:?}"
                );
            }
        }
    }

    #[test]
    fn an_empty_word_is_no_name() {
        let lex = Lexicon::get();
        assert!(!is_name(lex, ""));
        assert!(is_name(lex, "Jana"));
    }

    #[test]
    fn names_pass_the_byte_test_and_numbers_do_not() {
        let lex = Lexicon::get();
        for name in lex.first.iter().chain(&lex.last) {
            assert!(
                may_be_name(name) && may_be_name(&name.to_uppercase()),
                "{name}"
            );
        }
        assert!(may_be_name("Brökelmann") && may_be_name(""));
        assert!(!may_be_name("030") && !may_be_name("k0.lange@beispiel.de"));
        for town in &lex.towns {
            assert!(
                may_be_town(town) && may_be_town(&town.to_uppercase()),
                "{town}"
            );
        }
        assert!(!may_be_town("Kunde 0: k0.lange@beispiel.de"));
    }

    #[test]
    fn values_are_trimmed_and_unquoted() {
        let s = r#"a, 'Jana' ,"" , x"#;
        assert_eq!(trim_value(s, 2, 10), Some((4, 8)));
        assert_eq!(trim_value(s, 11, 14), None);
        assert_eq!(trim_value(s, 15, 17), Some((16, 17)));
    }
}

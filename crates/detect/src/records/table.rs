//! The shape every record format is read into: cells by column, with column names.

use hashbrown::HashTable;

use super::fields;

/// One cell: the byte range of its value in the view (trimmed, quotes removed) and its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell {
    pub start: usize,
    pub end: usize,
    pub column: usize,
}

/// Cells of one table (or one JSON document, or all `key: value` lines of a text), by column.
#[derive(Debug, Default)]
pub(crate) struct Table {
    /// Per column: the byte range of its name in the view, if the shape has one.
    pub names: Vec<Option<(usize, usize)>>,
    pub cells: Vec<Cell>,
    /// A strict shape (CSV, SQL, JSON, Markdown) vouches more for its columns than loose
    /// `key: value` lines do.
    pub strict: bool,
    /// Column index per normalised name, for shapes whose columns are keys: `(start, end,
    /// column)` with the name at `keys[start..end]`. One buffer for all names rather than a
    /// `String` each: the `key: value` lines of a dense request have a key per line.
    by_name: HashTable<(usize, usize, usize)>,
    keys: String,
    /// Made on the first key: seeding one costs more than a text without keys needs.
    hasher: Option<ahash::RandomState>,
    /// The table an SQL statement writes to (lowercase), so statements into it merge.
    pub sql_name: Option<String>,
}

impl Table {
    pub fn new(strict: bool) -> Table {
        Table {
            strict,
            ..Table::default()
        }
    }

    /// The column named by `s[start..end]`, added on first use.
    pub fn keyed_column(&mut self, s: &str, start: usize, end: usize) -> usize {
        let name = s.get(start..end).unwrap_or("");
        fields::with_normalised(name, |key| {
            let hasher = self.hasher.get_or_insert_with(ahash::RandomState::new);
            let hash = hasher.hash_one(key);
            let keys = &self.keys;
            let same = |&(a, b, _): &(usize, usize, usize)| keys.get(a..b) == Some(key);
            if let Some(&(_, _, col)) = self.by_name.find(hash, same) {
                return col;
            }
            let next = self.names.len();
            self.names.push(Some((start, end)));
            let at = self.keys.len();
            self.keys.push_str(key);
            let keys = &self.keys;
            let Some(hasher) = &self.hasher else {
                return next;
            };
            self.by_name
                .insert_unique(hash, (at, keys.len(), next), |&(a, b, _)| {
                    hasher.hash_one(keys.get(a..b).unwrap_or(""))
                });
            next
        })
    }

    /// Adds a cell for `s[start..end]` after trimming spaces and one pair of quotes; empty
    /// values are dropped.
    pub fn push(&mut self, s: &str, start: usize, end: usize, column: usize) {
        if let Some((a, b)) = trim_value(s, start, end) {
            self.cells.push(Cell {
                start: a,
                end: b,
                column,
            });
        }
    }
}

/// What a reader found, as text, for the readers' tests.
#[cfg(test)]
impl Table {
    /// The column names that the shape gives, in column order.
    pub fn name_texts<'s>(&self, s: &'s str) -> Vec<&'s str> {
        self.names
            .iter()
            .flatten()
            .map(|&(a, b)| &s[a..b])
            .collect()
    }

    /// Every cell's value, in the order read.
    pub fn cell_texts<'s>(&self, s: &'s str) -> Vec<&'s str> {
        self.cells.iter().map(|c| &s[c.start..c.end]).collect()
    }
}

/// Is `c` whitespace to `char::is_whitespace` (for an ASCII byte)?
fn ascii_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t'..=b'\r')
}

/// The length `str::trim_start` removes from `v`: byte by byte while the bytes are ASCII (most
/// cells), by characters from the first other byte on.
fn lead_space(v: &str) -> usize {
    let n = v.bytes().take_while(|&c| ascii_space(c)).count();
    match v.as_bytes().get(n) {
        Some(c) if !c.is_ascii() => v.len() - v.trim_start().len(),
        _ => n,
    }
}

/// The length `str::trim_end` removes from `v`, as [`lead_space`].
fn trail_space(v: &str) -> usize {
    let n = v.bytes().rev().take_while(|&c| ascii_space(c)).count();
    match v.len().checked_sub(n + 1).map(|i| v.as_bytes()[i]) {
        Some(c) if !c.is_ascii() => v.len() - v.trim_end().len(),
        _ => n,
    }
}

/// `[start, end)` of `s` without surrounding whitespace and one pair of matching quotes.
pub(crate) fn trim_value(s: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let v = s.get(start..end)?;
    let lead = lead_space(v);
    let mut a = start + lead;
    let mut b = end - trail_space(&v[lead..]);
    let v = s.get(a..b)?;
    let bytes = v.as_bytes();
    if bytes.len() >= 2 {
        let (f, l) = (bytes[0], bytes[bytes.len() - 1]);
        if f == l && matches!(f, b'"' | b'\'' | b'`') {
            a += 1;
            b -= 1;
        }
    }
    let inner = s.get(a..b)?;
    let lead = lead_space(inner);
    let b = b - trail_space(&inner[lead..]);
    let a = a + lead;
    (a < b).then_some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_trimmed_as_str_trims_them() {
        for v in [
            "",
            "  ",
            " a b ",
            "\t\u{b}x\r\n",
            "\u{a0} x \u{2003}",
            " ä ",
            "x\u{85}",
            "\u{3000}",
        ] {
            assert_eq!(lead_space(v), v.len() - v.trim_start().len(), "{v:?}");
            assert_eq!(trail_space(v), v.len() - v.trim_end().len(), "{v:?}");
        }
    }
}

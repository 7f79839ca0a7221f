//! The shape every record format is read into: cells by column, with column names.

use ahash::AHashMap as HashMap;

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
    /// Column index per normalised name, for shapes whose columns are keys.
    by_name: HashMap<String, usize>,
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
            if let Some(&col) = self.by_name.get(key) {
                return col;
            }
            let next = self.names.len();
            self.names.push(Some((start, end)));
            self.by_name.insert(key.to_owned(), next);
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

/// `[start, end)` of `s` without surrounding whitespace and one pair of matching quotes.
pub(crate) fn trim_value(s: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let v = s.get(start..end)?;
    let lead = v.len() - v.trim_start().len();
    let v = v.trim();
    let mut a = start + lead;
    let mut b = a + v.len();
    let bytes = v.as_bytes();
    if bytes.len() >= 2 {
        let (f, l) = (bytes[0], bytes[bytes.len() - 1]);
        if f == l && matches!(f, b'"' | b'\'' | b'`') {
            a += 1;
            b -= 1;
        }
    }
    let inner = s.get(a..b)?;
    let lead = inner.len() - inner.trim_start().len();
    let b = a + inner.trim_end().len();
    let a = a + lead;
    (a < b).then_some((a, b))
}

//! SQL `INSERT INTO table [(columns)] VALUES (…), (…);`: each tuple is a row, the column list
//! (if any) names the columns; without it the columns are known by position only. Strings in
//! single or double quotes (`''` and `\'` inside), numbers, `NULL` and function calls are values.

use super::table::Table;

/// Parsing stops after this many tuples of one statement (the rest is left to the others).
const MAX_TUPLES: usize = 100_000;

struct Cursor<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    /// Consumes `word` (ASCII, any case) followed by a non-identifier byte.
    fn keyword(&mut self, word: &str) -> bool {
        self.ws();
        let end = self.i + word.len();
        let ok = self
            .b
            .get(self.i..end)
            .is_some_and(|w| w.eq_ignore_ascii_case(word.as_bytes()))
            && !self
                .b
                .get(end)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_');
        if ok {
            self.i = end;
        }
        ok
    }

    fn byte(&mut self, c: u8) -> bool {
        self.ws();
        let ok = self.b.get(self.i) == Some(&c);
        if ok {
            self.i += 1;
        }
        ok
    }

    /// An identifier, possibly quoted (`"x"`, `` `x` ``, `[x]`) or qualified (`db.t`); returns
    /// its inner byte range.
    fn ident(&mut self) -> Option<(usize, usize)> {
        self.ws();
        loop {
            let open = *self.b.get(self.i)?;
            let close = match open {
                b'"' => Some(b'"'),
                b'`' => Some(b'`'),
                b'[' => Some(b']'),
                _ => None,
            };
            let range = if let Some(close) = close {
                let from = self.i + 1;
                let len = memchr::memchr(close, self.b.get(from..)?)?;
                self.i = from + len + 1;
                (from, from + len)
            } else {
                let from = self.i;
                while self.b.get(self.i).is_some_and(|&c| {
                    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
                }) {
                    self.i += 1;
                }
                if self.i == from {
                    return None;
                }
                (from, self.i)
            };
            if self.b.get(self.i) == Some(&b'.') {
                self.i += 1;
                continue;
            }
            return Some(range);
        }
    }

    /// One value of a tuple; returns its byte range (strings: inside the quotes).
    fn value(&mut self) -> Option<(usize, usize)> {
        self.ws();
        let q = *self.b.get(self.i)?;
        if q == b'\'' || q == b'"' {
            let from = self.i + 1;
            let mut j = from;
            loop {
                let c = *self.b.get(j)?;
                if c == b'\\' {
                    j += 2;
                } else if c == q {
                    if self.b.get(j + 1) == Some(&q) {
                        j += 2;
                    } else {
                        self.i = j + 1;
                        return Some((from, j));
                    }
                } else {
                    j += 1;
                }
            }
        }
        // Number, NULL, identifier or call: up to the next top-level `,` or `)`.
        let from = self.i;
        let mut depth = 0usize;
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                b',' if depth == 0 => break,
                b'\'' | b'"' if depth > 0 => {
                    // A string argument: skip it whole.
                    let _ = self.value()?;
                    continue;
                }
                _ => {}
            }
            self.i += 1;
        }
        (self.i > from).then_some((from, self.i))
    }
}

/// Parses one statement from just after `INSERT`; `None` when it is not one.
fn statement(s: &str, at: usize) -> Option<(Table, usize)> {
    let mut c = Cursor {
        s,
        b: s.as_bytes(),
        i: at,
    };
    if !c.keyword("into") {
        return None;
    }
    let (na, nb) = c.ident()?;
    let mut t = Table::new(true);
    t.sql_name = Some(s.get(na..nb)?.to_ascii_lowercase());
    if c.byte(b'(') {
        loop {
            let (a, b) = c.ident()?;
            t.names.push(Some((a, b)));
            if c.byte(b')') {
                break;
            }
            if !c.byte(b',') {
                return None;
            }
        }
    }
    if !c.keyword("values") {
        return None;
    }
    for _ in 0..MAX_TUPLES {
        if !c.byte(b'(') {
            break;
        }
        let mut col = 0;
        loop {
            let (a, b) = c.value()?;
            if t.names.len() <= col {
                t.names.push(None);
            }
            t.push(c.s, a, b, col);
            col += 1;
            if c.byte(b')') {
                break;
            }
            if !c.byte(b',') {
                return Some((t, c.i));
            }
        }
        if !c.byte(b',') {
            break;
        }
    }
    Some((t, c.i))
}

pub(super) fn find(s: &str, out: &mut Vec<Table>) {
    let b = s.as_bytes();
    let mut hits: Vec<usize> = Vec::new();
    for word in ["INSERT", "insert", "Insert"] {
        hits.extend(memchr::memmem::find_iter(b, word).map(|i| i + word.len()));
    }
    hits.sort_unstable();
    let mut done = 0;
    let mut tables: Vec<Table> = Vec::new();
    for at in hits {
        if at < done {
            continue;
        }
        if let Some((t, end)) = statement(s, at) {
            done = end;
            tables.push(t);
        }
    }
    // Statements into the same table with the same columns are one table (one row each).
    let mut merged: Vec<Table> = Vec::new();
    for t in tables {
        let same = merged.iter_mut().find(|m| {
            m.sql_name == t.sql_name
                && m.names.len() == t.names.len()
                && m.names.iter().zip(&t.names).all(|(a, b)| {
                    a.and_then(|(x, y)| s.get(x..y)) == b.and_then(|(x, y)| s.get(x..y))
                })
        });
        match same {
            Some(m) => m.cells.extend(t.cells),
            None => merged.push(t),
        }
    }
    out.extend(merged);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per table: its column names and its `(column, value)` cells.
    type Parsed<'a> = (Vec<Option<&'a str>>, Vec<(usize, &'a str)>);

    fn parse(s: &str) -> Vec<Parsed<'_>> {
        let mut out = Vec::new();
        find(s, &mut out);
        out.iter()
            .map(|t| {
                (
                    t.names.iter().map(|n| n.map(|(a, b)| &s[a..b])).collect(),
                    t.cells
                        .iter()
                        .map(|c| (c.column, &s[c.start..c.end]))
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn inserts_with_and_without_columns() {
        let s = "INSERT INTO kunden (id, `vorname`, \"ort\") VALUES\n (17, 'Jana', 'Guben'), (18, 'O''Neill', NULL);";
        let p = parse(s);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, [Some("id"), Some("vorname"), Some("ort")]);
        assert_eq!(
            p[0].1,
            [
                (0, "17"),
                (1, "Jana"),
                (2, "Guben"),
                (0, "18"),
                (1, "O''Neill"),
                (2, "NULL")
            ]
        );
        let s = "insert into db.t values (1, lower('X, Y'), 'Cottbus');";
        let p = parse(s);
        assert_eq!(p[0].0, [None, None, None]);
        assert_eq!(p[0].1, [(0, "1"), (1, "lower('X, Y')"), (2, "Cottbus")]);
    }

    #[test]
    fn statements_into_one_table_merge() {
        let s = "insert into t values (1, 'A');\ninsert into t values (2, 'B');\ninsert into u values (3, 'C');";
        let mut out = Vec::new();
        find(s, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].cells.len(), 4);
    }

    #[test]
    fn prose_insert_is_no_statement() {
        assert!(parse("Bitte insert into the list: Jana").is_empty());
        assert!(parse("INSERT INTO x (a, b VALUES").is_empty());
    }
}

//! JSON objects and arrays (also Python-style single quotes, NDJSON lines, JSON inside prose):
//! every string or number value is a cell of the column named by its key, so the objects of
//! an array — or the lines of a JSON log — share their columns. Parsing is lenient: what was
//! read before an error (a truncated paste) is kept.

use super::table::Table;

/// Nesting deeper than this is not followed.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    /// A quoted string at the cursor; its inner byte range.
    fn string(&mut self) -> Option<(usize, usize)> {
        let q = *self.b.get(self.i)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        let from = self.i + 1;
        let mut j = from;
        loop {
            match *self.b.get(j)? {
                b'\\' => j += 2,
                b'\n' => return None,
                c if c == q => break,
                _ => j += 1,
            }
        }
        self.i = j + 1;
        Some((from, j))
    }

    /// A scalar that is not a string (number, `true`, `null`): its byte range.
    fn scalar(&mut self) -> Option<(usize, usize)> {
        let from = self.i;
        while self
            .b
            .get(self.i)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+'))
        {
            self.i += 1;
        }
        (self.i > from).then_some((from, self.i))
    }

    /// A value under the key column `col` (`None` at the top level or in a bare array).
    fn value(&mut self, t: &mut Table, col: Option<usize>, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => self.object(t, depth + 1),
            b'[' => {
                self.i += 1;
                loop {
                    self.ws();
                    if self.b.get(self.i) == Some(&b']') {
                        self.i += 1;
                        return Some(());
                    }
                    self.value(t, col, depth + 1)?;
                    self.ws();
                    match *self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' | b'\'' => {
                let (a, b) = self.string()?;
                if let Some(col) = col {
                    t.push(self.s, a, b, col);
                }
                Some(())
            }
            _ => {
                let (a, b) = self.scalar()?;
                if let Some(col) = col {
                    t.push(self.s, a, b, col);
                }
                Some(())
            }
        }
    }

    fn object(&mut self, t: &mut Table, depth: usize) -> Option<()> {
        self.i += 1; // `{`
        loop {
            self.ws();
            match *self.b.get(self.i)? {
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let (ka, kb) = self.string()?;
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            let col = t.keyed_column(self.s, ka, kb);
            self.value(t, Some(col), depth)?;
        }
    }
}

pub(super) fn find(s: &str, out: &mut Vec<Table>) {
    let b = s.as_bytes();
    let mut t = Table::new(true);
    let mut done = 0;
    for at in memchr::memchr_iter(b'{', b) {
        if at < done {
            continue;
        }
        // An object starts with a key (or is empty).
        let next = b[at + 1..].iter().find(|c| !c.is_ascii_whitespace());
        if !matches!(next, Some(b'"' | b'\'' | b'}')) {
            continue;
        }
        let mut p = Parser { s, b, i: at };
        let _ = p.value(&mut t, None, 0);
        done = p.i.max(at + 1);
    }
    if !t.cells.is_empty() {
        out.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(s: &str) -> Vec<(&str, &str)> {
        super::super::named_cells(s, find)
    }

    #[test]
    fn arrays_of_objects_share_columns() {
        let s = r#"Daten: [{"kd": "Jana B", "id": 17, "x": {"c": "Guben"}}, {'kd': 'Olaf', 'c': null}]"#;
        assert_eq!(
            columns(s),
            [
                ("kd", "Jana B"),
                ("id", "17"),
                ("c", "Guben"),
                ("kd", "Olaf"),
                ("c", "null")
            ]
        );
        let mut out = Vec::new();
        find(s, &mut out);
        let t = &out[0];
        assert_eq!(t.cells[0].column, t.cells[3].column);
    }

    #[test]
    fn truncated_and_prose_braces() {
        assert_eq!(
            columns(r#"{"ort": "Guben", "name": "Ja"#),
            [("ort", "Guben")]
        );
        assert!(columns("Mengen {a, b} und {x}").is_empty());
    }
}

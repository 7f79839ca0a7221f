//! Delimited tables: CSV, TSV, semicolon-separated exports and pipe tables without outer pipes.
//! A table is two or more consecutive lines with the same number (≥ 1) of one delimiter; the
//! first line is its header when it holds a known field name and no number. Quoted cells
//! (`"Brökelmann, Jana"`, `""` inside) are one cell.
//!
//! Cost for prose: one newline scan and, per line, a SIMD count of each delimiter (memchr).

use super::fields::{self, Kind};
use super::table::Table;

const DELIMITERS: [u8; 4] = [b'\t', b';', b',', b'|'];
/// Lines longer than this are text, not records.
const MAX_LINE: usize = 4096;
/// A headerless comma table needs this many rows (two could be two lines of prose).
const MIN_HEADERLESS_ROWS: usize = 3;
/// Cells of a headerless comma table are short; a longer one means prose.
const MAX_HEADERLESS_CELL: usize = 60;

struct Line {
    start: usize,
    end: usize,
    counts: [usize; 4],
}

/// Number of `d` in `line` outside double quotes.
fn count(line: &[u8], d: u8) -> usize {
    if memchr::memchr(b'"', line).is_none() {
        return memchr::memchr_iter(d, line).count();
    }
    let mut quoted = false;
    let mut n = 0;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if b == d && !quoted {
            n += 1;
        }
    }
    n
}

/// Appends the byte ranges of the cells of `line` (at `offset`) to `out`, split at `d` outside
/// double quotes.
fn split(line: &str, offset: usize, d: u8, out: &mut Vec<(usize, usize)>) {
    let mut quoted = false;
    let mut from = 0;
    // Only quotes and delimiters matter: jump between them (SIMD) instead of testing each byte.
    for i in memchr::memchr2_iter(b'"', d, line.as_bytes()) {
        if line.as_bytes()[i] == b'"' {
            quoted = !quoted;
        } else if !quoted {
            out.push((offset + from, offset + i));
            from = i + 1;
        }
    }
    out.push((offset + from, offset + line.len()));
}

/// A Markdown alignment row (`---|:--:`), which separates the header from the rows.
pub(super) fn is_rule(cell: &str) -> bool {
    let c = cell.trim();
    !c.is_empty() && c.trim_matches(':').bytes().all(|b| b == b'-')
}

/// Whether the cells of a first line make a header: some name is known, none is a number,
/// every one is short.
pub(super) fn is_header(s: &str, cells: &[(usize, usize)]) -> bool {
    let name =
        |&(a, b): &(usize, usize)| s.get(a..b).unwrap_or("").trim().trim_matches(['"', '\'']);
    cells.iter().any(|c| fields::kind(name(c)) != Kind::Unknown)
        && cells.iter().all(|c| {
            let n = name(c);
            // A brace, bracket or `": ` makes a line of JSON or code, not a header
            // (`{ "name": "Henrik Scholz", "email": … }`).
            n.len() <= 48
                && !n
                    .bytes()
                    .any(|b| b.is_ascii_digit() || b"{}[]".contains(&b))
                && !n.contains("\": ")
        })
}

/// Builds the table of `rows` (lines split into cells), the first being the header if it is one.
pub(super) fn table<R: AsRef<[(usize, usize)]>>(
    s: &str,
    rows: &[R],
    headerless_ok: bool,
) -> Option<Table> {
    let first = rows.first()?.as_ref();
    let header = is_header(s, first);
    if !header && !headerless_ok {
        return None;
    }
    let mut t = Table::new(true);
    let width = rows.iter().map(|r| r.as_ref().len()).max().unwrap_or(0);
    t.names = vec![None; width];
    let body = if header {
        for (i, &(a, b)) in first.iter().enumerate() {
            t.names[i] = super::table::trim_value(s, a, b);
        }
        &rows[1..]
    } else {
        rows
    };
    for row in body {
        for (col, &(a, b)) in row.as_ref().iter().enumerate() {
            t.push(s, a, b, col);
        }
    }
    Some(t)
}

pub(super) fn find(s: &str, out: &mut Vec<Table>) {
    let b = s.as_bytes();
    // Delimiters the text does not hold at all are not counted line by line.
    let present = DELIMITERS.map(|d| memchr::memchr(d, b).is_some());
    let mut lines: Vec<Line> = Vec::with_capacity(memchr::memchr_iter(b'\n', b).count() + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', b).chain([b.len()]) {
        let mut e = end;
        if e > start && b[e - 1] == b'\r' {
            e -= 1;
        }
        let line = &b[start..e];
        let mut counts = [0; 4];
        // Markdown tables (leading pipe) are their own shape.
        if !line.is_empty()
            && line.len() <= MAX_LINE
            && line.trim_ascii_start().first() != Some(&b'|')
        {
            for (c, (&d, &p)) in counts.iter_mut().zip(DELIMITERS.iter().zip(&present)) {
                if p {
                    *c = count(line, d);
                }
            }
        }
        lines.push(Line {
            start,
            end: e,
            counts,
        });
        start = end + 1;
    }
    let mut i = 0;
    while i + 1 < lines.len() {
        let mut best: Option<(usize, usize)> = None; // (delimiter index, end line)
        for d in 0..DELIMITERS.len() {
            let k = lines[i].counts[d];
            if k == 0 {
                continue;
            }
            let mut j = i + 1;
            while j < lines.len() && lines[j].counts[d] == k {
                j += 1;
            }
            if j - i >= 2 {
                best = Some((d, j));
                break;
            }
        }
        let Some((d, j)) = best else {
            i += 1;
            continue;
        };
        let delim = DELIMITERS[d];
        // Before splitting: a header has short names, a headerless comma table short cells
        // and three rows; lines too long for either are prose.
        let k = lines[i].counts[d] + 1;
        let len = |l: &Line| l.end - l.start;
        let loose = delim == b',' || delim == b'|';
        let header_fits = len(&lines[i]) <= k * 50;
        let headerless_fits = !loose
            || j - i >= MIN_HEADERLESS_ROWS
                && lines[i..j]
                    .iter()
                    .all(|l| len(l) <= k * (MAX_HEADERLESS_CELL + 1));
        if !header_fits && !headerless_fits {
            i = j;
            continue;
        }
        // Each line split once, all into one buffer; Markdown-style rule rows (`---,---`)
        // dropped.
        let mut cells = Vec::with_capacity((j - i) * k);
        let mut bounds = Vec::with_capacity(j - i);
        for l in &lines[i..j] {
            let from = cells.len();
            split(&s[l.start..l.end], l.start, delim, &mut cells);
            if cells[from..].iter().all(|&(a, b)| is_rule(&s[a..b])) {
                cells.truncate(from);
            } else {
                bounds.push((from, cells.len()));
            }
        }
        let rows: Vec<&[(usize, usize)]> = bounds.iter().map(|&(a, b)| &cells[a..b]).collect();
        // Two comma lines without a header may be prose; so may long cells.
        let headerless_ok = !loose
            || rows.len() >= MIN_HEADERLESS_ROWS
                && cells.iter().all(|&(a, b)| b - a <= MAX_HEADERLESS_CELL);
        if let Some(t) = table(s, &rows, headerless_ok) {
            out.push(t);
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(s: &str) -> Vec<Vec<&str>> {
        let mut out = Vec::new();
        find(s, &mut out);
        out.iter().map(|t| t.cell_texts(s)).collect()
    }

    #[test]
    fn csv_with_header_and_quotes() {
        let s = "Hier:\nname,plz,ort\n\"Brökelmann, Jana\",33602,Bielefeld\nOlaf Trittin,03046,\"Cottbus\"\n\nDanke";
        let mut out = Vec::new();
        find(s, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].name_texts(s), ["name", "plz", "ort"]);
        assert_eq!(
            cells(s),
            [[
                "Brökelmann, Jana",
                "33602",
                "Bielefeld",
                "Olaf Trittin",
                "03046",
                "Cottbus"
            ]]
        );
    }

    #[test]
    fn tsv_and_semicolons_without_header() {
        let s = "1\tJana\tGuben\n2\tOlaf\tCottbus\n";
        assert_eq!(cells(s), [["1", "Jana", "Guben", "2", "Olaf", "Cottbus"]]);
        let s = "Jana;Guben\nOlaf;Cottbus";
        assert_eq!(cells(s), [["Jana", "Guben", "Olaf", "Cottbus"]]);
    }

    #[test]
    fn prose_is_no_table() {
        assert!(cells("Hallo Anna, wie geht es dir?\nGruß, Olaf").is_empty());
        let long = "Wir haben die Unterlagen, wie besprochen, gestern geprüft und melden uns in der kommenden Woche erneut.";
        assert!(cells(&format!("{long}\n{long}\n{long}")).is_empty());
    }
}

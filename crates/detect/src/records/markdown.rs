//! Markdown tables: consecutive lines that begin with `|`, an optional alignment row
//! (`|---|:--:|`) after the header. Without an alignment row the first line is the header when
//! it holds a known field name and no number.

use super::delimited::{is_rule, table};
use super::table::Table;

/// Cells of a table line (at `offset`): split at unescaped `|`, outer pipes dropped.
fn split(line: &str, offset: usize) -> Vec<(usize, usize)> {
    let lead = line.len() - line.trim_start().len();
    let body = line.trim();
    let inner = body.strip_prefix('|').unwrap_or(body);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let base = offset + lead + usize::from(body.starts_with('|'));
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    for i in memchr::memchr_iter(b'|', b) {
        if i > 0 && b[i - 1] == b'\\' {
            continue;
        }
        out.push((base + from, base + i));
        from = i + 1;
    }
    out.push((base + from, base + inner.len()));
    out
}

pub(super) fn find(s: &str, out: &mut Vec<Table>) {
    if memchr::memchr(b'|', s.as_bytes()).is_none() {
        return;
    }
    let mut block: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut ruled = false;
    let mut flush = |block: &mut Vec<Vec<(usize, usize)>>, ruled: &mut bool| {
        if block.len() >= 2 {
            if let Some(mut t) = table(s, block, true) {
                if *ruled && t.names.iter().all(Option::is_none) {
                    // An alignment row makes the first line the header whatever it says.
                    t = Table::new(true);
                    t.names = block[0]
                        .iter()
                        .map(|&(a, b)| super::table::trim_value(s, a, b))
                        .collect();
                    for row in &block[1..] {
                        for (col, &(a, b)) in row.iter().enumerate() {
                            t.push(s, a, b, col);
                        }
                    }
                }
                out.push(t);
            }
        }
        block.clear();
        *ruled = false;
    };
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', s.as_bytes()).chain([s.len()]) {
        let line = &s[start..end];
        let offset = start;
        start = end + 1;
        if !line.trim_start().starts_with('|') {
            flush(&mut block, &mut ruled);
            continue;
        }
        let cells = split(line, offset);
        if cells.iter().all(|&(a, b)| is_rule(&s[a..b])) {
            ruled |= block.len() == 1;
            continue;
        }
        block.push(cells);
    }
    flush(&mut block, &mut ruled);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_tables_with_and_without_rule() {
        let s = "| Name | Ort |\n|---|:--|\n| Jana Brökelmann | Bielefeld |\n| Olaf \\| T | Cottbus |\n";
        let mut out = Vec::new();
        find(s, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].name_texts(s), ["Name", "Ort"]);
        assert_eq!(
            out[0].cell_texts(s),
            ["Jana Brökelmann", "Bielefeld", "Olaf \\| T", "Cottbus"]
        );
        let mut out = Vec::new();
        find("| Farbe | Preis |\n|---|---|\n| rot | 3 |", &mut out);
        assert_eq!(out[0].names.iter().flatten().count(), 2);
    }
}

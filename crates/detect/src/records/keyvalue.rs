//! `key: value` and `key=value` lines: config files, form-like pastes, HTTP-style headers and
//! log lines (`2024-07-22 10:15:01 INFO kunde="Jana B" ort=Guben`, syslog, logfmt). All pairs of
//! a text form one table whose columns are the keys, so the lines of a log share columns.
//!
//! - `key: value` and `key = value` at the start of a line (after an optional list marker or a
//!   log prefix): the value is the rest of the line;
//! - `key=value` pairs anywhere (logfmt): the value is a quoted string or runs to the next
//!   space, comma, `;` or `&`. A lone pair inside a sentence needs a second one on the line.

use super::table::Table;

/// Keys are short.
const MAX_KEY: usize = 32;

fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-') || c >= 0x80
}

/// Whether `line` can start with a log prefix: each of [`log_prefix`]'s timestamps begins
/// with `[`, a digit (`\d` is any Unicode digit, so any non-ASCII byte passes too) or a
/// syslog month (`Jul `). Most lines fail this test, and it costs a few compares against a
/// regex search per line.
fn may_start_log(line: &[u8]) -> bool {
    match line {
        [b'[' | b'0'..=b'9' | 0x80.., ..] => true,
        [a, b, c, b' ', ..] => {
            a.is_ascii_uppercase() && b.is_ascii_lowercase() && c.is_ascii_lowercase()
        }
        _ => false,
    }
}

/// Length of a log prefix at the start of `line`: timestamps (ISO, syslog `Jul 22 10:15:01`,
/// bracketed), a host and process tag (`web01 app[311]:`), a level word. 0 when there is none.
fn log_prefix(line: &str) -> usize {
    if !may_start_log(line.as_bytes()) {
        return 0;
    }
    use std::sync::OnceLock;
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r"^(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\]?|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?: [\w.-]+ [\w./-]+(?:\[\d+\])?:)?|\[\d{2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\])(?:\s+\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRIT)\]?:?)?\s+",
        )
        .expect("static log prefix")
    });
    re.find(line).map_or(0, |m| m.end())
}

/// The key ending just before byte `eq` of `line` (no spaces inside); its start.
fn key_before(line: &[u8], eq: usize) -> Option<usize> {
    let mut k = eq;
    while k > 0 && is_key_byte(line[k - 1]) && eq - k <= MAX_KEY {
        k -= 1;
    }
    let first = *line.get(k)?;
    let before_ok = k == 0
        || matches!(
            line[k - 1],
            b' ' | b'\t' | b',' | b';' | b'&' | b'?' | b'{' | b'('
        );
    (k < eq && eq - k <= MAX_KEY && (first.is_ascii_alphabetic() || first >= 0x80) && before_ok)
        .then_some(k)
}

/// End of an unquoted logfmt value starting at `from`.
fn value_end(line: &[u8], from: usize) -> usize {
    let mut j = from;
    while line
        .get(j)
        .is_some_and(|&c| !matches!(c, b' ' | b'\t' | b',' | b';' | b'&'))
    {
        j += 1;
    }
    j
}

/// A label at the start of `rest` (1–3 words, then `:` or `=` and a space or the value): the
/// label's end and where its value starts.
fn label(rest: &str) -> Option<(usize, usize)> {
    let b = rest.as_bytes();
    let sep = memchr::memchr2(b':', b'=', &b[..b.len().min(MAX_KEY + 2)])?;
    let key = rest[..sep].trim_end();
    let words = key.split(' ').count();
    if key.is_empty()
        || words > 3
        || !key.starts_with(|c: char| c.is_alphabetic())
        || !key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '(' | ')'))
    {
        return None;
    }
    // `key: value` needs the space (`14:30`, `https://` are no labels); `key = value` a
    // one-word key and no comparison (`a == b`, `x != y`).
    let after = b.get(sep + 1).copied();
    if b[sep] == b':' && !matches!(after, Some(b' ' | b'\t')) {
        return None;
    }
    if b[sep] == b'='
        && (words > 1 || matches!(after, Some(b'=')) || key.ends_with(['!', '<', '>']))
    {
        return None;
    }
    Some((key.len(), sep + 1))
}

pub(super) fn find(s: &str, out: &mut Vec<Table>) {
    let bytes = s.as_bytes();
    if memchr::memchr2(b':', b'=', bytes).is_none() {
        return;
    }
    let mut t = Table::new(false);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes).chain([bytes.len()]) {
        let line = s[start..end].trim_end_matches('\r');
        let offset = start;
        start = end + 1;
        let lb = line.as_bytes();
        if memchr::memchr2(b':', b'=', lb).is_none() {
            continue;
        }
        // logfmt pairs anywhere on the line.
        let mut pairs: Vec<(usize, usize, usize, usize)> = Vec::new();
        for eq in memchr::memchr_iter(b'=', lb) {
            if lb.get(eq + 1).is_some_and(|&c| matches!(c, b'=' | b' ')) || eq == 0 {
                continue;
            }
            if matches!(lb[eq - 1], b'!' | b'<' | b'>' | b'=' | b' ') {
                continue;
            }
            let Some(k) = key_before(lb, eq) else {
                continue;
            };
            let (va, vb) = match lb.get(eq + 1) {
                Some(&q @ (b'"' | b'\'')) => match memchr::memchr(q, &lb[eq + 2..]) {
                    Some(n) => (eq + 1, eq + 3 + n),
                    None => continue,
                },
                _ => (eq + 1, value_end(lb, eq + 1)),
            };
            pairs.push((k, eq, va, vb));
        }
        let at_start = |k: usize| line[..k].trim().is_empty();
        if pairs.len() >= 2 || pairs.first().is_some_and(|p| at_start(p.0)) {
            for &(k, eq, va, vb) in &pairs {
                let col = t.keyed_column(s, offset + k, offset + eq);
                t.push(s, offset + va, offset + vb, col);
            }
            if pairs.len() >= 2 {
                continue;
            }
        }
        // `key: value` / `key = value` at the start (after a list marker or log prefix).
        let lead = line.len() - line.trim_start().len();
        let mut from = lead;
        for marker in ["- ", "* ", "• "] {
            if line[from..].starts_with(marker) {
                from += marker.len();
            }
        }
        from += log_prefix(&line[from..]);
        if let Some((key_len, value_from)) = label(&line[from..]) {
            if pairs.len() == 1 && at_start(pairs[0].0) {
                continue;
            }
            let col = t.keyed_column(s, offset + from, offset + from + key_len);
            let mut v_end = line.len();
            if line.ends_with(',') {
                v_end -= 1;
            }
            t.push(s, offset + from + value_from, offset + v_end, col);
        }
    }
    if !t.cells.is_empty() {
        out.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(s: &str) -> Vec<(&str, &str)> {
        super::super::named_cells(s, find)
    }

    #[test]
    fn labels_config_and_logfmt() {
        assert_eq!(
            pairs("Kunde: Jana Brökelmann\n- Ort: Guben\nname = Olaf T\n"),
            [
                ("Kunde", "Jana Brökelmann"),
                ("Ort", "Guben"),
                ("name", "Olaf T")
            ]
        );
        assert_eq!(
            pairs("2024-07-22T10:15:01Z INFO user=\"Jana B\" city=Guben status=ok"),
            [("user", "Jana B"), ("city", "Guben"), ("status", "ok")]
        );
        assert_eq!(
            pairs("Jul 22 10:15:01 web01 app[311]: Kunde: Jana B"),
            [("Kunde", "Jana B")]
        );
    }

    #[test]
    fn log_prefixes_pass_the_start_test() {
        for line in [
            "2024-07-22T10:15:01Z INFO x",
            "[2024-07-22 10:15:01] x",
            "Jul 22 10:15:01 web01 app[311]: x",
            "[22/Jul/2024:10:15:01 +0200] x",
            "\u{0662}\u{0660}\u{0662}\u{0664}-07-22 10:15 x",
        ] {
            assert!(log_prefix(line) > 0, "{line}");
            assert!(may_start_log(line.as_bytes()), "{line}");
        }
        for line in ["Kunde 7: x", "Jul: x", "jul 22 10:15:01 x", "", "- x"] {
            assert!(!may_start_log(line.as_bytes()), "{line}");
            assert_eq!(log_prefix(line), 0, "{line}");
        }
    }

    #[test]
    fn prose_colons_are_no_labels() {
        assert!(pairs("Der Termin um 14:30 Uhr passt. Siehe https://x.de").is_empty());
        assert!(pairs("Wenn a == b gilt, dann x != y").is_empty());
        assert!(pairs("Ich habe heute folgendes erledigt und dann: nichts").is_empty());
    }
}

//! Where a text holds code: fenced blocks, and runs of lines that read as code.
//!
//! A fence's info string decides its block (`python` is code, `csv` is not); an unnamed fence
//! and unfenced text are judged line by line. A line reads as code by marks that prose does not
//! make — a line ending in `{`, an operator such as `==` or `->`, `name = value`, a call
//! `name(…)` closing the line, a keyword with code punctuation. A run of lines is code when at
//! least [`MIN_CODE_LINES`] of them read as code and code outweighs prose in it; three prose
//! lines in a row end a run. Texts whose lines carry a line-number gutter (an agent's file read,
//! `    12→…`) or diff markers in a hunk are judged on the lines behind the gutter or marker, and
//! the lexer reads only those bytes.

use super::languages::{is_line_keyword, Family};

/// Lines that must read as code before a run counts as code: one or two such lines happen in
/// prose (a formula, an arrow), a short snippet without a fence is left to the prose readers.
const MIN_CODE_LINES: usize = 3;

/// Prose lines in a row that end a run of code.
const PROSE_BREAK: usize = 3;

/// A stretch of code: its family and its lines as `(content start, line end)` byte offsets of
/// the view, the content starting behind a gutter or diff marker.
#[derive(Debug)]
pub(crate) struct Region {
    pub family: Family,
    pub lines: Vec<(usize, usize)>,
}

impl Region {
    pub fn start(&self) -> usize {
        self.lines.first().map_or(0, |l| l.0)
    }

    pub fn end(&self) -> usize {
        self.lines.last().map_or(0, |l| l.1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reads {
    Code,
    Prose,
    /// A comment line (or a heading): part of the code it stands before.
    Comment,
    /// Blank lines, diff heads, short lines: they neither make nor break a run.
    Neither,
}

/// One line as the finder sees it: where its content starts (behind a gutter or diff marker),
/// how it reads, and the info string if it is a fence line.
struct Line<'v> {
    start: usize,
    content: usize,
    end: usize,
    reads: Reads,
    fence: Option<&'v str>,
    diff: bool,
}

/// The code regions of `view`, in order.
pub(crate) fn find(view: &str) -> Vec<Region> {
    if let Some(family) = script_family(view) {
        return vec![Region {
            family,
            lines: split_lines(view),
        }];
    }
    // No fence and none of the bytes code is written with: nothing to read as code (most prose
    // leaves here, after a few vectorised byte searches, before its lines are split).
    let fence_mark = memchr::memmem::find(view.as_bytes(), b"```").is_some()
        || memchr::memmem::find(view.as_bytes(), b"~~~").is_some();
    if !fence_mark && !holds_code_bytes(view) {
        return Vec::new();
    }
    let spans = split_lines(view);
    // Fewer lines than a run needs, and no fence.
    if !fence_mark && spans.len() < MIN_CODE_LINES {
        return Vec::new();
    }
    let lines = classify(view, &spans);
    let fenced = lines.iter().any(|l| l.fence.is_some());
    let code = lines.iter().filter(|l| l.reads == Reads::Code).count();
    // Prose, the common case, ends here: one pass over its lines.
    if !fenced && code < MIN_CODE_LINES {
        return Vec::new();
    }
    if !fenced && !lines.iter().any(|l| l.diff) {
        if let Some(region) = whole_file(view, &lines, code) {
            return vec![region];
        }
    }
    let mut regions = Vec::new();
    let mut run = Run::default();
    let mut fence: Option<Fence> = None;
    for line in &lines {
        if let Some(open) = fence.as_mut() {
            if line.fence.is_none() {
                open.lines.push((line.start, line.end));
            } else if let Some(region) = fence.take().and_then(|f| f.close(view)) {
                regions.push(region);
            }
            continue;
        }
        if let Some(info) = line.fence {
            run.close(view, &mut regions);
            fence = Some(Fence::open(info));
            continue;
        }
        run.push((line.content, line.end), line.reads, view, &mut regions);
    }
    if let Some(open) = fence {
        if let Some(region) = open.close(view) {
            regions.push(region);
        }
    }
    run.close(view, &mut regions);
    regions
}

/// Whether `view` holds a byte that code of any family writes and prose rarely does (`=`, `;`,
/// `{`, `[`, `|`, `&`, `$`): a file without one is not code.
fn holds_code_bytes(view: &str) -> bool {
    let b = view.as_bytes();
    memchr::memchr3(b'=', b';', b'{', b).is_some()
        || memchr::memchr3(b'}', b'[', b']', b).is_some()
        || memchr::memchr3(b'|', b'&', b'$', b).is_some()
}

/// Every line classified once: gutter and diff markers stepped over, docstrings told.
fn classify<'v>(view: &'v str, spans: &[(usize, usize)]) -> Vec<Line<'v>> {
    let gutter = has_gutter(view, spans);
    let mut in_hunk = false;
    let mut docstrings = Docstrings::default();
    spans
        .iter()
        .map(|&(start, end)| {
            let line = &view[start..end];
            let fence = is_fence(line);
            let from = start + gutter.then(|| gutter_width(line)).flatten().unwrap_or(0);
            let content = &view[from..end];
            let kind = diff_line(content, &mut in_hunk);
            let (content, reads) = match kind {
                _ if fence.is_some() => (from, Reads::Neither),
                DiffLine::Header => (from, Reads::Neither),
                DiffLine::InHunk => (from + 1, docstrings.reads(&content[1..])),
                DiffLine::Not => (from, docstrings.reads(content)),
            };
            Line {
                start,
                content,
                end,
                reads,
                fence,
                diff: !matches!(kind, DiffLine::Not),
            }
        })
        .collect()
}

/// An open fence: what its info string said, and its lines so far.
struct Fence {
    /// `Some(Some(f))` names a family, `Some(None)` data or prose, `None` an unknown or no name.
    named: Option<Option<Family>>,
    lines: Vec<(usize, usize)>,
}

impl Fence {
    fn open(info: &str) -> Fence {
        let named = if info.trim().is_empty() {
            None
        } else {
            Family::of_fence(info.split_whitespace().next().unwrap_or(""))
        };
        Fence {
            named,
            lines: Vec::new(),
        }
    }

    /// The fenced block as a region, if it is code: named code, or unnamed lines that read as
    /// code by the run rule.
    fn close(self, view: &str) -> Option<Region> {
        let family = match self.named {
            Some(named) => named?,
            None => {
                let (mut code, mut prose) = (0, 0);
                for &(s, e) in &self.lines {
                    match reads(&view[s..e]) {
                        Reads::Code => code += 1,
                        Reads::Prose => prose += 1,
                        Reads::Comment | Reads::Neither => {}
                    }
                }
                if code == 0 || code < prose {
                    return None;
                }
                Family::guess(self.lines.iter().map(|&(s, e)| &view[s..e]))
            }
        };
        (!self.lines.is_empty()).then_some(Region {
            family,
            lines: self.lines,
        })
    }
}

/// The unfenced lines since the last break, and how they read.
#[derive(Default)]
struct Run {
    lines: Vec<((usize, usize), Reads)>,
    prose_in_a_row: usize,
}

impl Run {
    fn push(&mut self, line: (usize, usize), reads: Reads, view: &str, out: &mut Vec<Region>) {
        self.lines.push((line, reads));
        match reads {
            Reads::Prose => {
                self.prose_in_a_row += 1;
                if self.prose_in_a_row >= PROSE_BREAK {
                    self.close(view, out);
                }
            }
            Reads::Code => self.prose_in_a_row = 0,
            Reads::Comment | Reads::Neither => {}
        }
    }

    /// Ends the run: its lines from the first code line to the last are a region if code
    /// outweighs prose there.
    fn close(&mut self, view: &str, out: &mut Vec<Region>) {
        let lines = std::mem::take(&mut self.lines);
        self.prose_in_a_row = 0;
        let first = lines.iter().position(|l| l.1 == Reads::Code);
        let last = lines.iter().rposition(|l| l.1 == Reads::Code);
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let body = &lines[first..=last];
        let code = body.iter().filter(|l| l.1 == Reads::Code).count();
        let prose = body.iter().filter(|l| l.1 == Reads::Prose).count();
        if code < MIN_CODE_LINES || code < prose {
            return;
        }
        // Comment lines just before the first code line belong to it (a file's header).
        let mut from = first;
        while from > 0 && matches!(lines[from - 1].1, Reads::Comment | Reads::Neither) {
            from -= 1;
        }
        while lines[from].1 == Reads::Neither {
            from += 1;
        }
        let spans: Vec<(usize, usize)> = lines[from..=last].iter().map(|l| l.0).collect();
        let family = Family::guess(spans.iter().map(|&(s, e)| &view[s..e]));
        out.push(Region {
            family,
            lines: spans,
        });
    }
}

/// The whole text as one region when it is a file of code: no fence, no diff, and at least as
/// many code lines as prose lines (a file's long docstrings and comments stay inside it, read as
/// literals, instead of cutting it into runs). Prose before the first line of code and after
/// the last is a message around the file, and stays out.
fn whole_file(view: &str, lines: &[Line<'_>], code: usize) -> Option<Region> {
    let prose = lines.iter().filter(|l| l.reads == Reads::Prose).count();
    if code < prose {
        return None;
    }
    let first = lines.iter().position(|l| l.reads == Reads::Code)?;
    let last = lines.iter().rposition(|l| l.reads == Reads::Code)?;
    let mut from = first;
    while from > 0 && lines[from - 1].reads != Reads::Prose {
        from -= 1;
    }
    let content: Vec<(usize, usize)> = lines[from..=last]
        .iter()
        .map(|l| (l.content, l.end))
        .collect();
    let family = Family::guess(content.iter().map(|&(s, e)| &view[s..e]));
    Some(Region {
        family,
        lines: content,
    })
}

/// Tells the lines of triple-quoted strings, which read as comments: a docstring's prose belongs
/// to the code around it.
#[derive(Default)]
struct Docstrings {
    open: bool,
}

impl Docstrings {
    fn reads(&mut self, line: &str) -> Reads {
        let quotes = if memchr::memchr2(b'"', b'\'', line.as_bytes()).is_some() {
            line.matches("\"\"\"").count() + line.matches("'''").count()
        } else {
            0
        };
        let inside = self.open || quotes % 2 == 1;
        if quotes % 2 == 1 {
            self.open = !self.open;
        }
        if inside {
            Reads::Comment
        } else {
            reads(line)
        }
    }
}

/// The family a script's `#!` line names (`#!/usr/bin/env bash`): the whole text is then that
/// script, whatever its lines look like.
fn script_family(view: &str) -> Option<Family> {
    let first = view.lines().next()?.strip_prefix("#!")?;
    let interpreter = first.split_whitespace().last()?.rsplit('/').next()?;
    let name = interpreter.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match Family::of_fence(name) {
        Some(Some(family)) => Some(family),
        _ => None,
    }
}

/// `(start, end)` of every line, without its line break.
fn split_lines(view: &str) -> Vec<(usize, usize)> {
    let mut lines = Vec::new();
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', view.as_bytes()) {
        let end = if nl > start && view.as_bytes()[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        lines.push((start, end));
        start = nl + 1;
    }
    if start < view.len() {
        lines.push((start, view.len()));
    }
    lines
}

/// The info string of a fence line (```` ```python ````, `~~~`), if `line` is one.
fn is_fence(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let mark = t.as_bytes().first().filter(|&&b| b == b'`' || b == b'~')?;
    let n = t.bytes().take_while(|b| b == mark).count();
    (n >= 3).then(|| &t[n..])
}

/// Whether most non-blank lines start with a line-number gutter.
fn has_gutter(view: &str, lines: &[(usize, usize)]) -> bool {
    let (mut with, mut all) = (0, 0);
    for &(s, e) in lines {
        let line = &view[s..e];
        if line.trim().is_empty() {
            continue;
        }
        all += 1;
        with += usize::from(gutter_width(line).is_some());
    }
    all >= 2 && with * 10 >= all * 8
}

/// Bytes of a line-number gutter (`   12→`, `12\t`, `12:` as grep -n prints) at the start of
/// `line`.
fn gutter_width(line: &str) -> Option<usize> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let digits = line[spaces..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 || digits > 7 {
        return None;
    }
    let rest = &line[spaces + digits..];
    ["→", "\t", ":", "|"]
        .iter()
        .find(|sep| rest.starts_with(*sep))
        .map(|sep| spaces + digits + sep.len())
}

enum DiffLine {
    /// `diff --git`, `---`/`+++` file lines, `@@` hunk heads.
    Header,
    /// A line of a hunk: its first byte is a marker.
    InHunk,
    Not,
}

fn diff_line(line: &str, in_hunk: &mut bool) -> DiffLine {
    if line.starts_with("@@ ") {
        *in_hunk = true;
        return DiffLine::Header;
    }
    if line.starts_with("diff --git ") || line.starts_with("+++ ") || line.starts_with("--- ") {
        *in_hunk = false;
        return DiffLine::Header;
    }
    if *in_hunk && matches!(line.as_bytes().first(), Some(b'+' | b'-' | b' ')) {
        return DiffLine::InHunk;
    }
    *in_hunk = false;
    DiffLine::Not
}

/// Whether a line reads as prose: inside code, a prose line that no comment or string holds is
/// a message's text, and the lexer leaves it to the prose readers.
pub(crate) fn is_prose(line: &str) -> bool {
    reads(line) == Reads::Prose
}

/// How one line reads (module doc).
fn reads(line: &str) -> Reads {
    let t = line.trim();
    if t.is_empty() {
        return Reads::Neither;
    }
    if is_comment_line(t) {
        return Reads::Comment;
    }
    if t.bytes().all(|b| b"{}[]();,".contains(&b)) {
        return Reads::Code;
    }
    let facts = LineFacts::of(t);
    if has_code_marks(t, &facts) {
        return Reads::Code;
    }
    if facts.words >= 4 || t.ends_with(['.', '!', '?']) {
        Reads::Prose
    } else {
        Reads::Neither
    }
}

fn is_comment_line(t: &str) -> bool {
    ["//", "/*", "* ", "*/", "#", "--", "<!--"]
        .iter()
        .any(|m| t.starts_with(m))
        || t == "*"
}

/// What one pass over a line finds: whether it holds an operator prose does not write, `=`,
/// a call `name(`, and how many words it has.
struct LineFacts {
    operator: bool,
    equals: bool,
    call: bool,
    words: usize,
}

impl LineFacts {
    fn of(t: &str) -> LineFacts {
        let b = t.as_bytes();
        let mut facts = LineFacts {
            operator: false,
            equals: false,
            call: false,
            words: 0,
        };
        let mut prev = b' ';
        for (i, &c) in b.iter().enumerate() {
            if !c.is_ascii_whitespace() && prev.is_ascii_whitespace() {
                facts.words += 1;
            }
            match (prev, c) {
                // `==` `!=` `&&` `||` `->` `=>` `::` `+=` `-=` `:=` `${`
                (b'=' | b'!' | b'+' | b'-' | b':', b'=')
                | (b'&', b'&')
                | (b'|', b'|')
                | (b'-' | b'=', b'>')
                | (b':', b':')
                | (b'$', b'{') => facts.operator = true,
                // `();`, `self.`, `this.`
                (b')', b';') => facts.operator |= i >= 2 && b[i - 2] == b'(',
                (b'f' | b's', b'.') => {
                    let head = &b[..i];
                    facts.operator |= head.ends_with(b"self") || head.ends_with(b"this");
                }
                (p, b'(') if p.is_ascii_alphanumeric() || p == b'_' => facts.call = true,
                _ => {}
            }
            facts.equals |= c == b'=';
            prev = c;
        }
        facts
    }
}

/// Marks that prose does not make (module doc).
fn has_code_marks(t: &str, facts: &LineFacts) -> bool {
    if t.ends_with('{') || facts.operator {
        return true;
    }
    // An element of a literal table: `('ʹ', '͵'),`, `number: { label: "…" },`; not a JSON
    // line (`"name": …},`), which is data.
    if (t.ends_with("),") || t.ends_with("},") || t.ends_with("],")) && !t.contains("\": ") {
        return true;
    }
    if t.starts_with('@') && t[1..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        return true;
    }
    if t.starts_with("#include") || t.starts_with("#[") || t.starts_with("#!") {
        return true;
    }
    let first = t
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("");
    let code_end = t.ends_with(';') || t.ends_with("):") || t.ends_with(')');
    // `SELECT`, `select`; not `If` or `For` opening a sentence.
    let keyword = if first.bytes().all(|b| !b.is_ascii_uppercase()) {
        is_line_keyword(first)
    } else {
        first.len() <= 16
            && first.bytes().all(|b| b.is_ascii_uppercase())
            && is_line_keyword(&first.to_ascii_lowercase())
    };
    if keyword {
        // `pass`, `return x`, `import os`, `else:`; not a wrapped prose line `for the customer.`
        let short = facts.words <= 3 && !t.ends_with(['.', ',']);
        if short || code_end || t.contains([':', '(', '=', ';', '{', '[']) {
            return true;
        }
    }
    (facts.equals && is_assignment(t) && !is_setting(t)) || (code_end && facts.call)
}

/// `KEY=value`, `name = "Anna"`: an assignment of a plain value, as a configuration file
/// (`.env`, `.properties`, TOML) is made of; it neither makes nor breaks a run of code.
fn is_setting(t: &str) -> bool {
    let value = t.split_once('=').map_or("", |(_, v)| v);
    !value.contains(['(', ')', '{', ';', '['])
}

/// `name = value`, `obj.field[i] = value`, `let x = …` without the keyword: an identifier path,
/// `=` (not `==`), and something after it.
fn is_assignment(t: &str) -> bool {
    let lhs_len = t
        .bytes()
        .take_while(|&b| b.is_ascii_alphanumeric() || b"_.$[]'\"".contains(&b))
        .count();
    if lhs_len == 0 || !t.as_bytes()[0].is_ascii_alphabetic() && t.as_bytes()[0] != b'_' {
        return false;
    }
    let rest = t[lhs_len..].trim_start();
    rest.starts_with('=') && !rest.starts_with("==") && rest.len() > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Family, usize)> {
        find(text)
            .iter()
            .map(|r| (r.family, r.lines.len()))
            .collect()
    }

    #[test]
    fn a_named_fence_decides_its_block() {
        let text = "Bitte prüfen:\n```python\nx = 1\n```\n```csv\nname;ort\n```\n";
        assert_eq!(kinds(text), [(Family::Python, 1)]);
    }

    #[test]
    fn unfenced_code_is_found_and_prose_is_not() {
        let code = "def f(x):\n    if x == 1:\n        return g(x)\n    elif x:\n        pass\n";
        assert_eq!(kinds(code), [(Family::Python, 5)]);
        let prose = "Sehr geehrte Frau Müller,\nvielen Dank für Ihre Nachricht vom 3. Mai.\n\
                     Wir melden uns bald. Ihr Konto endet auf 1234.\nMit freundlichen Grüßen\n";
        assert!(kinds(prose).is_empty());
    }

    #[test]
    fn a_script_is_code_whatever_its_lines_look_like() {
        let script = "#!/usr/bin/env bash\npg_dump -h db.intern -U backup shop > /tmp/x.sql\n";
        assert_eq!(kinds(script), [(Family::Shell, 2)]);
        assert_eq!(
            kinds("#!/usr/bin/python3\nprint('x')\n"),
            [(Family::Python, 2)]
        );
    }

    #[test]
    fn two_code_lines_are_not_enough() {
        assert!(kinds("x = 1\ny = f(x)\nDas ist alles.\n").is_empty());
    }

    #[test]
    fn a_gutter_and_diff_markers_are_stepped_over() {
        let read = "     1→fn main() {\n     2→    let x = y::z();\n     3→}\n";
        let regions = find(read);
        assert_eq!(regions.len(), 1);
        let (s, e) = regions[0].lines[0];
        assert_eq!(&read[s..e], "fn main() {");
        let diff = "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n-x = f(1)\n+x = f(2)\n if x == 2:\n";
        let regions = find(diff);
        assert_eq!(regions.len(), 1);
        let (s, e) = regions[0].lines[0];
        assert_eq!(&diff[s..e], "x = f(1)");
    }
}

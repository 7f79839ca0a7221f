//! A region of code split into literals and structure, by its family's [`Syntax`].
//!
//! Literals are what code carries as values: strings, comments, numbers (and, in shell, bare
//! arguments). Words are the identifiers and keywords between them. Everything else is
//! punctuation and whitespace. The lexer only needs where each literal begins and ends, so it
//! reads token by token without a grammar, carrying an open comment or string across lines.

use super::languages::{is_shell_keyword, SingleQuote, Syntax};
use super::regions::{is_prose, Region};

/// Byte ranges of the view, each list sorted and non-overlapping.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    pub literals: Vec<(usize, usize)>,
    pub words: Vec<(usize, usize)>,
}

/// What a line left open for the next.
#[derive(Debug, Clone, Copy)]
enum Open {
    Nothing,
    /// Inside a literal that ends at `close`; `escapes`: a backslash escapes the next byte.
    Literal {
        close: &'static str,
        escapes: bool,
    },
    /// Inside a Rust raw string closed by `"` and this many `#`.
    Raw {
        hashes: usize,
    },
}

pub(crate) fn split(view: &str, region: &Region) -> Layout {
    let mut lexer = Lexer {
        text: view,
        view: view.as_bytes(),
        syntax: region.family.syntax(),
        layout: Layout::default(),
        open: Open::Nothing,
    };
    for &(start, end) in &region.lines {
        lexer.line(start, end);
    }
    lexer.layout
}

struct Lexer<'v> {
    text: &'v str,
    view: &'v [u8],
    syntax: &'static Syntax,
    layout: Layout,
    open: Open,
}

impl Lexer<'_> {
    fn line(&mut self, start: usize, end: usize) {
        // A shell command reads like prose (`mysql -u root -p'…'`) and is lexed all the same.
        let prose =
            !self.syntax.bare_words_are_values && is_prose(self.text.get(start..end).unwrap_or(""));
        if matches!(self.open, Open::Nothing) && prose {
            self.literal(start, end);
            return;
        }
        let mut i = start;
        while i < end {
            i = match self.open {
                Open::Nothing => self.token(i, end),
                Open::Literal { close, escapes } => self.continue_literal(i, end, close, escapes),
                Open::Raw { hashes } => self.continue_raw(i, end, hashes),
            };
        }
    }

    fn literal(&mut self, start: usize, end: usize) {
        if start < end {
            self.layout.literals.push((start, end));
        }
    }

    fn word(&mut self, start: usize, end: usize) {
        if start < end {
            self.layout.words.push((start, end));
        }
    }

    fn continue_literal(
        &mut self,
        i: usize,
        end: usize,
        close: &'static str,
        escapes: bool,
    ) -> usize {
        match find_close(self.view, i, end, close.as_bytes(), escapes) {
            Some(at) => {
                self.literal(i, at + close.len());
                self.open = Open::Nothing;
                at + close.len()
            }
            None => {
                self.literal(i, end);
                end
            }
        }
    }

    fn continue_raw(&mut self, i: usize, end: usize, hashes: usize) -> usize {
        let mut j = i;
        while j < end {
            if self.view[j] == b'"'
                && self.view[j + 1..end]
                    .iter()
                    .take(hashes)
                    .filter(|&&b| b == b'#')
                    .count()
                    == hashes
            {
                let stop = j + 1 + hashes;
                self.literal(i, stop);
                self.open = Open::Nothing;
                return stop;
            }
            j += 1;
        }
        self.literal(i, end);
        end
    }

    /// Reads the token at `i` (nothing open) and returns where the next begins.
    fn token(&mut self, i: usize, end: usize) -> usize {
        let b = self.view[i];
        let rest = &self.view[i..end];
        if b.is_ascii_whitespace() {
            return i + 1;
        }
        let after_space = i == 0 || self.view[i - 1].is_ascii_whitespace();
        for marker in self.syntax.line_comments {
            if rest.starts_with(marker.as_bytes()) && (*marker != "#" || after_space) {
                self.literal(i, end);
                return end;
            }
        }
        for &(open, close) in self.syntax.block_comments {
            if rest.starts_with(open.as_bytes()) {
                self.open = Open::Literal {
                    close,
                    escapes: false,
                };
                self.literal(i, i + open.len());
                return i + open.len();
            }
        }
        if self.syntax.triple_quotes && (rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''")) {
            let close = if b == b'"' { "\"\"\"" } else { "'''" };
            self.open = Open::Literal {
                close,
                escapes: true,
            };
            self.literal(i, i + 3);
            return i + 3;
        }
        if self.syntax.raw_strings {
            if let Some(next) = self.raw_string(i, end) {
                return next;
            }
        }
        match b {
            b'"' => self.double_quoted(i, end),
            b'\'' => self.single_quoted(i, end),
            b'`' if self.syntax.backticks => {
                self.open = Open::Literal {
                    close: "`",
                    escapes: true,
                };
                self.literal(i, i + 1);
                i + 1
            }
            b'0'..=b'9' if !self.after_word_byte(i) => {
                let stop = i + self.view[i..end]
                    .iter()
                    .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
                    .count();
                self.literal(i, stop);
                stop
            }
            _ if self.syntax.bare_words_are_values => self.shell_word(i, end),
            _ if is_word_start(b) => {
                let stop = word_end(self.view, i, end);
                self.word(i, stop);
                stop
            }
            _ => i + 1,
        }
    }

    fn after_word_byte(&self, i: usize) -> bool {
        i > 0 && is_word_byte(self.view[i - 1])
    }

    fn double_quoted(&mut self, i: usize, end: usize) -> usize {
        let close = find_close(self.view, i + 1, end, b"\"", true);
        if self.syntax.quoted_identifiers {
            let stop = close.map_or(end, |at| at + 1);
            self.word(i, stop);
            return stop;
        }
        match close {
            Some(at) => {
                self.literal(i, at + 1);
                at + 1
            }
            // Shell and Rust strings go on over lines; elsewhere an open string ends the line.
            None if self.syntax.bare_words_are_values || self.syntax.raw_strings => {
                self.open = Open::Literal {
                    close: "\"",
                    escapes: true,
                };
                self.literal(i, end);
                end
            }
            None => {
                self.literal(i, end);
                end
            }
        }
    }

    fn single_quoted(&mut self, i: usize, end: usize) -> usize {
        match self.syntax.single_quote {
            SingleQuote::String => match find_close(self.view, i + 1, end, b"'", true) {
                Some(at) => {
                    self.literal(i, at + 1);
                    at + 1
                }
                // An apostrophe, not a string: punctuation.
                None => i + 1,
            },
            SingleQuote::Verbatim => match find_close(self.view, i + 1, end, b"'", false) {
                Some(at) => {
                    self.literal(i, at + 1);
                    at + 1
                }
                None => {
                    self.open = Open::Literal {
                        close: "'",
                        escapes: false,
                    };
                    self.literal(i, end);
                    end
                }
            },
            SingleQuote::CharOrLifetime => {
                let char_end = if self.view.get(i + 1) == Some(&b'\\') {
                    find_close(self.view, i + 2, end.min(i + 14), b"'", true)
                } else {
                    let width = utf8_width(self.view.get(i + 1).copied().unwrap_or(0));
                    (self.view.get(i + 1 + width) == Some(&b'\'')).then_some(i + 1 + width)
                };
                match char_end {
                    Some(at) => {
                        self.literal(i, at + 1);
                        at + 1
                    }
                    None => {
                        let stop = word_end(self.view, i + 1, end);
                        self.word(i, stop);
                        stop.max(i + 1)
                    }
                }
            }
        }
    }

    /// `r"…"`, `r#"…"#`, `br"…"` at `i`, read or opened; `None` if there is none.
    fn raw_string(&mut self, i: usize, end: usize) -> Option<usize> {
        if self.after_word_byte(i) {
            return None;
        }
        let mut j = i;
        if self.view.get(j) == Some(&b'b') {
            j += 1;
        }
        if self.view.get(j) != Some(&b'r') {
            return None;
        }
        j += 1;
        let hashes = self.view[j..end].iter().take_while(|&&b| b == b'#').count();
        if self.view.get(j + hashes) != Some(&b'"') {
            return None;
        }
        self.open = Open::Raw { hashes };
        let body = j + hashes + 1;
        self.literal(i, body);
        Some(body)
    }

    /// A shell word at `i`: syntax (keywords, `$NAME`, options, an assignment's name) is
    /// structure, any other word an argument and a value.
    fn shell_word(&mut self, i: usize, end: usize) -> usize {
        let b = self.view[i];
        if b == b'$' || b == b'-' {
            let stop = i
                + 1
                + self.view[i + 1..end]
                    .iter()
                    .take_while(|&&c| {
                        is_word_byte(c) || c == b'-' || c == b'{' || c == b'}' || c == b'#'
                    })
                    .count();
            self.word(i, stop);
            return stop;
        }
        if !is_word_start(b) && !b.is_ascii_digit() && !b".:/@+%~,".contains(&b) {
            return i + 1;
        }
        let name_end = word_end(self.view, i, end);
        let name = std::str::from_utf8(&self.view[i..name_end]).unwrap_or("");
        if self.view.get(name_end) == Some(&b'=') || is_shell_keyword(name) {
            self.word(i, name_end);
            return name_end.max(i + 1);
        }
        let stop = i + self.view[i..end]
            .iter()
            .take_while(|&&c| !c.is_ascii_whitespace() && !b";|&<>()'\"`$".contains(&c))
            .count();
        self.literal(i, stop);
        stop.max(i + 1)
    }
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b == b'@' || b >= 0x80
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

fn word_end(view: &[u8], i: usize, end: usize) -> usize {
    let first = usize::from(view.get(i).is_some_and(|&b| b == b'@' || b == b'$'));
    i + first
        + view[i + first..end]
            .iter()
            .take_while(|&&b| is_word_byte(b))
            .count()
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// Where `close` begins in `view[from..end]`, skipping escaped bytes when `escapes`.
fn find_close(view: &[u8], from: usize, end: usize, close: &[u8], escapes: bool) -> Option<usize> {
    let mut j = from;
    while j < end {
        if escapes && view[j] == b'\\' {
            j += 2;
            continue;
        }
        if view[j..end].starts_with(close) {
            // A doubled quote (`'O''Brien'` in SQL) stands for the quote itself.
            if !escapes && close == b"'" && view.get(j + 1) == Some(&b'\'') && j + 1 < end {
                j += 2;
                continue;
            }
            return Some(j);
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::languages::Family;

    fn pieces(family: Family, text: &str) -> (Vec<&str>, Vec<&str>) {
        let mut lines = Vec::new();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            lines.push((start, start + line.trim_end_matches('\n').len()));
            start += line.len();
        }
        let layout = split(text, &Region { family, lines });
        let show = |spans: &[(usize, usize)]| spans.iter().map(|&(s, e)| &text[s..e]).collect();
        (show(&layout.literals), show(&layout.words))
    }

    #[test]
    fn python_strings_comments_and_names() {
        let (lits, words) = pieces(Family::Python, "elif x: # Anna\n    pw = \"hunter2\"\n");
        assert_eq!(lits, ["# Anna", "\"hunter2\""]);
        assert_eq!(words, ["elif", "x", "pw"]);
    }

    #[test]
    fn a_docstring_spans_lines() {
        let (lits, _) = pieces(Family::Python, "\"\"\"Author:\nJürgen Weiß\"\"\"\nx = 1\n");
        assert_eq!(lits, ["\"\"\"", "Author:", "Jürgen Weiß\"\"\"", "1"]);
    }

    #[test]
    fn rust_lifetimes_chars_and_raw_strings() {
        let (lits, words) = pieces(
            Family::Rust,
            "fn f<'a>(c: char) { let s = r#\"x\"#; '\\n'; 'z' }\n",
        );
        assert_eq!(lits, ["r#\"", "x\"#", "'\\n'", "'z'"]);
        assert!(words.contains(&"'a"));
    }

    #[test]
    fn shell_arguments_are_values_and_syntax_is_not() {
        let (lits, words) = pieces(
            Family::Shell,
            "export PGPASSWORD='s3cr3t'\nif [ -n \"$X\" ]; then echo anna; fi\n",
        );
        assert!(lits.contains(&"'s3cr3t'") && lits.contains(&"anna"));
        assert!(words.contains(&"PGPASSWORD") && words.contains(&"if") && words.contains(&"-n"));
    }

    #[test]
    fn sql_strings_and_quoted_names() {
        let (lits, words) = pieces(
            Family::Sql,
            "INSERT INTO \"kunde\" VALUES ('O''Brien', 42); -- seed\n",
        );
        assert_eq!(lits, ["'O''Brien'", "42", "-- seed"]);
        assert!(words.contains(&"\"kunde\""));
    }
}

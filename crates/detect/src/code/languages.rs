//! The language families the code reader knows, as rows of data: how each writes comments and
//! literals, which fence names select it, and what in a line gives it away.
//!
//! A family, not a language: JavaScript, Java, Go, C# and C read alike for this purpose (their
//! comments and strings), so they share [`Family::CLike`]; Rust differs only in its lifetimes and
//! raw strings.

use std::sync::OnceLock;

use ahash::AHashSet;

use crate::lexicon::Lexicon;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Python,
    CLike,
    Rust,
    Shell,
    Sql,
}

/// What `'` opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SingleQuote {
    /// A string with backslash escapes, closed on the same line (JavaScript, Python, C's chars).
    String,
    /// A character literal (`'x'`, `'\n'`) or else a lifetime (`'a`), as in Rust.
    CharOrLifetime,
    /// A string without escapes that may span lines (shell, SQL with `''` doubled).
    Verbatim,
}

/// How one family writes what is not structure.
pub(crate) struct Syntax {
    pub line_comments: &'static [&'static str],
    pub block_comments: &'static [(&'static str, &'static str)],
    pub single_quote: SingleQuote,
    /// `"""` and `'''` strings that span lines.
    pub triple_quotes: bool,
    /// Backtick strings that span lines (JavaScript templates, Go raw strings).
    pub backticks: bool,
    /// `r"…"` and `r#"…"#`.
    pub raw_strings: bool,
    /// `"…"` names an identifier, not a value (SQL).
    pub quoted_identifiers: bool,
    /// A bare word is an argument, hence a value, unless it is syntax (shell).
    pub bare_words_are_values: bool,
}

impl Family {
    pub(crate) fn syntax(self) -> &'static Syntax {
        match self {
            Family::Python => &PYTHON,
            Family::CLike => &C_LIKE,
            Family::Rust => &RUST,
            Family::Shell => &SHELL,
            Family::Sql => &SQL,
        }
    }

    /// The family a fence's info string names, `Some(None)` for a fence of data or prose
    /// (`json`, `csv`, `text`: not code), `None` for a name not listed (guess from the lines).
    pub(crate) fn of_fence(info: &str) -> Option<Option<Family>> {
        let name = info.trim().to_ascii_lowercase();
        FENCES
            .iter()
            .find(|(names, _)| names.split(' ').any(|n| n == name))
            .map(|&(_, family)| family)
    }

    /// The family whose marks the lines carry most often; C-like when none stands out.
    pub(crate) fn guess<'t>(lines: impl Iterator<Item = &'t str>) -> Family {
        let mut votes = [0usize; 5];
        for line in lines {
            for &(mark, family) in MARKS {
                if mark_in(line, mark) {
                    votes[family as usize] += 1;
                }
            }
        }
        let order = [
            Family::Python,
            Family::Rust,
            Family::Shell,
            Family::Sql,
            Family::CLike,
        ];
        order
            .into_iter()
            .max_by_key(|&f| (votes[f as usize], f == Family::CLike))
            .filter(|&f| votes[f as usize] > 0)
            .unwrap_or(Family::CLike)
    }
}

/// Whether `line` carries `mark`: a leading `^` anchors it at the line's first non-blank byte.
fn mark_in(line: &str, mark: &str) -> bool {
    match mark.strip_prefix('^') {
        Some(lead) => line.trim_start().starts_with(lead),
        None => line.contains(mark),
    }
}

/// Whether `word` (lowercase) may begin a line of code (`data/lexicon/code_keywords.txt`).
pub(crate) fn is_line_keyword(word: &str) -> bool {
    static KEYWORDS: OnceLock<AHashSet<&'static str>> = OnceLock::new();
    KEYWORDS
        .get_or_init(|| Lexicon::get().lists.code_keywords.iter().copied().collect())
        .contains(word)
}

/// Whether `word` is shell syntax rather than an argument (`data/lexicon/code_shell_keywords.txt`).
pub(crate) fn is_shell_keyword(word: &str) -> bool {
    Lexicon::get().lists.code_shell_keywords.contains(&word)
}

static PYTHON: Syntax = Syntax {
    line_comments: &["#"],
    block_comments: &[],
    single_quote: SingleQuote::String,
    triple_quotes: true,
    backticks: false,
    raw_strings: false,
    quoted_identifiers: false,
    bare_words_are_values: false,
};

static C_LIKE: Syntax = Syntax {
    line_comments: &["//"],
    block_comments: &[("/*", "*/")],
    single_quote: SingleQuote::String,
    triple_quotes: false,
    backticks: true,
    raw_strings: false,
    quoted_identifiers: false,
    bare_words_are_values: false,
};

static RUST: Syntax = Syntax {
    line_comments: &["//"],
    block_comments: &[("/*", "*/")],
    single_quote: SingleQuote::CharOrLifetime,
    triple_quotes: false,
    backticks: false,
    raw_strings: true,
    quoted_identifiers: false,
    bare_words_are_values: false,
};

static SHELL: Syntax = Syntax {
    line_comments: &["#"],
    block_comments: &[],
    single_quote: SingleQuote::Verbatim,
    triple_quotes: false,
    backticks: true,
    raw_strings: false,
    quoted_identifiers: false,
    bare_words_are_values: true,
};

static SQL: Syntax = Syntax {
    line_comments: &["--"],
    block_comments: &[("/*", "*/")],
    single_quote: SingleQuote::Verbatim,
    triple_quotes: false,
    backticks: false,
    raw_strings: false,
    quoted_identifiers: true,
    bare_words_are_values: false,
};

/// Fence info strings, space-separated per row, and what they select (`None`: data or prose).
static FENCES: &[(&str, Option<Family>)] = &[
    ("py python python3 py3 ipython pyi", Some(Family::Python)),
    ("node deno bun", Some(Family::CLike)),
    ("rs rust", Some(Family::Rust)),
    (
        "sh bash zsh dash ksh shell fish console shell-session shellsession dockerfile makefile",
        Some(Family::Shell),
    ),
    (
        "sql postgres postgresql psql mysql sqlite plsql tsql pgsql",
        Some(Family::Sql),
    ),
    (
        "c h cpp c++ cc hpp cxx java js javascript jsx mjs cjs ts typescript tsx go golang \
         kotlin kt kts swift cs csharp c# php scala dart groovy gradle objc objective-c \
         proto protobuf zig v solidity sol vue svelte",
        Some(Family::CLike),
    ),
    (
        "text txt plain plaintext md markdown csv tsv json jsonl json5 yaml yml toml ini env \
         dotenv properties conf cfg log logs xml html htm output",
        None,
    ),
];

/// Marks that vote for a family when a line carries them.
static MARKS: &[(&str, Family)] = &[
    ("^def ", Family::Python),
    ("^elif ", Family::Python),
    ("^import ", Family::Python),
    ("^from ", Family::Python),
    ("self.", Family::Python),
    ("\"\"\"", Family::Python),
    ("^fn ", Family::Rust),
    ("^pub ", Family::Rust),
    ("^impl", Family::Rust),
    ("^let ", Family::Rust),
    ("^use ", Family::Rust),
    ("let mut ", Family::Rust),
    ("::", Family::Rust),
    ("&self", Family::Rust),
    ("#[", Family::Rust),
    ("^#!/", Family::Shell),
    ("^set -", Family::Shell),
    ("^fi", Family::Shell),
    ("^done", Family::Shell),
    ("; then", Family::Shell),
    ("$(", Family::Shell),
    ("${", Family::Shell),
    ("^echo ", Family::Shell),
    ("^SELECT ", Family::Sql),
    ("^INSERT INTO", Family::Sql),
    ("^CREATE TABLE", Family::Sql),
    ("^UPDATE ", Family::Sql),
    ("VALUES", Family::Sql),
    ("^function", Family::CLike),
    ("^const ", Family::CLike),
    ("^var ", Family::CLike),
    ("^public ", Family::CLike),
    ("^private ", Family::CLike),
    ("^func ", Family::CLike),
    ("^package ", Family::CLike),
    ("^#include", Family::CLike),
    ("this.", Family::CLike),
    (");", Family::CLike),
    ("=>", Family::CLike),
];

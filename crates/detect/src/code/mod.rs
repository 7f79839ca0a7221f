//! Code is not prose: one step after the finders and the tagger that reads the stretches of a
//! text that are code as code (docs/detection.md, "Code is not prose").
//!
//! Coding agents send source files, diffs and terminal output in nearly every request, and a
//! reader for German prose takes `elif` for a name, `value)` for a place and
//! `passwd = getpass(prompt)` for a secret. In code, values live where code carries them: string
//! literals, comments, numbers. Everything else — identifiers, keywords, operators, types — is
//! structure, and never a name, a place or a secret.
//!
//! The step has three parts, each a module:
//! - [`regions`] finds the code in a text: fenced blocks by their info string, and runs of lines
//!   that read as code (a line-number gutter or diff markers are stepped over). Prose, tables,
//!   CSV and key-value data are never code here: their readers stay as they are.
//! - [`lexer`] splits a region into literals (strings, comments, numbers) and structure
//!   (identifiers, keywords, punctuation) with the rules of its language family
//!   ([`languages`]), a table of rows, not code per language.
//! - [`fields`] proposes the values that code labels: a string literal after a personal field's
//!   name (`setLastName("Neumann")`, `DB_PASSWORD = "…"`), as a record's column names its cells.
//! - [`judge`] drops the candidates that code refutes: a candidate of a reading type (PERSON,
//!   LOCATION, SECRET, …) that touches an identifier or lies outside every literal, and, in code
//!   only, documentation addresses and example hosts. Values proven by their format (e-mail,
//!   check-digit types) stay wherever they are.
//!
//! One rule holds in prose too: a keyword written as code writes it (`elif`, `else`) is no
//! name, so "add a comment to the elif branch" keeps its words.
//!
//! The step runs before the policy adds its own candidates: a deny term or custom recognizer of
//! the policy is never dropped here.

mod fields;
mod judge;
mod languages;
mod lexer;
mod regions;

use crate::finding::Candidate;
use crate::Text;

/// Adds the values that code labels and drops the candidates that code refutes (module doc).
/// Texts without code cost one pass over their lines.
pub(crate) fn read_as_code(text: &Text<'_>, candidates: &mut Vec<Candidate>) {
    judge::drop_keyword_names(text.view(), candidates);
    let regions = regions::find(text.view());
    if regions.is_empty() {
        return;
    }
    let layout = regions
        .iter()
        .map(|region| lexer::split(text.view(), region))
        .collect::<Vec<_>>();
    for layout in &layout {
        fields::propose(text.view(), layout, candidates);
    }
    judge::drop_refuted(text.view(), &regions, &layout, candidates);
    for layout in &layout {
        fields::mentions(text.view(), layout, candidates);
    }
}

//! The replacing pass: every exact occurrence of any value of the request is replaced by its
//! token, issued in document order; the pieces of a value cut at a text part boundary too.

use super::identifier::identifier_words;
use super::url;
use super::values::Values;
use crate::detect::values::ValueMatcher;
use crate::detect::EntityType;
use crate::json;
use crate::proxy::embedded::Embedded;
use crate::proxy::runs::{rebuild, Cut, Piece};
use crate::proxy::walk::{walk_free, TextKind, TextVisitor};
use crate::tokens::TokenTable;

pub(super) struct Replacer<'a> {
    pub matcher: &'a ValueMatcher<'a>,
    pub values: &'a Values,
    /// Per value: its row in `table` once issued, so that later occurrences need no lookup.
    pub rows: Vec<Option<usize>>,
    pub table: &'a mut TokenTable,
    pub count: usize,
    /// The collecting pass's cuts, per text run in walk order, and the next run's number.
    pub cuts: &'a [Vec<Cut>],
    pub run: usize,
}

impl Replacer<'_> {
    /// The token of value `i` of `values`, issued on its first occurrence.
    fn token(&mut self, i: usize) -> &str {
        let row = match self.rows[i] {
            Some(row) => row,
            None => {
                let (t, v) = self.values.get(i);
                let row = self.table.row_for(t, v);
                self.rows[i] = Some(row);
                row
            }
        };
        &self.table.entries()[row].token
    }
}

impl Replacer<'_> {
    /// `s` with every value replaced by its token, or `None` when it holds none (most strings
    /// of a request: nothing is allocated for them).
    fn replace(&mut self, s: &str) -> Option<String> {
        self.splice(s, s, |i| i)
    }

    /// An address with every value replaced, as written or percent-encoded; a `data:` URL as
    /// it is.
    fn replace_url(&mut self, s: &str) -> Option<String> {
        if url::is_data(s) {
            return None;
        }
        match url::Decoded::of(s) {
            Some(d) => self.splice(s, &d.text, |i| d.at[i]),
            None => self.replace(s),
        }
    }

    /// `s` with the values found in `view` (a reading of `s`; `at` maps its offsets to those
    /// of `s`) replaced by their tokens.
    fn splice(&mut self, s: &str, view: &str, at: impl Fn(usize) -> usize) -> Option<String> {
        let mut out: Option<String> = None;
        let mut last = 0;
        for (value, start, end) in self.matcher.find_iter(view) {
            let (start, end) = (at(start), at(end));
            let out = out.get_or_insert_with(|| String::with_capacity(s.len() + 16));
            out.push_str(&s[last..start]);
            out.push_str(self.token(value));
            self.count += 1;
            last = end;
        }
        let mut out = out?;
        out.push_str(&s[last..]);
        Some(out)
    }
}

impl Replacer<'_> {
    /// A participant name that holds a detected value, or any word of a detected person name
    /// (compared case-insensitively, `Max_Mustermann` and `max-mustermann` alike), becomes that
    /// value's bare token as a whole (`NAME_1`): still `[A-Za-z0-9_-]`, with no surname left
    /// beside it. Replies restore `NAME_1` to the name as detected.
    fn replace_identifier(&mut self, s: &str) -> Option<String> {
        let parts: Vec<String> = identifier_words(s)
            .iter()
            .map(|w| w.to_lowercase())
            .collect();
        // The value that accounts for most of the field: `Max Mustermann` rather than `Max`
        // for `Max_Mustermann`.
        let mut best: Option<(usize, usize)> = None;
        let occurring: Vec<usize> = self.matcher.find_iter(s).map(|(v, _, _)| v).collect();
        for (i, (t, v)) in self.values.iter().enumerate() {
            let words = identifier_words(v);
            let mut score = if occurring.contains(&i) {
                words.len().max(1)
            } else {
                0
            };
            if t == EntityType::Person {
                score += words
                    .iter()
                    .filter(|w| w.chars().count() >= 2 && parts.contains(&w.to_lowercase()))
                    .count();
            }
            if score > 0 && best.is_none_or(|(_, b)| score > b) {
                best = Some((i, score));
            }
        }
        let (hit, _) = best?;
        self.count += 1;
        let token = self.token(hit);
        Some(
            token
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
        )
    }
}

impl TextVisitor for Replacer<'_> {
    fn text(&mut self, s: &mut String, kind: TextKind) {
        match kind {
            TextKind::JsonSource => {
                if let Ok(mut inner) = json::parse(s) {
                    let before = self.count;
                    walk_free(&mut inner, self);
                    if self.count != before {
                        // Only the replaced literals change (the history's bytes are the
                        // provider's cache key); the source is parsed again for that rather
                        // than every argument string's tree being copied up front.
                        let spliced = json::parse(s)
                            .ok()
                            .and_then(|old| json::splice::splice_changed(s, &old, &inner));
                        *s = spliced.unwrap_or_else(|| inner.to_json_string());
                    }
                } else if let Some(new) = self.replace(s) {
                    *s = new;
                }
            }
            TextKind::Base64 | TextKind::DataUrl => {
                // The collecting pass refused what does not decode; this pass never sees it.
                if let Ok(e) = Embedded::decode(s, kind) {
                    if let Some(new) = self.replace(&e.text) {
                        *s = e.encode(&new);
                    }
                }
            }
            TextKind::Identifier => {
                if let Some(new) = self.replace_identifier(s) {
                    *s = new;
                }
            }
            TextKind::Url => {
                if let Some(new) = self.replace_url(s) {
                    *s = new;
                }
            }
            TextKind::Plain | TextKind::Instruction | TextKind::Number | TextKind::MemberName => {
                if let Some(new) = self.replace(s) {
                    *s = new;
                }
            }
        }
    }

    fn text_run(&mut self, parts: &mut [String]) {
        let cuts = self.cuts.get(self.run).map_or(&[][..], Vec::as_slice);
        self.run += 1;
        for (i, part) in parts.iter_mut().enumerate() {
            let mine: Vec<&Cut> = cuts.iter().filter(|c| c.part == i).collect();
            if mine.is_empty() {
                if let Some(new) = self.replace(part) {
                    *part = new;
                }
                continue;
            }
            *part = rebuild(part, &mine, |piece| match piece {
                Piece::Between(text) => self.replace(text),
                Piece::First(value) => {
                    self.count += 1;
                    Some(self.token(value).to_owned())
                }
            });
        }
    }
}

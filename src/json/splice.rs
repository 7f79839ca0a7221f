//! Rewriting JSON source in place: a document whose tree was changed is written back with
//! only its changed literals replaced, every other byte (whitespace, key order, escapes) kept.
//! Tool-call arguments are part of the conversation history the provider caches by prefix;
//! re-serialising them would change their bytes and miss that cache.

use std::ops::Range;

use super::{write_str, Node};

/// `src` (the source `before` was parsed from) with every string or number literal that
/// differs in `after` replaced by its new JSON text; `None` when the trees do not have the
/// same shape of literals (the caller then writes `after` whole).
pub fn splice_changed(src: &str, before: &Node, after: &Node) -> Option<String> {
    let (mut old, mut new) = (Vec::new(), Vec::new());
    leaves(before, &mut old);
    leaves(after, &mut new);
    let spans = literal_spans(src)?;
    if old.len() != new.len() || spans.len() != old.len() {
        return None;
    }
    let mut out = String::with_capacity(src.len() + 16);
    let mut last = 0;
    for ((a, b), span) in old.iter().zip(&new).zip(spans) {
        if a == b {
            continue;
        }
        out.push_str(src.get(last..span.start)?);
        b.write_to(&mut out);
        last = span.end;
    }
    out.push_str(src.get(last..)?);
    Some(out)
}

/// A string or number literal of a tree: a member name, a string, a number.
#[derive(PartialEq)]
enum Leaf<'a> {
    Str(&'a str),
    Num(&'a str),
}

impl Leaf<'_> {
    fn write_to(&self, out: &mut String) {
        match self {
            Leaf::Str(s) => write_str(s, out),
            Leaf::Num(n) => out.push_str(n),
        }
    }
}

/// The literals of `node` in document order (member names before their values).
fn leaves<'a>(node: &'a Node, out: &mut Vec<Leaf<'a>>) {
    match node {
        Node::Null | Node::Bool(_) => {}
        Node::Num(n) => out.push(Leaf::Num(n)),
        Node::Str(s) => out.push(Leaf::Str(s)),
        Node::Arr(items) => items.iter().for_each(|i| leaves(i, out)),
        Node::Obj(members) => {
            for (k, v) in members {
                out.push(Leaf::Str(k));
                leaves(v, out);
            }
        }
    }
}

/// The byte ranges of the string literals (quotes included) and number literals of `src`, a
/// document that parsed, in document order; `None` if it holds anything else.
fn literal_spans(src: &str) -> Option<Vec<Range<usize>>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                let start = i;
                i += 1;
                loop {
                    match *b.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
                out.push(start..i);
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while b
                    .get(i)
                    .is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    i += 1;
                }
                out.push(start..i);
            }
            b't' | b'n' => i += 4,
            b'f' => i += 5,
            b'{' | b'}' | b'[' | b']' | b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn only_changed_literals_change() {
        let src = "{ \"b\" :  1 ,\n \"a\":\"Anna \\u00e9\", \"l\": [true, null, -2.50e1, \"x\"] }";
        let before = parse(src).unwrap_or(Node::Null);
        let mut after = before.clone();
        if let Node::Obj(m) = &mut after {
            m[1].1 = Node::Str("[[NAME_1]] é".into());
        }
        let out = splice_changed(src, &before, &after);
        let want = "{ \"b\" :  1 ,\n \"a\":\"[[NAME_1]] é\", \"l\": [true, null, -2.50e1, \"x\"] }";
        assert_eq!(out.as_deref(), Some(want));
        assert_eq!(splice_changed(src, &before, &before).as_deref(), Some(src));
    }

    #[test]
    fn a_number_that_became_a_string_is_written_as_one() {
        let src = "[ 4930123456 ,1]";
        let before = parse(src).unwrap_or(Node::Null);
        let after = Node::Arr(vec![Node::Str("[[TEL_1]]".into()), Node::Num("1".into())]);
        let out = splice_changed(src, &before, &after);
        assert_eq!(out.as_deref(), Some("[ \"[[TEL_1]]\" ,1]"));
    }
}

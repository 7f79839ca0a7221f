//! Text runs: the adjacent text parts of one message (`[{"type": "text", "text": "Meine IBAN
//! lautet DE89 3704 0044"}, {"type": "text", "text": "0532 0130 00. Danke!"}]`) are read as one
//! text, with each part boundary as a separator, so that a value split between two parts is
//! found. A value within one part is replaced as anywhere else; a value over a boundary is cut
//! into its pieces, one per part: the first piece becomes the value's token, the others vanish.

use std::ops::Range;

use crate::json::Node;

/// The `type`s of a content part whose `text` member is message text.
const TEXT_PART_TYPES: &[&str] = &["text", "input_text", "output_text"];

/// The `text` of `item` when it is a text part.
fn part_text(item: &mut Node) -> Option<&mut String> {
    let Node::Obj(members) = item else {
        return None;
    };
    let is_text = members
        .iter()
        .any(|(k, v)| k == "type" && v.as_str().is_some_and(|t| TEXT_PART_TYPES.contains(&t)));
    if !is_text {
        return None;
    }
    members.iter_mut().find_map(|(k, v)| match v {
        Node::Str(s) if k == "text" => Some(s),
        _ => None,
    })
}

/// The runs of two or more adjacent text parts in `items`.
pub(super) fn text_runs(items: &mut [Node]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = None;
    for i in 0..=items.len() {
        let text = i < items.len() && part_text(&mut items[i]).is_some();
        match (text, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s >= 2 {
                    runs.push(s..i);
                }
                start = None;
            }
            _ => {}
        }
    }
    runs
}

/// Takes the texts out of a run's parts (leaving them empty while the rest of each part is
/// walked).
pub(super) fn take_texts(items: &mut [Node]) -> Vec<String> {
    items
        .iter_mut()
        .map(|it| part_text(it).map(std::mem::take).unwrap_or_default())
        .collect()
}

/// Puts the texts of [`take_texts`] back.
pub(super) fn put_texts(items: &mut [Node], texts: Vec<String>) {
    for (it, t) in items.iter_mut().zip(texts) {
        if let Some(s) = part_text(it) {
            *s = t;
        }
    }
}

/// A run's parts joined into one text, with where each part starts in it.
pub(super) struct Joined {
    pub text: String,
    starts: Vec<usize>,
    lens: Vec<usize>,
}

impl Joined {
    /// Joins `parts`, with a space between two parts unless one side of the boundary already is
    /// whitespace.
    pub fn new(parts: &[String]) -> Joined {
        let mut text = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
        let mut starts = Vec::with_capacity(parts.len());
        for p in parts {
            let spaced = text.chars().next_back().is_some_and(|c| !c.is_whitespace())
                && p.chars().next().is_some_and(|c| !c.is_whitespace());
            if spaced {
                text.push(' ');
            }
            starts.push(text.len());
            text.push_str(p);
        }
        let lens = parts.iter().map(String::len).collect();
        Joined { text, starts, lens }
    }

    /// The pieces of the joined range `start..end` in the parts it covers, as `(part, range in
    /// that part)`; a single piece when it lies within one part.
    pub fn pieces(&self, start: usize, end: usize) -> Vec<(usize, Range<usize>)> {
        let mut out = Vec::new();
        for (i, (&s, &len)) in self.starts.iter().zip(&self.lens).enumerate() {
            let (a, b) = (start.max(s), end.min(s + len));
            if a < b {
                out.push((i, a - s..b - s));
            }
        }
        out
    }
}

/// A piece of a value cut at a part boundary: where it lies, and whether it is the value's
/// first piece (which carries the token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cut {
    pub part: usize,
    pub range: Range<usize>,
    pub value: usize,
    pub first: bool,
}

/// What [`rebuild`] asks for: the replacement of the text between two cuts (`None`: as it
/// is), or the token of a value whose first piece is cut here.
pub(super) enum Piece<'a> {
    Between(&'a str),
    First(usize),
}

/// `part` with its cuts (sorted, disjoint) replaced: the first piece of a value by its token,
/// other pieces by nothing, and the text between cuts as `f` says.
pub(super) fn rebuild(
    part: &str,
    cuts: &[&Cut],
    mut f: impl FnMut(Piece<'_>) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(part.len() + 16);
    let mut last = 0;
    for cut in cuts {
        let between = &part[last..cut.range.start];
        out.push_str(f(Piece::Between(between)).as_deref().unwrap_or(between));
        if cut.first {
            out.push_str(&f(Piece::First(cut.value)).unwrap_or_default());
        }
        last = cut.range.end;
    }
    let rest = &part[last..];
    out.push_str(f(Piece::Between(rest)).as_deref().unwrap_or(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_with_a_space_only_where_none_is() {
        let parts = ["a DE89".to_owned(), "3704 b".to_owned(), " c".to_owned()];
        let j = Joined::new(&parts);
        assert_eq!(j.text, "a DE89 3704 b c");
        assert_eq!(j.pieces(2, 11), vec![(0, 2..6), (1, 0..4)]);
        assert_eq!(j.pieces(0, 1), vec![(0, 0..1)]);
        assert_eq!(j.pieces(12, 15), vec![(1, 5..6), (2, 0..2)]);
    }

    #[test]
    fn finds_runs_of_adjacent_text_parts() {
        let text = |t: &str| {
            Node::Obj(vec![
                ("type".into(), Node::Str(t.into())),
                ("text".into(), Node::Str("x".into())),
            ])
        };
        let image = Node::Obj(vec![("type".into(), Node::Str("image_url".into()))]);
        let mut items = vec![
            text("text"),
            text("text"),
            image,
            text("input_text"),
            text("output_text"),
            text("text"),
        ];
        assert_eq!(text_runs(&mut items), vec![0..2, 3..6]);
        let mut single = vec![text("text")];
        assert!(text_runs(&mut single).is_empty());
    }

    #[test]
    fn rebuild_puts_the_token_at_the_first_piece_only() {
        let first = Cut {
            part: 0,
            range: 7..11,
            value: 0,
            first: true,
        };
        let f = |p: Piece<'_>| match p {
            Piece::Between(s) => Some(s.to_uppercase()),
            Piece::First(v) => Some(format!("<{v}>")),
        };
        assert_eq!(rebuild("iban = DE89", &[&first], f), "IBAN = <0>");
        let later = Cut {
            part: 1,
            range: 0..4,
            value: 0,
            first: false,
        };
        assert_eq!(rebuild("3704. ok", &[&later], |_| None), ". ok");
    }
}

//! Text runs: the adjacent text parts of one message (`[{"type": "text", "text": "Meine IBAN
//! lautet DE89 3704 0044"}, {"type": "text", "text": "0532 0130 00. Danke!"}]`) are read as one
//! text, with each part boundary as a separator, so that a value split between two parts is
//! found; a boundary inside a word (`Mail max.mustermann` + `@example.de`, `860957` + `42719`)
//! is also read without the separator, around it. A value within one part is replaced as anywhere else; a value over a boundary is cut
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
    /// The parts a separator was put before.
    spaced: Vec<usize>,
}

/// How much text on each side of a seam is read again joined without a separator.
const SEAM_CONTEXT: usize = 96;

impl Joined {
    /// Joins `parts`, with a space between two parts unless one side of the boundary already is
    /// whitespace.
    pub fn new(parts: &[String]) -> Joined {
        Joined::join(parts, true)
    }

    /// Joins `parts` as they are, without separators: a value cut mid-word
    /// (`Mail max.mustermann` + `@example.de`) is whole in it.
    pub fn tight(parts: &[String]) -> Joined {
        Joined::join(parts, false)
    }

    fn join(parts: &[String], spacing: bool) -> Joined {
        let mut text = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
        let mut starts = Vec::with_capacity(parts.len());
        let mut spaced = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let seam = text.chars().next_back().is_some_and(|c| !c.is_whitespace())
                && p.chars().next().is_some_and(|c| !c.is_whitespace());
            if seam {
                spaced.push(i);
                if spacing {
                    text.push(' ');
                }
            }
            starts.push(text.len());
            text.push_str(p);
        }
        let lens = parts.iter().map(String::len).collect();
        Joined {
            text,
            starts,
            lens,
            spaced,
        }
    }

    /// The seams (boundaries with no whitespace on either side) as the byte range of the
    /// text around each in this joining: where the spaced and the tight joining differ.
    pub fn seams(&self) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
        self.spaced.iter().map(|&part| {
            let seam = self.starts[part];
            (seam, self.around(seam))
        })
    }

    /// Up to [`SEAM_CONTEXT`] bytes on each side of `at`, cut at whitespace where there is
    /// some, so that no word is read in part.
    fn around(&self, at: usize) -> Range<usize> {
        let t = &self.text;
        let mut from = at.saturating_sub(SEAM_CONTEXT);
        while !t.is_char_boundary(from) {
            from += 1;
        }
        let mut to = (at + SEAM_CONTEXT).min(t.len());
        while !t.is_char_boundary(to) {
            to -= 1;
        }
        if from > 0 {
            if let Some(w) = t[from..at].find(char::is_whitespace) {
                from += w;
            }
        }
        if to < t.len() {
            if let Some(w) = t[at..to].rfind(char::is_whitespace) {
                to = at + w;
            }
        }
        from..to
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
        let seams: Vec<usize> = j.seams().map(|(at, _)| at).collect();
        assert_eq!(seams, [7], "only where a space was put");
    }

    #[test]
    fn a_tight_joining_reads_around_each_seam() {
        let parts = [
            "Mail max.mustermann".to_owned(),
            "@example.de bitte".to_owned(),
        ];
        let t = Joined::tight(&parts);
        assert_eq!(t.text, "Mail max.mustermann@example.de bitte");
        let (at, window) = t.seams().next().unwrap();
        assert_eq!(at, 19);
        assert_eq!(
            &t.text[window],
            t.text.as_str(),
            "short texts are read whole"
        );
        let long = [
            "x ".repeat(100) + "860957",
            "42719 ".to_owned() + &"y ".repeat(100),
        ];
        let t = Joined::tight(&long);
        let (at, window) = t.seams().next().unwrap();
        let around = &t.text[window.clone()];
        assert!(around.contains("86095742719"), "{around}");
        assert!(window.start > 0 && window.end < t.text.len());
        assert!(around.starts_with(' ') && around.ends_with('y'), "{around}");
        assert!(window.contains(&at));
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

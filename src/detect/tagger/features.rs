//! Feature extraction, shared by training and inference (so the two can never disagree): every
//! word of a [`Text`] gets a list of hashed feature indices built from the word itself (form,
//! lowercase, affixes, shape, lexicon classes, word cluster, common noun), its position (sentence
//! start, the punctuation around it) and its neighbours (±2 words).
//!
//! Only *open* words are tagged: capitalised or mixed-case words that are not stop words and, away
//! from a sentence start, not common nouns (unless a gazetteer lists them as surname or town). Every other
//! word is `O` by construction, in training as in use; that keeps the tagger off most of the text
//! (German capitalises every noun) and keeps `Juni`, `Kosten` or `Präsident` out of names.

use super::tables::Tables;
use crate::detect::lexicon::class;
use crate::detect::text::{Lexed, Text};
use crate::detect::words::{Shape, Word};

/// Features of the open words of one text, flat.
#[derive(Debug, Default, Clone)]
pub struct Features {
    /// Per word: `Some(range into idx)` for open words, `None` for words that are `O`.
    pub spans: Vec<Option<(u32, u32)>>,
    /// Feature indices (already reduced to the model's bucket count).
    pub idx: Vec<u32>,
}

impl Features {
    /// Feature indices of word `i` (`None` when the word is not open).
    pub fn of(&self, i: usize) -> Option<&[u32]> {
        let (a, b) = (*self.spans.get(i)?)?;
        self.idx.get(a as usize..b as usize)
    }
}

/// Gazetteer classes that make a stop word or noun worth a look (`Will`, `Koch`, `Essen`).
const NAMEISH: u32 = class::FIRST_NAME | class::LAST_NAME | class::TOWN;

/// Gazetteer classes that keep a common noun open: surnames and towns (`Koch`, `Essen`). A noun
/// that is only also a given name (`Juni`, `Tage`, `Rose`) is text unless it opens a sentence.
pub(crate) const NOUN_NAMEISH: u32 = class::LAST_NAME | class::TOWN;

/// Hasher of one feature: a template id plus bytes.
fn fh(tpl: u8, bytes: &[u8]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = foldhash::fast::FixedState::with_seed(0x6665_6174_7572_6573).build_hasher();
    h.write_u8(tpl);
    h.write(bytes);
    h.finish()
}

fn fnum(tpl: u8, v: u32) -> u64 {
    fh(tpl, &v.to_le_bytes())
}

/// Compressed letter shape: `Xx`, `X`, `Xx-Xx`, `xX` (runs collapsed, at most 6 symbols).
fn shape_sig(word: &str) -> ([u8; 7], usize) {
    let mut out = [0u8; 7];
    let mut n = 0;
    for c in word.chars() {
        let s = if c.is_uppercase() {
            b'X'
        } else if c.is_lowercase() {
            b'x'
        } else if c == '-' {
            b'-'
        } else {
            b'\''
        };
        if n > 0 && out[n - 1] == s {
            continue;
        }
        if n == 6 {
            break;
        }
        out[n] = s;
        n += 1;
    }
    out[6] = u8::from(!word.is_ascii());
    (out, n)
}

/// The punctuation between two words without spaces, digits collapsed to `0`, newlines as `n`,
/// at most 4 symbols (`_` when there is none).
fn gap_sig(gap: &str) -> ([u8; 4], usize) {
    let mut out = [0u8; 4];
    let mut n = 0;
    for c in gap.chars() {
        let s = match c {
            ' ' | '\t' | '\r' => continue,
            '\n' => b'n',
            '0'..='9' => b'0',
            c if c.is_ascii() => c as u8,
            _ => b'~',
        };
        if n > 0 && out[n - 1] == s {
            continue;
        }
        if n == 4 {
            break;
        }
        out[n] = s;
        n += 1;
    }
    if n == 0 {
        out[0] = b'_';
        n = 1;
    }
    (out, n)
}

fn len_bucket(chars: usize) -> u32 {
    match chars {
        0..=3 => chars as u32,
        4..=5 => 4,
        6..=8 => 5,
        _ => 6,
    }
}

/// Last `n` characters of `s` (all of it when shorter).
fn suffix(s: &str, n: usize) -> &str {
    let mut it = s.char_indices().rev();
    match it.nth(n - 1) {
        Some((i, _)) => &s[i..],
        None => s,
    }
}

fn prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// What every feature template needs to know about one word, computed once per word.
struct WordView<'a> {
    text: &'a str,
    low: &'a str,
    shape: Shape,
    bits: u32,
    cased: u32,
    cluster: u16,
    noun: bool,
    sentence_start: bool,
    open: bool,
}

fn sentence_start(s: &str, words: &[Word], i: usize) -> bool {
    i == 0
        || s.get(words[i - 1].end..words[i].start)
            .is_some_and(|g| g.contains(['.', '!', '?', '\n']))
}

/// Whether word `i` is open, and whether it is a common noun (as written).
fn openness(
    s: &str,
    words: &[Word],
    lexed: &Lexed,
    tables: &Tables,
    i: usize,
) -> (bool, bool, bool) {
    let w = words[i];
    let start = sentence_start(s, words, i);
    if !matches!(w.shape, Shape::Capitalised | Shape::Other) {
        return (false, false, start);
    }
    let facts = lexed.facts()[i];
    let nameish = facts.cased & NAMEISH != 0;
    if facts.bits & class::STOP != 0 && !nameish {
        return (false, false, start);
    }
    let noun = tables.is_noun(w.text(s));
    (
        !(noun && facts.cased & NOUN_NAMEISH == 0 && !start),
        noun,
        start,
    )
}

fn view<'a>(
    s: &'a str,
    words: &[Word],
    lexed: &'a Lexed,
    tables: &Tables,
    i: usize,
    (open, noun, sentence_start): (bool, bool, bool),
) -> WordView<'a> {
    let w = words[i];
    let text = w.text(s);
    let low = lexed.low(i);
    let facts = lexed.facts()[i];
    let mut cluster = 0;
    if w.shape != Shape::Lower {
        cluster = tables.cluster(text);
    }
    if cluster == 0 {
        cluster = tables.cluster(low);
    }
    WordView {
        text,
        low,
        shape: w.shape,
        bits: facts.bits,
        cased: facts.cased,
        cluster,
        noun,
        sentence_start,
        open,
    }
}

/// Bit length of a cluster path (its leading 1 included).
fn cluster_prefix(c: u16, bits: u32) -> Option<u32> {
    let len = 16 - c.leading_zeros();
    (len > bits).then(|| u32::from(c) >> (len - bits))
}

/// Bucket of the bias feature (every open word has it).
pub fn bias_bucket(mask: u32) -> u32 {
    (fnum(0, 0) as u32) & mask
}

/// Extracts the features of `text`'s words, each index reduced by `mask` (bucket count - 1).
pub fn extract(text: &Text<'_>, mask: u32, out: &mut Features) {
    let s = text.view();
    let words = text.words();
    out.spans.clear();
    out.idx.clear();
    out.spans.reserve(words.len());
    let push = |v: &mut Vec<u32>, h: u64| v.push((h as u32) & mask);
    if words.is_empty() {
        return;
    }
    // Open words are rare enough that only they and their neighbours get a full view.
    let lexed = text.lexed();
    let tables = Tables::get();
    let n = words.len();
    let openness: Vec<(bool, bool, bool)> = (0..n)
        .map(|i| openness(s, words, lexed, tables, i))
        .collect();
    // Full views only for open words and their neighbours (±2): the rest is never read.
    let mut views: Vec<Option<WordView<'_>>> = Vec::with_capacity(n);
    for i in 0..n {
        let near = (i.saturating_sub(2)..(i + 3).min(n)).any(|j| openness[j].0);
        views.push(near.then(|| view(s, words, lexed, tables, i, openness[i])));
    }
    let at = |j: isize| -> Option<&WordView<'_>> {
        usize::try_from(j)
            .ok()
            .and_then(|j| views.get(j))
            .and_then(Option::as_ref)
    };
    for i in 0..n {
        let Some(v) = views[i].as_ref().filter(|v| v.open) else {
            out.spans.push(None);
            continue;
        };
        let from = out.idx.len() as u32;
        let f = &mut out.idx;
        push(f, fnum(0, 0));
        push(f, fh(1, v.text.as_bytes()));
        push(f, fh(2, v.low.as_bytes()));
        for (t, n) in [(3u8, 2usize), (4, 3), (5, 4)] {
            push(f, fh(t, suffix(v.low, n).as_bytes()));
        }
        push(f, fh(6, prefix(v.low, 3).as_bytes()));
        let (sig, n) = shape_sig(v.text);
        push(f, fh(7, &sig[..n]));
        push(f, fh(7, &sig));
        push(f, fnum(8, len_bucket(v.low.chars().count())));
        for b in 0..16 {
            if v.bits & (1 << b) != 0 {
                push(f, fnum(9, b));
            }
            if v.cased & (1 << b) != 0 {
                push(f, fnum(10, b));
            }
        }
        push(f, fnum(11, u32::from(v.cluster)));
        for (t, k) in [(12u8, 4u32), (13, 6), (14, 10)] {
            if let Some(p) = cluster_prefix(v.cluster, k) {
                push(f, fnum(t, p));
            }
        }
        push(f, fnum(15, u32::from(v.noun)));
        push(f, fnum(16, u32::from(v.sentence_start)));
        let gap_l = if i == 0 {
            ""
        } else {
            s.get(words[i - 1].end..words[i].start).unwrap_or("")
        };
        let gap_r = match words.get(i + 1) {
            Some(n) => s.get(words[i].end..n.start).unwrap_or(""),
            None => s.get(words[i].end..).unwrap_or(""),
        };
        let (gl, nl) = gap_sig(gap_l);
        let (gr, nr) = gap_sig(gap_r);
        push(f, fh(17, &gl[..nl]));
        push(f, fh(18, &gr[..nr]));
        push(
            f,
            fnum(19, u32::from(v.sentence_start) << 1 | u32::from(v.noun)),
        );
        if let Some(p) = cluster_prefix(v.cluster, 6) {
            push(f, fnum(20, u32::from(v.sentence_start) << 16 | p));
        }
        for (t, o) in [(21u8, -2isize), (22, -1), (23, 1), (24, 2)] {
            match at(i as isize + o) {
                Some(n) => push(f, fh(t, n.low.as_bytes())),
                None => push(f, fh(t, b"\x00")),
            }
        }
        for (t, o) in [(30u8, -1isize), (31, 1)] {
            let Some(n) = at(i as isize + o) else {
                push(f, fnum(t, 99));
                continue;
            };
            let (sig, k) = shape_sig(n.text);
            push(f, fh(t, &sig[..k]));
            if let Some(p) = cluster_prefix(n.cluster, 6) {
                push(f, fnum(t + 10, p));
            }
            for b in 0..16 {
                if n.bits & (1 << b) != 0 {
                    push(f, fnum(t + 20, b));
                }
                if n.cased & (1 << b) != 0 {
                    push(f, fnum(t + 20, 16 + b));
                }
            }
            push(f, fnum(t + 30, u32::from(n.noun) << 1 | u32::from(n.open)));
        }
        let prev_low = at(i as isize - 1).map_or("\x00", |p| p.low);
        let next_shape = at(i as isize + 1).map_or(Shape::Uncased, |n| n.shape);
        push(
            f,
            fh(70, format_args_bytes(prev_low, v.shape as u8).as_slice()),
        );
        push(f, fnum(71, (v.shape as u32) << 8 | next_shape as u32));
        push(f, fnum(72, v.cased & NAMEISH | u32::from(v.noun) << 8));
        out.spans.push(Some((from, out.idx.len() as u32)));
    }
}

/// `prev_low` followed by one shape byte, for a conjunction feature.
fn format_args_bytes(prev_low: &str, shape: u8) -> Vec<u8> {
    let mut v = Vec::with_capacity(prev_low.len() + 1);
    v.extend_from_slice(prev_low.as_bytes());
    v.push(shape);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_words(s: &str) -> Vec<String> {
        let t = Text::new(s);
        let mut f = Features::default();
        extract(&t, (1 << 18) - 1, &mut f);
        t.words()
            .iter()
            .enumerate()
            .filter(|(i, _)| f.of(*i).is_some())
            .map(|(_, w)| w.text(s).to_owned())
            .collect()
    }

    #[test]
    fn only_capitalised_non_nouns_are_open() {
        assert_eq!(
            open_words("Das Drehbuch war schlecht, Curtiz war schlecht."),
            vec!["Curtiz"]
        );
        // A noun opening a sentence is open: the model decides.
        assert_eq!(open_words("Kosten sind gestiegen."), vec!["Kosten"]);
        // A noun that the gazetteers also list as a surname stays open.
        assert!(open_words("Heute hat Koch angerufen.").contains(&"Koch".to_owned()));
        // `Juni` is also a given name, but only surnames and towns keep a noun open.
        assert!(open_words("bis zum Verbot im Juni 1941").is_empty());
    }

    #[test]
    fn features_are_deterministic_and_masked() {
        let s = "Gegen Ribéry wurde ermittelt.";
        let t = Text::new(s);
        let (mut a, mut b) = (Features::default(), Features::default());
        extract(&t, 1023, &mut a);
        extract(&Text::new(s), 1023, &mut b);
        assert_eq!(a.idx, b.idx);
        assert!(a.idx.iter().all(|&x| x < 1024));
        let ribery = a.of(1).expect("Ribéry is open");
        assert!(ribery.len() > 25);
    }

    #[test]
    fn signatures() {
        assert_eq!(&shape_sig("Hans-Peter").0[..5], b"Xx-Xx");
        assert_eq!(shape_sig("Małgorzata").0[6], 1);
        assert_eq!(&gap_sig(", ").0[..1], b",");
        assert_eq!(&gap_sig(" 1941 ").0[..1], b"0");
        assert_eq!(&gap_sig(" ").0[..1], b"_");
        assert_eq!(suffix("müller", 3), "ler");
        assert_eq!(suffix("ab", 3), "ab");
        assert_eq!(prefix("ärger", 2), "är");
        assert_eq!(cluster_prefix(0b101000, 4), Some(0b1010));
        assert_eq!(cluster_prefix(0b101, 4), None);
    }
}

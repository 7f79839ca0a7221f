//! Feature extraction, shared by training and inference (so the two can never disagree): every
//! word of a [`Text`] gets a list of hashed feature indices built from the word itself (form,
//! lowercase, affixes, shape, lexicon classes, word cluster, common noun), its position (sentence
//! start, the punctuation around it) and its neighbours (±2 words).
//!
//! Only *open* words are tagged: capitalised or mixed-case words that are not stop words and, away
//! from a sentence start, not common nouns (unless a gazetteer lists them as surname or town). Every other
//! word is `O` by construction, in training as in use; that keeps the tagger off most of the text
//! (German capitalises every noun) and keeps `Juni`, `Kosten` or `Präsident` out of names.

use super::tables::{word_hash, Tables};
use crate::lexicon::{class, Lexicon};
use crate::text::{Lexed, Text};
use crate::words::{Shape, Word};

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

/// A feature key from a template id and a value that is already a number or a hash: one
/// folded multiply instead of a hasher pass (the features of a word's neighbours reuse the
/// neighbour's hashes this way).
fn mix(tpl: u8, x: u64) -> u64 {
    let a = x ^ (u64::from(tpl) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let m = u128::from(a) * 0xd6e8_feb8_6659_fd93u128;
    let b = (m as u64) ^ ((m >> 64) as u64);
    let m = u128::from(b) * 0xa076_1d64_78bd_642fu128;
    (m as u64) ^ ((m >> 64) as u64)
}

fn fnum(tpl: u8, v: u32) -> u64 {
    mix(tpl, u64::from(v))
}

/// Up to 8 signature bytes as one number (the length in the top byte when shorter).
fn packed(sig: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = sig.len().min(7);
    b[..n].copy_from_slice(&sig[..n]);
    b[7] = n as u8;
    u64::from_le_bytes(b)
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
    // Bytes, not chars: a non-ASCII code point is `~` once, from its lead byte.
    for &b in gap.as_bytes() {
        let s = match b {
            b' ' | b'\t' | b'\r' => continue,
            b'\n' => b'n',
            b'0'..=b'9' => b'0',
            b if b.is_ascii() => b,
            0x80..=0xBF => continue,
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
pub(crate) struct WordView<'a> {
    text: &'a str,
    low: &'a str,
    /// [`word_hash`] of the word as written: every per-word input of the templates (lowercase
    /// form, shape, lexicon classes, cluster, common noun) is a function of it, so it keys the
    /// per-form sums of [`super::infer`].
    pub(crate) key: u64,
    /// [`word_hash`] of the lowercase form (the neighbours' templates read it).
    low_key: u64,
    shape: Shape,
    bits: u32,
    cased: u32,
    cluster: u16,
    noun: bool,
    /// Cluster and gazetteer classes (name/town) of an open word without a final `s`
    /// (`Wulffs` → `Wulff`): German genitives of names are rarer than the names.
    stem_cluster: u16,
    stem_cased: u32,
    pub(crate) sentence_start: bool,
    pub(crate) open: bool,
}

fn sentence_start(s: &str, words: &[Word], i: usize) -> bool {
    // Bytes, not chars: the marks are ASCII, and no byte of another code point equals one.
    i == 0
        || s.as_bytes()
            .get(words[i - 1].end..words[i].start)
            .is_some_and(|g| g.iter().any(|c| matches!(c, b'.' | b'!' | b'?' | b'\n')))
}

/// What [`openness`] learnt about one word.
#[derive(Clone, Copy, Default)]
struct Openness {
    open: bool,
    /// A common noun as written.
    noun: bool,
    sentence_start: bool,
    /// [`word_hash`] of the word when the noun table was asked (saves the view a second hash).
    key: Option<u64>,
}

/// Whether word `i` is open, and whether it is a common noun (as written).
fn openness(s: &str, words: &[Word], lexed: &Lexed, tables: &Tables, i: usize) -> Openness {
    let w = words[i];
    // Only an open word's templates read its sentence start.
    if !matches!(w.shape, Shape::Capitalised | Shape::Other) {
        return Openness::default();
    }
    let sentence_start = sentence_start(s, words, i);
    let facts = lexed.facts()[i];
    let nameish = facts.cased & NAMEISH != 0;
    if facts.bits & class::STOP != 0 && !nameish {
        return Openness {
            sentence_start,
            ..Openness::default()
        };
    }
    let key = word_hash(w.text(s));
    let noun = tables.is_noun_hash(key);
    Openness {
        open: !(noun && facts.cased & NOUN_NAMEISH == 0 && !sentence_start),
        noun,
        sentence_start,
        key: Some(key),
    }
}

/// Why word `i` of `text` is not open (`None` when it is): its shape (`lower`, `upper`,
/// `uncased`), `stop` (a
/// stop word no gazetteer lists as a name) or `noun` (a common noun away from a sentence start).
/// For error analysis (`train_tagger -- cv --misses`), not used in tagging.
#[cfg(feature = "training")]
pub fn closed_reason(text: &Text<'_>, i: usize) -> Option<&'static str> {
    let (s, words, lexed) = (text.view(), text.words(), text.lexed());
    let o = openness(s, words, lexed, Tables::get(), i);
    if o.open {
        return None;
    }
    let w = words.get(i)?;
    Some(match w.shape {
        Shape::Lower => "lower",
        Shape::Upper => "upper",
        Shape::Uncased => "uncased",
        _ if o.key.is_none() => "stop",
        _ => "noun",
    })
}

fn view<'a>(
    s: &'a str,
    words: &[Word],
    lexed: &'a Lexed,
    tables: &Tables,
    i: usize,
    o: Openness,
) -> WordView<'a> {
    let w = words[i];
    let text = w.text(s);
    let low = lexed.low(i);
    let facts = lexed.facts()[i];
    // The lexicon hashed the lowercase form already; a word written in lowercase is its own key.
    let low_key = facts.low_hash;
    let key = o.key.unwrap_or_else(|| {
        if low == text {
            low_key
        } else {
            word_hash(text)
        }
    });
    let mut cluster = 0;
    if w.shape != Shape::Lower {
        cluster = tables.cluster_of_hash(key);
    }
    if cluster == 0 {
        cluster = tables.cluster_of_hash(low_key);
    }
    let (mut stem_cluster, mut stem_cased) = (0, 0);
    if o.open && text.len() >= 4 {
        if let (Some(st), Some(lst)) = (text.strip_suffix('s'), low.strip_suffix('s')) {
            stem_cluster = tables.cluster_of_hash(word_hash(st));
            stem_cased = Lexicon::get().classes(st, lst).1 & NAMEISH;
        }
    }
    WordView {
        text,
        low,
        key,
        stem_cluster,
        stem_cased,
        low_key,
        shape: w.shape,
        bits: facts.bits,
        cased: facts.cased,
        cluster,
        noun: o.noun,
        sentence_start: o.sentence_start,
        open: o.open,
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

/// Views of the open words of a text and of their neighbours (±2), the only words any template
/// reads. Most words of a text are closed and far from an open one (German capitalises every
/// noun, but nouns are closed), so the views are kept apart from a per-word slot index: a
/// closed text costs the openness test per word and nothing more.
pub(crate) struct Views<'a> {
    /// Per word: index into `list`, or [`Views::NONE`].
    slot: Vec<u32>,
    list: Vec<WordView<'a>>,
    /// Indices of the open words, ascending.
    open: Vec<usize>,
}

impl<'a> Views<'a> {
    const NONE: u32 = u32::MAX;

    /// The view of word `i` (`None`: not open and not next to an open word, or past the end).
    pub(crate) fn get(&self, i: usize) -> Option<&WordView<'a>> {
        let k = *self.slot.get(i)?;
        self.list.get(k as usize)
    }

    /// Indices of the open words, ascending.
    pub(crate) fn open(&self) -> &[usize] {
        &self.open
    }
}

/// The [`Views`] of a text.
pub(crate) fn views<'a>(text: &'a Text<'_>) -> Views<'a> {
    let s = text.view();
    let words = text.words();
    let lexed = text.lexed();
    let tables = Tables::get();
    let n = words.len();
    let mut open: Vec<usize> = Vec::new();
    let mut of_open: Vec<Openness> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        // Lower-case and upper-case words are closed: no call for them (most of a text).
        if !matches!(w.shape, Shape::Capitalised | Shape::Other) {
            continue;
        }
        let o = openness(s, words, lexed, tables, i);
        if o.open {
            open.push(i);
            of_open.push(o);
        }
    }
    let mut views = Views {
        slot: Vec::new(),
        list: Vec::new(),
        open,
    };
    if views.open.is_empty() {
        return views;
    }
    views.slot = vec![Views::NONE; n];
    // at most the five words around each open word
    views
        .list
        .reserve(n.min(views.open.len().saturating_mul(5)));
    // Words within two of an open word, ascending: each open word's window, skipping what the
    // previous window already covered.
    let mut next = 0;
    for (k, &o) in views.open.iter().enumerate() {
        for j in o.saturating_sub(2).max(next)..(o + 3).min(n) {
            // An open word's openness is kept; a closed neighbour's is asked again.
            let oj = match views.open.get(k..).map(|rest| rest.binary_search(&j)) {
                Some(Ok(p)) => of_open[k + p],
                _ => openness(s, words, lexed, tables, j),
            };
            views.slot[j] = views.list.len() as u32;
            views.list.push(view(s, words, lexed, tables, j, oj));
        }
        next = next.max((o + 3).min(n));
    }
    views
}

/// A feature index sink: hashes reduced by the model's bucket mask.
pub(crate) struct Sink<'v> {
    pub(crate) mask: u32,
    pub(crate) out: &'v mut Vec<u32>,
}

impl Sink<'_> {
    fn push(&mut self, h: u64) {
        self.out.push((h as u32) & self.mask);
    }
}

/// Templates of the word alone (form, affixes, shape, classes, cluster, noun) and its sentence
/// start: the same for every occurrence of a form at the same kind of position.
pub(crate) fn local(v: &WordView<'_>, f: &mut Sink<'_>) {
    f.push(fnum(0, 0));
    f.push(mix(1, v.key));
    f.push(mix(2, v.low_key));
    for (t, n) in [(3u8, 2usize), (4, 3), (5, 4)] {
        f.push(fh(t, suffix(v.low, n).as_bytes()));
    }
    f.push(fh(6, prefix(v.low, 3).as_bytes()));
    let (sig, n) = shape_sig(v.text);
    f.push(mix(7, packed(&sig[..n])));
    f.push(mix(7, packed(&sig) ^ 0xff)); // the full signature, with the non-ASCII flag
    f.push(fnum(8, len_bucket(v.low.chars().count())));
    for b in 0..16 {
        if v.bits & (1 << b) != 0 {
            f.push(fnum(9, b));
        }
        if v.cased & (1 << b) != 0 {
            f.push(fnum(10, b));
        }
    }
    f.push(fnum(11, u32::from(v.cluster)));
    for (t, k) in [(12u8, 4u32), (13, 6), (14, 10)] {
        if let Some(p) = cluster_prefix(v.cluster, k) {
            f.push(fnum(t, p));
        }
    }
    f.push(fnum(15, u32::from(v.noun)));
    f.push(fnum(16, u32::from(v.sentence_start)));
    f.push(fnum(
        19,
        u32::from(v.sentence_start) << 1 | u32::from(v.noun),
    ));
    if let Some(p) = cluster_prefix(v.cluster, 6) {
        f.push(fnum(20, u32::from(v.sentence_start) << 16 | p));
    }
    f.push(fnum(72, v.cased & NAMEISH | u32::from(v.noun) << 8));
    if v.stem_cluster != 0 {
        f.push(fnum(73, u32::from(v.stem_cluster)));
        if let Some(p) = cluster_prefix(v.stem_cluster, 6) {
            f.push(fnum(74, p));
        }
    }
    if v.stem_cased != 0 {
        f.push(fnum(75, v.stem_cased));
    }
}

/// The punctuation before and after word `i`.
pub(crate) fn gaps(s: &str, words: &[Word], i: usize, f: &mut Sink<'_>) {
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
    f.push(mix(17, packed(&gl[..nl])));
    f.push(mix(18, packed(&gr[..nr])));
}

/// Template ids of the lowercase neighbours at -2, -1, +1, +2.
pub(crate) const NEAR_LOW: [(u8, isize); 4] = [(21, -2), (22, -1), (23, 1), (24, 2)];

/// The lowercase form of a neighbour (`None`: past the text's edge).
pub(crate) fn near_low(t: u8, n: Option<&WordView<'_>>, f: &mut Sink<'_>) {
    match n {
        Some(n) => f.push(mix(t, n.low_key)),
        None => f.push(mix(t, 0)),
    }
}

/// Template ids of the described neighbours at -1 and +1.
pub(crate) const NEAR_VIEW: [(u8, isize); 2] = [(30, -1), (31, 1)];

/// Shape, cluster (whole, 6- and 4-bit path prefixes), classes, noun and openness of a direct
/// neighbour: a function of the neighbour's form and openness alone.
pub(crate) fn near_view(t: u8, n: Option<&WordView<'_>>, f: &mut Sink<'_>) {
    let Some(n) = n else {
        f.push(fnum(t, 99));
        return;
    };
    let (sig, k) = shape_sig(n.text);
    f.push(mix(t, packed(&sig[..k])));
    if let Some(p) = cluster_prefix(n.cluster, 6) {
        f.push(fnum(t + 10, p));
    }
    f.push(fnum(t + 50, u32::from(n.cluster)));
    if let Some(p) = cluster_prefix(n.cluster, 4) {
        f.push(fnum(t + 60, p));
    }
    for b in 0..16 {
        if n.bits & (1 << b) != 0 {
            f.push(fnum(t + 20, b));
        }
        if n.cased & (1 << b) != 0 {
            f.push(fnum(t + 20, 16 + b));
        }
    }
    f.push(fnum(t + 30, u32::from(n.noun) << 1 | u32::from(n.open)));
}

/// Conjunctions: the previous word's lowercase form with this word's shape, and the shapes of
/// this word and the next.
pub(crate) fn pairs(
    v: &WordView<'_>,
    prev: Option<&WordView<'_>>,
    next: Option<&WordView<'_>>,
    f: &mut Sink<'_>,
) {
    let prev_low = prev.map_or(0, |p| p.low_key);
    let next_shape = next.map_or(Shape::Uncased, |n| n.shape);
    f.push(mix(70, prev_low.rotate_left(8) ^ v.shape as u64));
    f.push(fnum(71, (v.shape as u32) << 8 | next_shape as u32));
}

/// The view at word index `i + o`, if any.
pub(crate) fn at<'v, 'a>(views: &'v Views<'a>, i: usize, o: isize) -> Option<&'v WordView<'a>> {
    i.checked_add_signed(o).and_then(|j| views.get(j))
}

/// Extracts the features of `text`'s words, each index reduced by `mask` (bucket count - 1).
/// Training reads these lists; tagging sums the same templates through [`super::infer`].
pub fn extract(text: &Text<'_>, mask: u32, out: &mut Features) {
    let s = text.view();
    let words = text.words();
    out.spans.clear();
    out.idx.clear();
    out.spans.reserve(words.len());
    if words.is_empty() {
        return;
    }
    let views = views(text);
    for i in 0..words.len() {
        let Some(v) = views.get(i).filter(|v| v.open) else {
            out.spans.push(None);
            continue;
        };
        let from = out.idx.len() as u32;
        let mut f = Sink {
            mask,
            out: &mut out.idx,
        };
        local(v, &mut f);
        gaps(s, words, i, &mut f);
        for (t, o) in NEAR_LOW {
            near_low(t, at(&views, i, o), &mut f);
        }
        for (t, o) in NEAR_VIEW {
            near_view(t, at(&views, i, o), &mut f);
        }
        pairs(v, at(&views, i, -1), at(&views, i, 1), &mut f);
        out.spans.push(Some((from, out.idx.len() as u32)));
    }
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
        // one `~` per non-ASCII code point, repeats collapsed, at most four symbols
        assert_eq!(gap_sig("\u{201e}1\u{20ac}\u{201c}.\n"), (*b"~0~.", 4));
        assert_eq!(gap_sig(" \u{2013} \u{ab}"), (*b"~\0\0\0", 1));
        assert_eq!(suffix("müller", 3), "ler");
        assert_eq!(suffix("ab", 3), "ab");
        assert_eq!(prefix("ärger", 2), "är");
        assert_eq!(cluster_prefix(0b101000, 4), Some(0b1010));
        assert_eq!(cluster_prefix(0b101, 4), None);
        // A signature and its prefix, and one value under two templates, are different keys.
        assert_ne!(packed(b"X"), packed(b"X\0"));
        assert_ne!(mix(21, 7), mix(22, 7));
        assert_ne!(mix(21, 7) & 1023, mix(21, 8) & 1023);
    }
}

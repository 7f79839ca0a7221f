//! Training: an averaged structured perceptron (Collins 2002) over the same features and decoder
//! that tagging uses, plus parsers that turn labelled corpora (CoNLL-style columns) into
//! [`Document`]s. Pure and deterministic: the caller reads the files
//! (`examples/train_tagger.rs`), the order of documents is shuffled with a fixed seed.

use super::features::{extract, Features};
use super::model::{viterbi, Model, B_LOC, B_OTH, B_PER, I_LOC, I_OTH, I_PER, LABELS, O};
pub use super::Kind;
use crate::Text;

/// A labelled text: byte ranges of its person and location mentions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    pub text: String,
    pub spans: Vec<(usize, usize, Kind)>,
}

/// Where a column corpus keeps its token and tag.
#[derive(Debug, Clone, Copy)]
pub struct Columns {
    pub token: usize,
    /// Tag column; counted from the end when `tag_from_end`.
    pub tag: usize,
    pub tag_from_end: bool,
    /// Start a new document after this many tokens at the next `.` (corpora without breaks).
    pub max_tokens: usize,
}

/// `B-PER`, `I-pers`, `B-location-city` → kind and whether it begins; organisations, works
/// (`prod`, `OTH`) and parts or derivations of names (`B-PERpart`, `B-LOCderiv`) are
/// [`Kind::Other`]; `None` for everything else (`O`, times, numbers, corrupt tags).
fn parse_tag(tag: &str) -> Option<(Kind, bool)> {
    let (begin, ty) = if let Some(t) = tag.strip_prefix("B-") {
        (true, t)
    } else {
        (false, tag.strip_prefix("I-")?)
    };
    let ty = ty.to_ascii_lowercase();
    let kind = match ty.as_str() {
        "per" | "pers" | "person" => Kind::Person,
        "loc" | "location" | "place" => Kind::Location,
        t if t.starts_with("location-") || t.starts_with("location_") => Kind::Location,
        "org" | "oth" | "prod" | "misc" | "work" | "other" | "tax" => Kind::Other,
        t if t.starts_with("organization") => Kind::Other,
        t if t.ends_with("part") || t.ends_with("deriv") => Kind::Other,
        _ => return None,
    };
    Some((kind, begin))
}

/// Parses a column corpus: one token per line, blank lines (or `EndOfSentence` in a HIPE `MISC`
/// column) end a document, `#` lines and `-DOCSTART-` are skipped, as is a `TOKEN` header. Tokens
/// are joined with single spaces. IOB1 and IOB2 are both read (an `I-` after another kind opens a
/// mention).
pub fn parse_columns(data: &str, cols: Columns) -> Vec<Document> {
    let mut docs = Vec::new();
    let mut doc = Document::default();
    let mut open: Option<(usize, Kind)> = None;
    let mut tokens = 0usize;
    let close = |doc: &mut Document, open: &mut Option<(usize, Kind)>| {
        if let Some((a, k)) = open.take() {
            let end = doc.text.len();
            doc.spans.push((a, end, k));
        }
    };
    let finish = |doc: &mut Document, open: &mut Option<(usize, Kind)>, docs: &mut Vec<_>| {
        close(doc, open);
        if !doc.text.is_empty() {
            docs.push(std::mem::take(doc));
        }
    };
    for line in data.lines() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            finish(&mut doc, &mut open, &mut docs);
            tokens = 0;
            continue;
        }
        if line.starts_with('#') || line.starts_with("-DOCSTART-") || line.starts_with("TOKEN\t") {
            continue;
        }
        let fields: Vec<&str> = if line.contains('\t') {
            line.split('\t').collect()
        } else {
            line.split(' ').collect()
        };
        let tag_i = if cols.tag_from_end {
            fields.len().checked_sub(1 + cols.tag)
        } else {
            Some(cols.tag)
        };
        let (Some(&token), Some(&tag)) =
            (fields.get(cols.token), tag_i.and_then(|i| fields.get(i)))
        else {
            continue;
        };
        if token.is_empty() {
            continue;
        }
        let parsed = parse_tag(tag);
        match (parsed, open) {
            (Some((k, begin)), Some((_, ok))) if !begin && k == ok => {}
            (Some(_), Some(_)) | (None, Some(_)) => close(&mut doc, &mut open),
            _ => {}
        }
        if !doc.text.is_empty() {
            doc.text.push(' ');
        }
        if let Some((k, _)) = parsed {
            if open.is_none() {
                open = Some((doc.text.len(), k));
            }
        }
        doc.text.push_str(token);
        tokens += 1;
        let eos = line.contains("EndOfSentence")
            || (cols.max_tokens > 0 && tokens >= cols.max_tokens && token == ".");
        if eos {
            finish(&mut doc, &mut open, &mut docs);
            tokens = 0;
        }
    }
    finish(&mut doc, &mut open, &mut docs);
    docs
}

/// One training sentence from a template (`data/tagger/*templates.txt`): each `{KEY}` is
/// replaced by what `fill` returns for `KEY` (a value and its kind; `None` keeps the text as it
/// stands, so JSON braces pass through) and labelled with that kind; a person value right after
/// another one, one space apart, continues its mention (given name + surname). Text between `<o>`
/// and `</o>` is one [`Kind::Other`] mention; values inside it are no mentions of their own.
pub fn fill_template(
    template: &str,
    mut fill: impl FnMut(&str) -> Option<(String, Kind)>,
) -> Document {
    let mut d = Document::default();
    let mut rest = template;
    let mut other: Option<usize> = None;
    while let Some(p) = rest.find(['{', '<']) {
        d.text.push_str(&rest[..p]);
        rest = &rest[p..];
        if let Some(r) = rest.strip_prefix("<o>") {
            other = Some(d.text.len());
            rest = r;
            continue;
        }
        if let Some(r) = rest.strip_prefix("</o>") {
            if let Some(a) = other.take() {
                d.spans.push((a, d.text.len(), Kind::Other));
            }
            rest = r;
            continue;
        }
        let key_len = rest[1..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .filter(|&n| n > 0 && rest[1 + n..].starts_with('}'));
        let filled = key_len.and_then(|n| Some((n, fill(&rest[1..1 + n])?)));
        let Some((n, (value, kind))) = filled else {
            // A brace or `<` that is no placeholder or tag: plain text.
            d.text.push_str(&rest[..1]);
            rest = &rest[1..];
            continue;
        };
        rest = &rest[n + 2..];
        let start = d.text.len();
        d.text.push_str(&value);
        if other.is_some() {
            continue;
        }
        match d.spans.last_mut() {
            Some(last)
                if kind == Kind::Person
                    && last.2 == kind
                    && last.1 + 1 == start
                    && d.text[last.1..start] == *" " =>
            {
                last.1 = d.text.len()
            }
            _ => d.spans.push((start, d.text.len(), kind)),
        }
    }
    d.text.push_str(rest);
    d
}

/// Gold labels of the words of `text` from byte spans (`O` for words the features close).
pub fn gold_labels(text: &Text<'_>, spans: &[(usize, usize, Kind)], f: &Features) -> Vec<u8> {
    let words = text.words();
    let mut labels = vec![O; words.len()];
    for (i, w) in words.iter().enumerate() {
        if f.of(i).is_none() {
            continue;
        }
        let Some(&(a, _, k)) = spans.iter().find(|(a, e, _)| w.start >= *a && w.start < *e) else {
            continue;
        };
        let (b, inside) = match k {
            Kind::Person => (B_PER, I_PER),
            Kind::Location => (B_LOC, I_LOC),
            Kind::Other => (B_OTH, I_OTH),
        };
        let continues = i > 0 && labels[i - 1] != O && words[i - 1].start >= a;
        labels[i] = if continues && (labels[i - 1] == b || labels[i - 1] == inside) {
            inside
        } else {
            b
        };
    }
    labels
}

/// Training settings.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// log2 of the number of feature buckets.
    pub log2: u32,
    pub epochs: usize,
    pub seed: u64,
    /// Share of features (per mille) left out of each example in each epoch, so that the model
    /// cannot lean on the word's identity alone and learns the features that carry over to
    /// unseen names (shape, clusters, context).
    pub dropout: u32,
    /// Added to the `B-PER` score of every open word after training (the weight of the bias
    /// feature, so the same as adding it at decode time): trades precision against recall.
    /// The default (−20, with [`Config::inside_bias`] 50) was chosen by a decode-time sweep
    /// over the cross-validation folds (docs/tagger.md): fewer lone capitalised words
    /// start a name, more names run on over their next word (`Grant Leadbitter`).
    pub person_bias: f32,
    /// The same for `I-PER`.
    pub inside_bias: f32,
    /// Share of each update that also goes to the other label of the same kind (`B-PER` and
    /// `I-PER`): the two columns then hold a common part that says "a person's word" and a part
    /// that says where in the name it stands, so a surname seen mostly after a given name still
    /// counts as a name alone (`Huber agierte …`). 0 keeps the labels apart.
    pub share: f32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            log2: 18,
            epochs: 150,
            seed: 0x7a61_726e,
            dropout: 500,
            person_bias: 8.0,
            inside_bias: 50.0,
            share: 0.0,
        }
    }
}

/// The other label of the same kind (`B-PER` ↔ `I-PER`), `None` for `O`.
fn sibling(label: usize) -> Option<usize> {
    match label as u8 {
        O => None,
        l if l % 2 == 1 => Some(label + 1),
        _ => Some(label - 1),
    }
}

/// A deterministic xorshift generator (the order of training examples must not depend on a
/// library's choice of algorithm).
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// `full` without the features whose salted hash falls below `per_mille` (never the first, the
/// bias).
fn drop_features(full: &Features, out: &mut Features, salt: u64, per_mille: u32) {
    out.spans.clear();
    out.idx.clear();
    for span in &full.spans {
        let Some((a, b)) = *span else {
            out.spans.push(None);
            continue;
        };
        let from = out.idx.len() as u32;
        for (n, &x) in full.idx[a as usize..b as usize].iter().enumerate() {
            let h = (u64::from(x) ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54;
            if n == 0 || h as u32 >= per_mille {
                out.idx.push(x);
            }
        }
        out.spans.push(Some((from, out.idx.len() as u32)));
    }
}

/// The features and gold labels of every document that has a word the tagger judges.
fn labelled_features(docs: &[Document], mask: u32) -> Vec<(Features, Vec<u8>)> {
    let mut data = Vec::with_capacity(docs.len());
    for d in docs {
        let text = Text::new(&d.text);
        let mut f = Features::default();
        extract(&text, mask, &mut f);
        if f.spans.iter().all(Option::is_none) {
            continue;
        }
        let gold = gold_labels(&text, &d.spans, &f);
        data.push((f, gold));
    }
    data
}

/// Per word, the label scores under the current weights `w` (`None` for words that are `O` by
/// construction), into `em`.
fn emissions(f: &Features, w: &[f32], em: &mut Vec<Option<[f32; LABELS]>>) {
    em.clear();
    em.extend((0..f.spans.len()).map(|i| {
        f.of(i).map(|fs| {
            let mut e = [0f32; LABELS];
            for &x in fs {
                let row = &w[x as usize * LABELS..x as usize * LABELS + LABELS];
                for (a, b) in e.iter_mut().zip(row) {
                    *a += b;
                }
            }
            e
        })
    }));
}

/// Trains the averaged perceptron on `docs`.
pub fn train(docs: &[Document], cfg: Config) -> Model {
    let mask = (1u32 << cfg.log2) - 1;
    let data = labelled_features(docs, mask);
    let nw = (1usize << cfg.log2) * LABELS;
    let nt = (LABELS + 1) * LABELS;
    let mut w = vec![0f32; nw];
    let mut wsum = vec![0f64; nw];
    let mut t = vec![0f32; nt];
    let mut tsum = vec![0f64; nt];
    let mut c = 1f64;
    let mut order: Vec<usize> = (0..data.len()).collect();
    let mut rng = XorShift(cfg.seed | 1);
    let mut em: Vec<Option<[f32; LABELS]>> = Vec::new();
    let mut kept: Features = Features::default();
    for _ in 0..cfg.epochs {
        for i in (1..order.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &k in &order {
            let (full, gold) = &data[k];
            let f = if cfg.dropout > 0 {
                let salt = rng.next();
                drop_features(full, &mut kept, salt, cfg.dropout);
                &kept
            } else {
                full
            };
            emissions(f, &w, &mut em);
            let pred = viterbi(&em, &t);
            if pred != *gold {
                for i in 0..gold.len() {
                    let (g, p) = (gold[i] as usize, pred[i] as usize);
                    let (gp, pp) = if i == 0 {
                        (0, 0)
                    } else {
                        (gold[i - 1] as usize + 1, pred[i - 1] as usize + 1)
                    };
                    if g != p {
                        if let Some(fs) = f.of(i) {
                            let (gs, ps) = (sibling(g), sibling(p));
                            let sh = cfg.share;
                            for &x in fs {
                                let x = x as usize * LABELS;
                                w[x + g] += 1.0;
                                wsum[x + g] += c;
                                w[x + p] -= 1.0;
                                wsum[x + p] -= c;
                                if sh > 0.0 {
                                    if let Some(gs) = gs {
                                        w[x + gs] += sh;
                                        wsum[x + gs] += c * f64::from(sh);
                                    }
                                    if let Some(ps) = ps {
                                        w[x + ps] -= sh;
                                        wsum[x + ps] -= c * f64::from(sh);
                                    }
                                }
                            }
                        }
                    }
                    if g != p || gp != pp {
                        t[gp * LABELS + g] += 1.0;
                        tsum[gp * LABELS + g] += c;
                        t[pp * LABELS + p] -= 1.0;
                        tsum[pp * LABELS + p] -= c;
                    }
                }
            }
            c += 1.0;
        }
    }
    let avg = |v: &[f32], s: &[f64]| -> Vec<f32> {
        v.iter()
            .zip(s)
            .map(|(&a, &b)| (f64::from(a) - b / c) as f32)
            .collect()
    };
    let mut weights = avg(&w, &wsum);
    let bias = super::features::bias_bucket(mask) as usize * LABELS;
    weights[bias + B_PER as usize] += cfg.person_bias;
    weights[bias + I_PER as usize] += cfg.inside_bias;
    Model::from_float(cfg.log2, &avg(&t, &tsum), &weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GERMEVAL: Columns = Columns {
        token: 1,
        tag: 2,
        tag_from_end: false,
        max_tokens: 0,
    };

    /// Each labelled span of `d` as its text and kind.
    fn spans_of(d: &Document) -> Vec<(&str, Kind)> {
        d.spans
            .iter()
            .map(|&(a, e, k)| (&d.text[a..e], k))
            .collect()
    }

    #[test]
    fn columns_become_documents_with_spans() {
        let data = "# source\n1\tGegen\tO\tO\n2\tFranck\tB-PER\tO\n3\tRibéry\tI-PER\tO\n\
                    4\taus\tO\tO\n5\tMetz\tB-LOC\tO\n6\tdeutschen\tB-LOCderiv\tO\n\n\
                    1\tEnde\tO\tO\n";
        let docs = parse_columns(data, GERMEVAL);
        assert_eq!(docs.len(), 2);
        let d = &docs[0];
        assert_eq!(d.text, "Gegen Franck Ribéry aus Metz deutschen");
        let got = spans_of(d);
        assert_eq!(
            got,
            vec![
                ("Franck Ribéry", Kind::Person),
                ("Metz", Kind::Location),
                ("deutschen", Kind::Other)
            ]
        );
        // IOB1 (europeana): `I-` opens a mention after `O`; a corrupt tag is `O`.
        let docs = parse_columns(
            "Herr O\nKlee I-PER\nin O\nWien I-LOC\nx tel\n",
            Columns {
                token: 0,
                tag: 1,
                tag_from_end: false,
                max_tokens: 50,
            },
        );
        let d = &docs[0];
        let got: Vec<&str> = d.spans.iter().map(|&(a, e, _)| &d.text[a..e]).collect();
        assert_eq!(got, vec!["Klee", "Wien"]);
    }

    #[test]
    fn templates_fill_placeholders_tags_and_json() {
        let mut n = 0;
        let mut fill = |key: &str| {
            n += 1;
            match key {
                "F" => Some((format!("Jana{n}"), Kind::Person)),
                "L" => Some((format!("Quast{n}"), Kind::Person)),
                "T" => Some(("Lübben".to_owned(), Kind::Location)),
                _ => None,
            }
        };
        let d = fill_template(
            "{\"kunde\": \"{F} {L}\", \"ort\": \"{T}\"} <o>{L} GmbH</o>, {L} <b> {X}",
            &mut fill,
        );
        assert_eq!(
            d.text,
            "{\"kunde\": \"Jana1 Quast2\", \"ort\": \"Lübben\"} Quast4 GmbH, Quast5 <b> {X}"
        );
        let got = spans_of(&d);
        assert_eq!(
            got,
            vec![
                ("Jana1 Quast2", Kind::Person),
                ("Lübben", Kind::Location),
                ("Quast4 GmbH", Kind::Other),
                ("Quast5", Kind::Person)
            ]
        );
        // A surname after a comma or a particle opens a mention of its own.
        let d = fill_template("{F}, {L} von {L}", |k| {
            Some((k.to_owned() + "x", Kind::Person))
        });
        assert_eq!(d.spans.len(), 3);
    }

    #[test]
    fn gold_labels_follow_words() {
        let s = "Gegen Franck Ribéry wurde in Metz ermittelt.";
        let text = Text::new(s);
        let mut f = Features::default();
        extract(&text, 1023, &mut f);
        let spans = [(6, 20, Kind::Person), (29, 33, Kind::Location)];
        let g = gold_labels(&text, &spans, &f);
        assert_eq!(g, vec![O, B_PER, I_PER, O, O, B_LOC, O]);
    }

    /// The training's smoke test: a tiny corpus, trained in milliseconds, must be learnt.
    #[test]
    fn smoke_training_learns_a_tiny_corpus() {
        let data = include_str!("testdata/smoke.tsv");
        let docs = parse_columns(data, GERMEVAL);
        assert!(docs.len() >= 10);
        let cfg = Config {
            log2: 14,
            epochs: 8,
            seed: 1,
            dropout: 0,
            person_bias: 0.0,
            inside_bias: 0.0,
            share: 0.5,
        };
        let m = train(&docs, cfg);
        // Deterministic: a second run gives the same bytes.
        assert_eq!(m.to_bytes(), train(&docs, cfg).to_bytes());
        let mut f = Features::default();
        let mut correct = 0;
        let mut total = 0;
        for d in &docs {
            let t = Text::new(&d.text);
            extract(&t, m.mask(), &mut f);
            let gold = gold_labels(&t, &d.spans, &f);
            let pred = m.decode(&f);
            total += gold.iter().filter(|&&g| g != O).count();
            correct += gold
                .iter()
                .zip(&pred)
                .filter(|(g, p)| **g != O && g == p)
                .count();
        }
        assert!(total > 0);
        assert!(correct * 10 >= total * 9, "{correct}/{total}");
    }
}

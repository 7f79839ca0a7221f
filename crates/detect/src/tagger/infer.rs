//! Tagging without feature lists: the label scores of every open word, summed straight from the
//! weights.
//!
//! Training needs each word's feature list ([`super::features::extract`]); tagging needs only
//! the sum of their weight rows, and most of that sum does not depend on where a word stands. The
//! templates of the word alone (form, affixes, shape, classes, cluster, noun; see
//! [`features::local`]) are fixed by its spelling and whether it opens a sentence, and what a
//! direct neighbour contributes ([`features::near_view`]) by the neighbour's spelling and
//! whether it is open. Those two parts are summed once per distinct key and text and then
//! reused; only the few templates that join a word with its place (punctuation around it, the
//! lowercase neighbours ±2, the pairs) are hashed per occurrence. Integer row sums are the same
//! in any order, so the scores equal those of the feature lists bit for bit (a unit test checks).

use std::collections::HashMap;

use super::features::{self, at, Sink, NEAR_LOW, NEAR_VIEW};
use super::model::{Model, LABELS};
use crate::Text;

/// Row sums already made in this text, by spelling hash mixed with a template group salt.
type Sums = HashMap<u64, [i32; LABELS], nohash_hasher::BuildNoHashHasher<u64>>;

/// Salts of the cached template groups: the word's own templates (not at / at a sentence
/// start) and the two direct neighbours (closed / open).
const LOCAL: [u64; 2] = [0x9e37_79b9_7f4a_7c15, 0xc2b2_ae3d_27d4_eb4f];
const NEAR: [[u64; 2]; 2] = [
    [0x1656_67b1_9e37_79f9, 0x27d4_eb2f_1656_67c5],
    [0x85eb_ca77_c2b2_ae63, 0xff51_afd7_ed55_8ccd],
];

/// Scores of every label for each word of `text` (`None`: the word is `O` by construction).
pub fn emissions(text: &Text<'_>, model: &Model) -> Vec<Option<[f32; LABELS]>> {
    let s = text.view();
    let words = text.words();
    if words.is_empty() {
        return Vec::new();
    }
    let views = features::views(text);
    if views.open().is_empty() {
        return vec![None; words.len()];
    }
    let mask = model.mask();
    let mut memo = Sums::default();
    let mut scratch: Vec<u32> = Vec::with_capacity(64);
    let mut sum_of = |memo: &mut Sums, key: u64, fill: &dyn Fn(&mut Sink<'_>)| {
        if let Some(a) = memo.get(&key) {
            return *a;
        }
        scratch.clear();
        fill(&mut Sink {
            mask,
            out: &mut scratch,
        });
        let mut acc = [0i32; LABELS];
        model.add_rows(&scratch, &mut acc);
        memo.insert(key, acc);
        acc
    };
    let mut direct: Vec<u32> = Vec::with_capacity(16);
    let mut out = vec![None; words.len()];
    for &i in views.open() {
        let Some(v) = views.get(i) else {
            continue;
        };
        let mut acc = sum_of(
            &mut memo,
            v.key ^ LOCAL[usize::from(v.sentence_start)],
            &|f| features::local(v, f),
        );
        direct.clear();
        let mut f = Sink {
            mask,
            out: &mut direct,
        };
        features::gaps(s, words, i, &mut f);
        for (t, o) in NEAR_LOW {
            features::near_low(t, at(&views, i, o), &mut f);
        }
        features::pairs(v, at(&views, i, -1), at(&views, i, 1), &mut f);
        for (k, (t, o)) in NEAR_VIEW.into_iter().enumerate() {
            match at(&views, i, o) {
                Some(n) => {
                    let part = sum_of(&mut memo, n.key ^ NEAR[k][usize::from(n.open)], &|f| {
                        features::near_view(t, Some(n), f)
                    });
                    for (a, p) in acc.iter_mut().zip(part) {
                        *a += p;
                    }
                }
                None => features::near_view(t, None, &mut f),
            }
        }
        model.add_rows(&direct, &mut acc);
        if let Some(e) = out.get_mut(i) {
            *e = Some(model.scores(acc));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tagger::features::{extract, Features};
    use crate::tagger::Tagger;

    #[test]
    fn sums_equal_the_feature_lists() {
        let tagger = Tagger::shared();
        let model = tagger.model();
        let s = "Gegen Ribéry wurde ermittelt. Ribéry schwieg, und Ribéry ging.\n\
                 Herr Präsident, Frau Kowalska aus Wanne-Eickel und Ahmed al-Farsi. Darin";
        let text = Text::new(s);
        let mut f = Features::default();
        extract(&text, model.mask(), &mut f);
        let fast = emissions(&text, model);
        assert_eq!(fast.len(), f.spans.len());
        let mut open = 0;
        for (i, e) in fast.iter().enumerate() {
            let slow = f.of(i).map(|x| {
                let mut acc = [0i32; LABELS];
                model.add_rows(x, &mut acc);
                model.scores(acc)
            });
            assert_eq!(*e, slow, "word {i}");
            open += usize::from(e.is_some());
        }
        assert!(open >= 6, "{open}");
    }
}

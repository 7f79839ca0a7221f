//! The linear model: one weight per (hashed feature, label) plus label-transition weights, and
//! Viterbi decoding under the BIO constraints. The shipped weights are 16-bit fixed point (half
//! the size of `f32`, no measurable loss for a perceptron), read from `data/tagger/weights.bin`.
//!
//! File format (little endian): magic `TKTAGGR1`, `u32` log2 of the bucket count, `u32` label
//! count, `f32` scale, `(labels + 1) * labels` `f32` transitions (row 0: from the text start),
//! then `buckets * labels` `i16` weights (bucket-major).

use super::features::Features;

/// `O`, `B-PER`, `I-PER`, `B-LOC`, `I-LOC`, `B-OTH`, `I-OTH`. `OTH` (organisations, works,
/// parts of names such as `Merkel-Regierung`) is learnt so that the model has somewhere to put a
/// capitalised non-noun that is neither person nor place (`Siemens`, `Bundesliga`) other than
/// the person label; its mentions are not used.
pub const LABELS: usize = 7;
pub const O: u8 = 0;
pub const B_PER: u8 = 1;
pub const I_PER: u8 = 2;
pub const B_LOC: u8 = 3;
pub const I_LOC: u8 = 4;
pub const B_OTH: u8 = 5;
pub const I_OTH: u8 = 6;

const MAGIC: &[u8; 8] = b"TKTAGGR1";

/// Why a weights file cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ModelError {
    #[error("tagger weights: bad magic")]
    Magic,
    #[error("tagger weights: unsupported shape")]
    Shape,
    #[error("tagger weights: truncated")]
    Truncated,
}

/// True when `label` may follow `prev` (`None` = text start): an `I-` continues its own type.
pub fn allowed(prev: Option<u8>, label: u8) -> bool {
    match label {
        I_PER => matches!(prev, Some(B_PER | I_PER)),
        I_LOC => matches!(prev, Some(B_LOC | I_LOC)),
        I_OTH => matches!(prev, Some(B_OTH | I_OTH)),
        _ => true,
    }
}

/// The label before `l` that leads best into it from the word scores `score`, and that sum
/// (score and transition; minus infinity when no label may precede `l`).
#[inline]
fn best_before(score: &[f32; LABELS], trans: &[f32], l: usize) -> (f32, u8) {
    let mut best = (f32::NEG_INFINITY, 0u8);
    for (p, &pv) in score.iter().enumerate() {
        if pv == f32::NEG_INFINITY || !allowed(Some(p as u8), l as u8) {
            continue;
        }
        let v = pv + trans[(p + 1) * LABELS + l];
        if v > best.0 {
            best = (v, p as u8);
        }
    }
    best
}

/// Best label sequence for the per-word scores `emissions` (`None`: the word is `O`) and the
/// transition weights `trans` (row 0 from the start, row `p + 1` from label `p`).
///
/// A closed word has one label, so the text falls apart into runs of open words decoded one by
/// one: a run starts from the `O` score carried over the closed words before it (or from the
/// text start) and ends in the label that leads best into the next closed word. The sums are the
/// same, in the same order, as one pass over every word would make them.
pub fn viterbi(emissions: &[Option<[f32; LABELS]>], trans: &[f32]) -> Vec<u8> {
    let n = emissions.len();
    let mut out = vec![O; n];
    let o = O as usize;
    // Score of `O` at the last closed word (`None`: no word yet).
    let mut carry: Option<f32> = None;
    let mut back: Vec<[u8; LABELS]> = Vec::new();
    let mut i = 0;
    while i < n {
        if emissions[i].is_none() {
            carry = Some(match carry {
                None => trans[o] + 0.0,
                Some(c) => c + trans[(o + 1) * LABELS + o] + 0.0,
            });
            i += 1;
            continue;
        }
        let from = i;
        back.clear();
        let mut score = [f32::NEG_INFINITY; LABELS];
        match carry {
            None => {
                if let Some(e) = emissions[i] {
                    for l in 0..LABELS {
                        if allowed(None, l as u8) {
                            score[l] = trans[l] + e[l];
                        }
                    }
                }
                back.push([0; LABELS]);
                i += 1;
            }
            Some(c) => {
                score[o] = c;
            }
        }
        while let Some(Some(e)) = emissions.get(i) {
            let mut next = [f32::NEG_INFINITY; LABELS];
            let mut from_best = [0u8; LABELS];
            for l in 0..LABELS {
                let best = best_before(&score, trans, l);
                next[l] = best.0 + e[l];
                from_best[l] = best.1;
            }
            score = next;
            back.push(from_best);
            i += 1;
        }
        // The run's last label: the best into the closed word after it, or the best at the end.
        let mut l = if i < n {
            let best = best_before(&score, trans, o);
            carry = Some(best.0 + 0.0);
            i += 1;
            best.1
        } else {
            (0..LABELS)
                .max_by(|&a, &b| score[a].total_cmp(&score[b]))
                .unwrap_or(0) as u8
        };
        for (k, b) in back.iter().enumerate().rev() {
            out[from + k] = l;
            l = b[l as usize];
        }
    }
    out
}

/// The shipped model (fixed point).
pub struct Model {
    log2: u32,
    scale: f32,
    trans: Vec<f32>,
    weights: Vec<i16>,
}

impl Model {
    /// Bucket mask for [`super::features::extract`].
    pub fn mask(&self) -> u32 {
        (1u32 << self.log2) - 1
    }

    /// Quantizes float weights (`buckets * LABELS`, bucket-major) into a model.
    pub fn from_float(log2: u32, trans: &[f32], weights: &[f32]) -> Model {
        let max = weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        let scale = if max > 0.0 { max / 32767.0 } else { 1.0 };
        Model {
            log2,
            scale,
            trans: trans.to_vec(),
            weights: weights
                .iter()
                .map(|w| (w / scale).round().clamp(-32767.0, 32767.0) as i16)
                .collect(),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.weights.len() * 2);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.log2.to_le_bytes());
        out.extend_from_slice(&(LABELS as u32).to_le_bytes());
        out.extend_from_slice(&self.scale.to_le_bytes());
        for t in &self.trans {
            out.extend_from_slice(&t.to_le_bytes());
        }
        for w in &self.weights {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(b: &[u8]) -> Result<Model, ModelError> {
        if b.get(..8) != Some(MAGIC.as_slice()) {
            return Err(ModelError::Magic);
        }
        let u32_at = |i: usize| -> Result<u32, ModelError> {
            let s = b.get(i..i + 4).ok_or(ModelError::Truncated)?;
            Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        };
        let log2 = u32_at(8)?;
        if !(10..=24).contains(&log2) || u32_at(12)? as usize != LABELS {
            return Err(ModelError::Shape);
        }
        let scale = f32::from_bits(u32_at(16)?);
        let nt = (LABELS + 1) * LABELS;
        let trans = (0..nt)
            .map(|k| u32_at(20 + 4 * k).map(f32::from_bits))
            .collect::<Result<Vec<f32>, _>>()?;
        let from = 20 + 4 * nt;
        let nw = (1usize << log2) * LABELS;
        let body = b.get(from..from + 2 * nw).ok_or(ModelError::Truncated)?;
        if b.len() != from + 2 * nw {
            return Err(ModelError::Truncated);
        }
        let weights = body
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        Ok(Model {
            log2,
            scale,
            trans,
            weights,
        })
    }

    /// Adds `delta` to the score of `label` for every open word (through the bias feature every
    /// open word has), in fixed point: a decode-time trade of precision for recall. Saturates
    /// at the largest weight of the model.
    pub fn shift_label(&mut self, label: u8, delta: f32) {
        let row = super::features::bias_bucket(self.mask()) as usize * LABELS + label as usize;
        if let Some(w) = self.weights.get_mut(row) {
            let v = f32::from(*w) + delta / self.scale;
            *w = v.round().clamp(-32767.0, 32767.0) as i16;
        }
    }

    /// Adds the weight rows of `feats` to `acc` (fixed point).
    pub(crate) fn add_rows(&self, feats: &[u32], acc: &mut [i32; LABELS]) {
        for &f in feats {
            let base = f as usize * LABELS;
            if let Some(row) = self.weights.get(base..base + LABELS) {
                for (a, &w) in acc.iter_mut().zip(row) {
                    *a += i32::from(w);
                }
            }
        }
    }

    /// Label scores of a fixed-point row sum.
    pub(crate) fn scores(&self, acc: [i32; LABELS]) -> [f32; LABELS] {
        acc.map(|a| a as f32 * self.scale)
    }

    /// Label transition weights (row 0 from the text start, row `p + 1` from label `p`).
    pub(crate) fn trans(&self) -> &[f32] {
        &self.trans
    }

    /// Scores of every label for one word's features.
    fn emission(&self, feats: &[u32]) -> [f32; LABELS] {
        let mut acc = [0i32; LABELS];
        self.add_rows(feats, &mut acc);
        self.scores(acc)
    }

    /// Labels of every word.
    pub fn decode(&self, f: &Features) -> Vec<u8> {
        let em: Vec<Option<[f32; LABELS]>> = (0..f.spans.len())
            .map(|i| f.of(i).map(|x| self.emission(x)))
            .collect();
        viterbi(&em, &self.trans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viterbi_respects_bio_and_closed_words() {
        let trans = vec![0.0; (LABELS + 1) * LABELS];
        // I-PER scores best everywhere, but may only follow B-PER.
        let e = [0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0];
        let labels = viterbi(&[Some(e), Some(e), None, Some(e)], &trans);
        assert_eq!(labels, vec![B_PER, I_PER, O, B_PER]);
        assert!(viterbi(&[], &trans).is_empty());
    }

    /// One pass over every word, closed ones included: what [`viterbi`] must equal.
    fn viterbi_every_word(emissions: &[Option<[f32; LABELS]>], trans: &[f32]) -> Vec<u8> {
        let n = emissions.len();
        let mut back = vec![[0u8; LABELS]; n];
        let mut score = [f32::NEG_INFINITY; LABELS];
        for (i, e) in emissions.iter().enumerate() {
            let mut next = [f32::NEG_INFINITY; LABELS];
            for l in 0..LABELS {
                let em = match e {
                    Some(e) => e[l],
                    None if l == O as usize => 0.0,
                    None => continue,
                };
                if i == 0 {
                    if allowed(None, l as u8) {
                        next[l] = trans[l] + em;
                    }
                    continue;
                }
                // The step itself is shared: what is compared is the skipping of closed words.
                let best = best_before(&score, trans, l);
                next[l] = best.0 + em;
                back[i][l] = best.1;
            }
            score = next;
        }
        let mut out = vec![O; n];
        let mut l = (0..LABELS)
            .max_by(|&a, &b| score[a].total_cmp(&score[b]))
            .unwrap_or(0) as u8;
        for i in (0..n).rev() {
            out[i] = l;
            l = back[i][l as usize];
        }
        out
    }

    #[test]
    fn runs_of_open_words_decode_as_one_pass_would() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..300 {
            let trans: Vec<f32> = (0..(LABELS + 1) * LABELS)
                .map(|_| (next() % 21) as f32 - 10.0)
                .collect();
            let n = (next() % 14) as usize;
            let em: Vec<Option<[f32; LABELS]>> = (0..n)
                .map(|_| {
                    (next() % 3 != 0).then(|| [0; LABELS].map(|_: u8| (next() % 41) as f32 - 20.0))
                })
                .collect();
            assert_eq!(
                viterbi(&em, &trans),
                viterbi_every_word(&em, &trans),
                "{em:?}"
            );
        }
    }

    #[test]
    fn a_label_shift_moves_every_open_word() {
        let log2 = 10;
        let w: Vec<f32> = (0..(1 << log2) * LABELS)
            .map(|i| (i % 5) as f32 - 2.0)
            .collect();
        let t = vec![0.0; (LABELS + 1) * LABELS];
        let mut m = Model::from_float(log2, &t, &w);
        let bias = super::super::features::bias_bucket(m.mask());
        let before = m.emission(&[bias, 7]);
        // Toward zero, so the fixed point cannot saturate (it clamps at the largest weight).
        let delta = if m.emission(&[bias])[B_PER as usize] > 0.0 {
            -0.5
        } else {
            0.5
        };
        m.shift_label(B_PER, delta);
        let after = m.emission(&[bias, 7]);
        assert!((after[B_PER as usize] - before[B_PER as usize] - delta).abs() < 1e-3);
        assert_eq!(after[O as usize], before[O as usize]);
        // Without the bias feature nothing moves.
        assert_eq!(
            m.emission(&[7]),
            Model::from_float(log2, &t, &w).emission(&[7])
        );
    }

    #[test]
    fn weights_round_trip_and_reject_garbage() {
        let log2 = 10;
        let w: Vec<f32> = (0..(1 << log2) * LABELS)
            .map(|i| (i % 7) as f32 - 3.0)
            .collect();
        let t: Vec<f32> = (0..(LABELS + 1) * LABELS).map(|i| i as f32).collect();
        let m = Model::from_float(log2, &t, &w);
        let bytes = m.to_bytes();
        let back = Model::from_bytes(&bytes).expect("round trip");
        assert_eq!(back.weights, m.weights);
        assert_eq!(back.trans, t);
        assert_eq!(back.emission(&[3])[0], m.emission(&[3])[0]);
        assert_eq!(Model::from_bytes(b"nope").err(), Some(ModelError::Magic));
        assert_eq!(
            Model::from_bytes(&bytes[..bytes.len() - 1]).err(),
            Some(ModelError::Truncated)
        );
    }
}

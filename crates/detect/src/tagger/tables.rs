//! The tagger's two word tables, derived offline by `scripts/tagger/derive_tables.py` and compiled
//! in: Brown-style word clusters (distributional classes: surnames, towns and given names fall
//! into clusters of their own, which is what lets the tagger judge a word no gazetteer lists) and
//! common-noun forms (a capitalised German noun is the usual false name). Built once, shared.

use std::collections::HashMap;
use std::sync::OnceLock;

static CLUSTERS: &str = include_str!("../../data/tagger/clusters.tsv");
static NOUNS: &str = include_str!("../../data/tagger/nouns.txt");

/// Keys are 64-bit hashes of the word as written (a collision among ~240,000 words and one
/// looked-up word has a probability of about 10^-14), so a lookup touches no string.
type HashKeyed<V> = HashMap<u64, V, nohash_hasher::BuildNoHashHasher<u64>>;

/// Fixed hash of a word form (the tables store hashes, not strings); the lexicon's, so the
/// hash of a word's lowercase form is made once per text.
pub(crate) use crate::lexicon::word_hash;

/// The compiled tables.
pub struct Tables {
    /// Word → cluster path (binary digits after the leading 1 are the path in the tree).
    clusters: HashKeyed<u16>,
    nouns: HashKeyed<()>,
}

fn lines(data: &'static str) -> impl Iterator<Item = &'static str> {
    data.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

impl Tables {
    fn build() -> Tables {
        let mut clusters = HashKeyed::with_capacity_and_hasher(150_000, Default::default());
        for line in lines(CLUSTERS) {
            if let Some((word, c)) = line.split_once('\t') {
                if let Ok(c) = c.trim().parse::<u16>() {
                    clusters.insert(word_hash(word), c);
                }
            }
        }
        let mut nouns = HashKeyed::with_capacity_and_hasher(110_000, Default::default());
        for word in lines(NOUNS) {
            nouns.insert(word_hash(word.trim()), ());
        }
        Tables { clusters, nouns }
    }

    /// The process-wide tables, built on first use.
    pub fn get() -> &'static Tables {
        static TABLES: OnceLock<Tables> = OnceLock::new();
        TABLES.get_or_init(Tables::build)
    }

    /// Cluster of the word as written, 0 when the word is not in the table.
    #[cfg(test)]
    pub fn cluster(&self, word: &str) -> u16 {
        self.cluster_of_hash(word_hash(word))
    }

    /// Cluster of the word whose [`word_hash`] is `h`.
    pub fn cluster_of_hash(&self, h: u64) -> u16 {
        self.clusters.get(&h).copied().unwrap_or(0)
    }

    /// True when the word as written is a common-noun form (`Drehbuch`, `Kosten`, `Juni`).
    pub fn is_noun(&self, word: &str) -> bool {
        self.is_noun_hash(word_hash(word))
    }

    /// [`Tables::is_noun`] of the word whose [`word_hash`] is `h`.
    pub fn is_noun_hash(&self, h: u64) -> bool {
        self.nouns.contains_key(&h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_load_and_answer() {
        let t = Tables::get();
        assert!(t.clusters.len() > 100_000);
        assert!(t.nouns.len() > 50_000);
        // Surnames share a cluster; a noun is in another one.
        assert_ne!(t.cluster("Müller"), 0);
        assert_eq!(t.cluster("Müller"), t.cluster("Schmidt"));
        assert_ne!(t.cluster("Müller"), t.cluster("Haus"));
        assert_eq!(t.cluster("Xqzvbnwrt"), 0);
        assert!(t.is_noun("Drehbuch"));
        assert!(t.is_noun("Kosten"));
        assert!(!t.is_noun("Curtiz"));
        assert!(!t.is_noun("drehbuch"));
    }
}

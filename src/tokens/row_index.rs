//! An index of a list's rows by a key that each row holds: the key is stored once, in its row,
//! and looked up without an owned copy. The token table indexes its rows by type and value, the
//! proxy's collection of a request's values by value.

use std::hash::Hash;

use ahash::RandomState;
use hashbrown::HashTable;

/// Row numbers, hashed by the key `key_of(row)` that every method is given (the same function
/// each time: the index keeps no keys of its own).
#[derive(Debug, Default, Clone)]
pub(crate) struct RowIndex {
    rows: HashTable<usize>,
    hasher: RandomState,
}

impl RowIndex {
    /// The row whose key equals `key`; `Err` with the key's hash (for [`RowIndex::insert`]) when
    /// no row has it.
    pub(crate) fn find<K: Hash + Eq>(
        &self,
        key: K,
        key_of: impl Fn(usize) -> K,
    ) -> Result<usize, u64> {
        let hash = self.hasher.hash_one(&key);
        match self.rows.find(hash, |&r| key_of(r) == key) {
            Some(&row) => Ok(row),
            None => Err(hash),
        }
    }

    /// Adds `row`, whose key [`RowIndex::find`] did not find and hashed to `hash`.
    pub(crate) fn insert<K: Hash>(&mut self, hash: u64, row: usize, key_of: impl Fn(usize) -> K) {
        let hasher = &self.hasher;
        self.rows
            .insert_unique(hash, row, |&r| hasher.hash_one(key_of(r)));
    }

    /// Room for `additional` more rows without growing.
    pub(crate) fn reserve<K: Hash>(&mut self, additional: usize, key_of: impl Fn(usize) -> K) {
        let hasher = &self.hasher;
        self.rows
            .reserve(additional, |&r| hasher.hash_one(key_of(r)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_row_by_its_key_and_nothing_else() {
        let mut words: Vec<String> = Vec::new();
        let mut index = RowIndex::default();
        index.reserve(2, |r| words[r].as_str());
        for w in ["Anna", "Köln", "Anna", "Bonn", "Köln"] {
            if let Err(hash) = index.find(w, |r| words[r].as_str()) {
                words.push(w.to_owned());
                index.insert(hash, words.len() - 1, |r| words[r].as_str());
            }
        }
        assert_eq!(words, ["Anna", "Köln", "Bonn"]);
        for (row, w) in words.iter().enumerate() {
            assert_eq!(index.find(w.as_str(), |r| words[r].as_str()), Ok(row));
        }
        assert!(index.find("anna", |r| words[r].as_str()).is_err());
    }
}

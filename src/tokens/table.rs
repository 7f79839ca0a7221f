use ahash::AHashSet as HashSet;

use serde::Serialize;

use super::reserved::reserved_tokens;
use super::row_index::RowIndex;
use crate::detect::EntityType;

/// One row of the mapping: which token stands for which original value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MappingEntry {
    pub token: String,
    pub entity_type: EntityType,
    pub value: String,
}

/// Assigns tokens to (type, value) pairs. One table per anonymized text (API) or per proxied
/// exchange (proxy), so numbering is consistent across all text fields of one request.
#[derive(Debug, Default, Clone)]
pub struct TokenTable {
    /// Rows of `entries` by (type, value) ([`row_key`]): each value is stored once, in its row,
    /// and a lookup needs no owned key.
    index: RowIndex,
    entries: Vec<MappingEntry>,
    /// The last number issued per type, in order of the type's first token: a request holds a
    /// handful of types, so a scan of this list is cheaper than hashing the type.
    next_number: Vec<(EntityType, u64)>,
    /// Literal tokens present in the input; their numbers are never issued again.
    taken: HashSet<String>,
    /// Numbers of a type not yet in the table start above this (0: from 1).
    floor: u64,
}

impl TokenTable {
    pub fn new() -> TokenTable {
        TokenTable::default()
    }

    /// A table whose numbers start above `floor` (a conversation whose earlier tokens are
    /// unknown numbers its new values where those cannot be).
    pub(crate) fn starting_above(floor: u64) -> TokenTable {
        TokenTable {
            floor,
            ..TokenTable::default()
        }
    }

    /// A table that goes on from `rows` issued before (same value, same token; new values
    /// continue each type's numbering), with the literal tokens `taken` before and the same
    /// `floor`. Rows whose token is no `[[PREFIX_n]]` are left out.
    pub(crate) fn resume(rows: Vec<MappingEntry>, taken: Vec<String>, floor: u64) -> TokenTable {
        let mut table = TokenTable::starting_above(floor);
        table.reserve(rows.len());
        for row in rows {
            let Some(n) = token_number(&row.token) else {
                continue;
            };
            let hash = match table.index.find(
                (row.entity_type, row.value.as_str()),
                row_key(&table.entries),
            ) {
                Ok(_) => continue,
                Err(hash) => hash,
            };
            match table
                .next_number
                .iter_mut()
                .find(|(t, _)| *t == row.entity_type)
            {
                Some((_, last)) => *last = (*last).max(n),
                None => table.next_number.push((row.entity_type, n.max(floor))),
            }
            table.entries.push(row);
            let at = table.entries.len() - 1;
            table.index.insert(hash, at, row_key(&table.entries));
        }
        table.taken.extend(taken);
        table
    }

    /// The literal tokens of the input, whose numbers are skipped.
    pub(crate) fn taken(&self) -> impl Iterator<Item = &str> {
        self.taken.iter().map(String::as_str)
    }

    /// See [`TokenTable::starting_above`].
    pub(crate) fn floor(&self) -> u64 {
        self.floor
    }

    /// Room for `additional` more rows without growing the row list or its index (the proxy
    /// knows a request's values before it issues their tokens).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
        self.index.reserve(additional, row_key(&self.entries));
    }

    /// Marks every literal `[[PREFIX_n]]` in `text` as taken, so new numbers skip them.
    pub(crate) fn reserve_literal_tokens(&mut self, text: &str) {
        for (_, token) in reserved_tokens(text) {
            self.taken.insert(token.to_owned());
        }
    }

    /// Whether `text` holds a literal `[[prefix_n]]`.
    pub(crate) fn holds_token_of(text: &str, prefix: &str) -> bool {
        let open = format!("[[{prefix}_");
        text.match_indices(&open).any(|(i, _)| {
            let rest = &text[i + open.len()..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && rest[digits..].starts_with("]]")
        })
    }

    /// Marks one literal token (e.g. of a policy's own prefix) as taken.
    pub(crate) fn reserve_token(&mut self, token: &str) {
        self.taken.insert(token.to_owned());
    }

    /// The token for `value` of type `entity_type`, issuing a new one on first sight.
    pub(crate) fn token_for(&mut self, entity_type: EntityType, value: &str) -> &str {
        let row = self.row_for(entity_type, value);
        &self.entries[row].token
    }

    /// The row of [`Self::entries`] for `value` of type `entity_type`, issuing a new token on
    /// first sight. Rows never move, so a caller may keep the row instead of looking the value
    /// up again.
    pub(crate) fn row_for(&mut self, entity_type: EntityType, value: &str) -> usize {
        let hash = match self
            .index
            .find((entity_type, value), row_key(&self.entries))
        {
            Ok(row) => return row,
            Err(hash) => hash,
        };
        let token = self.next_token(entity_type);
        self.entries.push(MappingEntry {
            token,
            entity_type,
            value: value.to_owned(),
        });
        let row = self.entries.len() - 1;
        self.index.insert(hash, row, row_key(&self.entries));
        row
    }

    /// Takes `row`, issued by another table, as it is: same value, same token; later numbers of
    /// its type go on above it. `false` (nothing changed) when this table gives the value
    /// another token, or the token stands for another value or was written by the client.
    pub(crate) fn adopt(&mut self, row: &MappingEntry) -> bool {
        let Some(n) = token_number(&row.token) else {
            return false;
        };
        let key = (row.entity_type, row.value.as_str());
        let hash = match self.index.find(key, row_key(&self.entries)) {
            Ok(at) => return self.entries[at].token == row.token,
            Err(hash) => hash,
        };
        if self.taken.contains(&row.token) || self.entries.iter().any(|e| e.token == row.token) {
            return false;
        }
        match self
            .next_number
            .iter_mut()
            .find(|(t, _)| *t == row.entity_type)
        {
            Some((_, last)) => *last = (*last).max(n),
            None => self.next_number.push((row.entity_type, n.max(self.floor))),
        }
        self.entries.push(row.clone());
        let at = self.entries.len() - 1;
        self.index.insert(hash, at, row_key(&self.entries));
        true
    }

    /// Rows in order of issue.
    pub fn entries(&self) -> &[MappingEntry] {
        &self.entries
    }

    pub(crate) fn into_entries(self) -> Vec<MappingEntry> {
        self.entries
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn next_token(&mut self, entity_type: EntityType) -> String {
        let at = match self.next_number.iter().position(|&(t, _)| t == entity_type) {
            Some(at) => at,
            None => {
                self.next_number.push((entity_type, self.floor));
                self.next_number.len() - 1
            }
        };
        let counter = &mut self.next_number[at].1;
        let prefix = entity_type.token_prefix();
        loop {
            *counter += 1;
            // `[[PREFIX_n]]`, written directly: one allocation per token instead of `format!`'s
            // formatting machinery (80 tokens of a dense 2 KB request).
            let mut digits = itoa::Buffer::new();
            let number = digits.format(*counter);
            let mut token = String::with_capacity(prefix.len() + number.len() + 5);
            token.push_str("[[");
            token.push_str(prefix);
            token.push('_');
            token.push_str(number);
            token.push_str("]]");
            if self.taken.is_empty() || !self.taken.contains(&token) {
                return token;
            }
        }
    }
}

/// The `n` of `[[PREFIX_n]]`.
fn token_number(token: &str) -> Option<u64> {
    let inner = token.strip_prefix("[[")?.strip_suffix("]]")?;
    let (_, digits) = inner.rsplit_once('_')?;
    digits.parse().ok()
}

/// The key a row of `entries` is indexed by: its type and value.
fn row_key<'a>(entries: &'a [MappingEntry]) -> impl Fn(usize) -> (EntityType, &'a str) + 'a {
    |r| (entries[r].entity_type, entries[r].value.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_is_per_prefix_and_stable() {
        let mut t = TokenTable::new();
        assert_eq!(t.token_for(EntityType::Person, "Anna"), "[[NAME_1]]");
        assert_eq!(t.token_for(EntityType::Iban, "DE89"), "[[IBAN_1]]");
        assert_eq!(t.token_for(EntityType::Person, "Ben"), "[[NAME_2]]");
        assert_eq!(t.token_for(EntityType::Person, "Anna"), "[[NAME_1]]");
        assert_eq!(t.entries().len(), 3);
    }

    #[test]
    fn adopted_rows_keep_their_tokens_and_numbering_goes_on_above_them() {
        let mut edges = TokenTable::new();
        edges.token_for(EntityType::Person, "Anna");
        edges.token_for(EntityType::Person, "Ben");
        let mut t = TokenTable::starting_above(12_000);
        assert!(edges.entries().iter().all(|row| t.adopt(row)));
        assert_eq!(t.token_for(EntityType::Person, "Ben"), "[[NAME_2]]");
        assert_eq!(t.token_for(EntityType::Person, "Cem"), "[[NAME_12001]]");
        let mut other = TokenTable::new();
        other.token_for(EntityType::Person, "Dora");
        assert!(!other.adopt(&edges.entries()[0]), "NAME_1 is Dora here");
        assert!(other.adopt(&edges.entries()[1]));
        assert_eq!(other.token_for(EntityType::Person, "Emil"), "[[NAME_3]]");
        assert!(other.adopt(&edges.entries()[1]), "the same row again");
    }

    #[test]
    fn same_value_other_type_gets_other_token() {
        let mut t = TokenTable::new();
        let a = t.token_for(EntityType::Person, "Essen").to_owned();
        let b = t.token_for(EntityType::Location, "Essen").to_owned();
        assert_ne!(a, b);
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        let mut t = TokenTable::new();
        for i in 1..=120u32 {
            assert_eq!(
                t.token_for(EntityType::EmailAddress, &format!("v{i}@x.de")),
                format!("[[EMAIL_{i}]]")
            );
        }
    }

    #[test]
    fn a_resumed_table_keeps_old_tokens_and_continues_the_numbering() {
        let mut t = TokenTable::new();
        t.reserve_literal_tokens("[[NAME_3]]");
        t.token_for(EntityType::Person, "Anna");
        t.token_for(EntityType::Person, "Ben");
        t.token_for(EntityType::EmailAddress, "a@x.de");
        let taken = t.taken().map(str::to_owned).collect();
        let mut r = TokenTable::resume(t.entries().to_vec(), taken, t.floor());
        assert_eq!(r.token_for(EntityType::Person, "Ben"), "[[NAME_2]]");
        assert_eq!(
            r.token_for(EntityType::Person, "Cem"),
            "[[NAME_4]]",
            "3 is taken"
        );
        assert_eq!(
            r.token_for(EntityType::EmailAddress, "b@x.de"),
            "[[EMAIL_2]]"
        );
        assert_eq!(r.token_for(EntityType::Iban, "DE89"), "[[IBAN_1]]");
    }

    #[test]
    fn a_floor_moves_every_new_type_above_it() {
        let mut t = TokenTable::starting_above(40_000);
        assert_eq!(t.token_for(EntityType::Person, "Anna"), "[[NAME_40001]]");
        let mut r = TokenTable::resume(t.entries().to_vec(), Vec::new(), t.floor());
        assert_eq!(r.token_for(EntityType::Person, "Ben"), "[[NAME_40002]]");
        assert_eq!(r.token_for(EntityType::Iban, "DE89"), "[[IBAN_40001]]");
    }

    #[test]
    fn literal_tokens_are_skipped() {
        let mut t = TokenTable::new();
        t.reserve_literal_tokens("schon da: [[NAME_1]] und [[NAME_3]]");
        assert_eq!(t.token_for(EntityType::Person, "Anna"), "[[NAME_2]]");
        assert_eq!(t.token_for(EntityType::Person, "Ben"), "[[NAME_4]]");
    }
}

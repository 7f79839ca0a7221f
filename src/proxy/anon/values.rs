//! The values of one request, as the collecting pass found them.

use crate::detect::EntityType;

/// The values of one request in one string (one allocation for all, not one each), with each
/// value's type and byte range, in order of detection.
#[derive(Default)]
pub(super) struct Values {
    text: String,
    pub(super) rows: Vec<(EntityType, usize, usize)>,
}

impl Values {
    pub(super) fn push(&mut self, t: EntityType, v: &str) {
        let start = self.text.len();
        self.text.push_str(v);
        self.rows.push((t, start, self.text.len()));
    }

    /// Value `i` (panics past the end, like an index).
    pub(super) fn get(&self, i: usize) -> (EntityType, &str) {
        let (t, start, end) = self.rows[i];
        (t, &self.text[start..end])
    }

    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (EntityType, &str)> + Clone {
        self.rows
            .iter()
            .map(|&(t, start, end)| (t, &self.text[start..end]))
    }
}

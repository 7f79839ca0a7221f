//! One header or query value, as the detector read it.

use crate::detect::Finding;
use crate::tokens::TokenTable;

/// One header or query value with the detector's findings in it.
pub(crate) struct Text {
    pub(super) text: String,
    pub(super) findings: Vec<Finding>,
}

impl Text {
    /// `text` with every finding replaced by its token from `table`.
    pub(super) fn render(&self, table: &mut TokenTable) -> String {
        table.reserve_literal_tokens(&self.text);
        crate::tokens::anonymize_findings(table, &self.text, &self.findings).0
    }
}

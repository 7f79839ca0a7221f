//! Tokens: the reversible replacement of findings by `[[PREFIX_n]]` and the way back.
//!
//! - [`TokenTable`] assigns tokens: per prefix, numbered in order of first appearance, the same
//!   exact value of the same type always gets the same token, numbers already used by literal
//!   tokens in the input are skipped.
//! - [`anonymize`] turns findings into the API's result (anonymized text, entities, mapping,
//!   stats — `dataLoss` computed by a real round trip).
//! - [`Restorer`] puts values back: only known tokens are replaced, everything else stays.
//!
//! Used by both doors of the process, the REST API and the LLM proxy.

mod anonymize;
mod growth;
pub mod links;
mod reserved;
mod restore;
mod row_index;
mod stream;
mod table;
pub(crate) mod tolerant;

pub use anonymize::{anonymize, anonymize_in, Anonymized, Entity, Stats};
pub(crate) use anonymize::{anonymize_findings, finding_byte_ranges, try_anonymize_in};
pub use reserved::contains_reserved_token;
pub use restore::Restorer;
pub(crate) use row_index::RowIndex;
pub use stream::StreamRestorer;
pub use table::MappingEntry;
pub(crate) use table::TokenTable;
pub use tolerant::TolerantRestorer;

//! The trait a wire format implements, and its per-exchange stream handler.

use std::sync::Arc;

use crate::json::Node;
use crate::proxy::restore::restore_tree;
use crate::tokens::TolerantRestorer;

/// A request a format cannot let through (the message names a field, never content).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatRefusal {
    #[error("`{field}` as token ids cannot be inspected by the privacy proxy; send text")]
    TokenIds { field: &'static str },
}

pub trait WireFormat: Send + Sync {
    fn name(&self) -> &'static str;

    /// The endpoint a POST to `path` (without query) addresses, or `None` when the format does
    /// not know it.
    fn endpoint(&self, path: &str) -> Option<&'static str>;

    /// Fail-closed checks beyond parsing (e.g. token-id prompts that cannot be inspected).
    fn check_request(&self, _endpoint: &str, _root: &Node) -> Result<(), FormatRefusal> {
        Ok(())
    }

    /// Whether a `name` member of an object that sits under `parent` is user text that must
    /// keep the identifier alphabet (OpenAI `messages[].name`).
    fn name_is_identifier_text(&self, _parent: Option<&str>) -> bool {
        false
    }

    /// Whether an object of type `ty` under member `parent` is a kind the format knows. An
    /// unknown content block is walked as free text: every string in it is anonymized.
    fn known_block(&self, _parent: Option<&str>, _ty: &str) -> bool {
        true
    }

    /// A complete error body in the provider's shape (messages never contain request content).
    fn error_body(&self, status: u16, message: &str) -> Node;

    /// An error to write into a stream that has already started, in the stream's own framing
    /// (SSE event or NDJSON line), or `None`.
    fn stream_error(&self, message: &str) -> Option<Node>;

    /// Whether streamed SSE events carry `event:` lines named after their `type`.
    fn named_events(&self, _endpoint: &str) -> bool {
        false
    }

    /// A fresh per-exchange stream handler for `endpoint`.
    fn stream_handler(&self, endpoint: &str) -> Box<dyn StreamHandler>;
}

/// One reply stream's state: per-channel restorers.
pub trait StreamHandler: Send + Sync {
    /// Rewrites one event (SSE data / NDJSON line); pushes it, preceded by any synthetic events
    /// that release held-back text, into `out`.
    fn on_event(&mut self, restorer: &Arc<TolerantRestorer>, ev: Node, out: &mut Vec<Node>);
    /// End of stream (or `[DONE]`, or before an error): release everything held back.
    fn on_end(&mut self, restorer: &Arc<TolerantRestorer>, out: &mut Vec<Node>);

    /// An in-stream `{"error": …}` event ends every channel: held-back text is released first,
    /// then the error passes on with its text restored. Gives the event back when it is no error.
    fn pass_error(
        &mut self,
        restorer: &Arc<TolerantRestorer>,
        mut ev: Node,
        out: &mut Vec<Node>,
    ) -> Option<Node> {
        if ev.get("error").is_none() {
            return Some(ev);
        }
        self.on_end(restorer, out);
        restore_tree(&mut ev, restorer, &[]);
        out.push(ev);
        None
    }
}

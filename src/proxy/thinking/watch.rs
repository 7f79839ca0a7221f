//! The signed thinking blocks of a reply, read as the provider sent them (before restoring):
//! whole in a message, or put together from a stream's `thinking_delta` events and its
//! `signature_delta`, complete at the block's `content_block_stop`.

use crate::json::Node;
use crate::telemetry::{metrics, ThinkingEvent};

/// Bytes of thinking text a kept block may have; a longer one is not kept (sent back, it is
/// anonymized again).
pub(super) const MAX_TEXT_BYTES: usize = 512 * 1024;

/// A thinking block of a stream, open until its stop event.
struct Open {
    index: String,
    /// `None` once over [`MAX_TEXT_BYTES`]: such a block is not kept.
    text: Option<String>,
    signature: String,
}

#[derive(Default)]
pub(crate) struct Watch {
    open: Vec<Open>,
    /// Complete blocks not yet taken: (signature, text).
    done: Vec<(String, String)>,
}

impl Watch {
    /// A whole reply: its `content[]` thinking blocks.
    pub(crate) fn message(&mut self, reply: &Node) {
        let Some(Node::Arr(blocks)) = reply.get("content") else {
            return;
        };
        for block in blocks {
            if block.str_of("type") != Some("thinking") {
                continue;
            }
            if let (Some(text), Some(signature)) =
                (block.str_of("thinking"), block.str_of("signature"))
            {
                self.complete(signature.to_owned(), Some(text.to_owned()));
            }
        }
    }

    /// One event of a stream.
    pub(crate) fn event(&mut self, ev: &Node) {
        let index = || ev.key_of("index").unwrap_or_else(|| "0".into());
        match ev.str_of("type") {
            Some("content_block_start") => {
                let Some(block) = ev.get("content_block") else {
                    return;
                };
                if block.str_of("type") == Some("thinking") {
                    self.open.push(Open {
                        index: index(),
                        text: Some(block.str_of("thinking").unwrap_or("").to_owned()),
                        signature: block.str_of("signature").unwrap_or("").to_owned(),
                    });
                }
            }
            Some("content_block_delta") => {
                let index = index();
                let (Some(open), Some(delta)) = (
                    self.open.iter_mut().find(|o| o.index == index),
                    ev.get("delta"),
                ) else {
                    return;
                };
                match delta.str_of("type") {
                    Some("thinking_delta") => {
                        let piece = delta.str_of("thinking").unwrap_or("");
                        if let Some(text) = &mut open.text {
                            text.push_str(piece);
                            if text.len() > MAX_TEXT_BYTES {
                                open.text = None;
                            }
                        }
                    }
                    Some("signature_delta") => {
                        open.signature
                            .push_str(delta.str_of("signature").unwrap_or(""));
                    }
                    _ => {}
                }
            }
            Some("content_block_stop") => {
                let index = index();
                if let Some(at) = self.open.iter().position(|o| o.index == index) {
                    let open = self.open.remove(at);
                    self.complete(open.signature, open.text);
                }
            }
            _ => {}
        }
    }

    fn complete(&mut self, signature: String, text: Option<String>) {
        if signature.is_empty() {
            return;
        }
        match text {
            Some(text) if text.len() <= MAX_TEXT_BYTES => self.done.push((signature, text)),
            _ => {
                metrics().thinking(ThinkingEvent::too_large);
                tracing::warn!("a thinking block is over its bound and is not kept: sent back, it is anonymized again");
            }
        }
    }

    /// The blocks completed since the last call: (signature, text as signed).
    pub(crate) fn take(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn a_stream_block_is_put_together_from_its_deltas() {
        let mut w = Watch::default();
        let events = [
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"[[NAME_"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"1]] denkt"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
        ];
        for e in events {
            w.event(&json::parse(e).unwrap());
        }
        assert!(w.take().is_empty(), "not complete before its stop");
        w.event(&json::parse(r#"{"type":"content_block_stop","index":0}"#).unwrap());
        assert_eq!(
            w.take(),
            [("sig".to_owned(), "[[NAME_1]] denkt".to_owned())]
        );
        let whole = r#"{"content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"redacted_thinking","data":"x"}]}"#;
        w.message(&json::parse(whole).unwrap());
        assert_eq!(w.take(), [("s".to_owned(), "t".to_owned())]);
    }
}

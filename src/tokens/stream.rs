//! The streaming restorer: one per stream channel (choice, content block, tool call, …).
//! `push` returns what can be released now and holds back only a suffix that could still turn
//! into a token form of this exchange (a few dozen bytes at most); `finish` releases the rest.

use std::sync::Arc;

use super::links::LinkContext;
use super::tolerant::TolerantRestorer;

pub struct StreamRestorer {
    exchange: Arc<TolerantRestorer>,
    pending: String,
    /// The last two bytes released before `pending`, last first (for word boundaries).
    prev: [Option<u8>; 2],
    json_escape: bool,
    /// Where the released text stands: in prose or in a link target.
    links: LinkContext,
    /// Hold the whole channel until it ends (a tool call under `tool_arguments = "no_urls"`).
    hold: bool,
}

impl StreamRestorer {
    /// `json_escape`: the channel carries JSON source text (tool-call argument fragments), so
    /// restored values are escaped for the JSON string they land in, and the route's policy for
    /// tool-call arguments applies ([`StreamRestorer::apply_tool_policy`]).
    pub fn new(exchange: Arc<TolerantRestorer>, json_escape: bool) -> StreamRestorer {
        let links = if json_escape {
            LinkContext::json_source()
        } else {
            LinkContext::default()
        };
        let mut r = StreamRestorer {
            exchange,
            pending: String::new(),
            prev: [None, None],
            json_escape,
            links,
            hold: false,
        };
        if json_escape {
            r.apply_tool_policy();
        }
        r
    }

    /// A channel of a tool call's free-form input (a custom tool's text): a tool argument's
    /// value under the route's policy for tool-call arguments.
    pub fn tool_text(exchange: Arc<TolerantRestorer>) -> StreamRestorer {
        let mut r = StreamRestorer::new(exchange, false);
        r.links = LinkContext::tool_value();
        r.apply_tool_policy();
        r
    }

    /// Under `none` nothing is restored; under `no_urls` the call is held until complete (an
    /// agent acts on it only then), to see every URL it names first.
    fn apply_tool_policy(&mut self) {
        let tools = self.exchange.tool_policy();
        if tools.withholds_all() {
            self.links.withhold();
        } else if !tools.restores_all() {
            self.hold = true;
        }
    }

    pub fn push(&mut self, chunk: &str) -> String {
        if self.hold {
            self.pending.push_str(chunk);
            return String::new();
        }
        let mut out = String::with_capacity(chunk.len() + self.pending.len());
        if self.pending.is_empty() {
            let held = self.exchange.scan(
                chunk,
                self.prev,
                false,
                self.json_escape,
                &mut self.links,
                &mut out,
            );
            self.remember(chunk, held);
            self.pending.push_str(&chunk[held..]);
        } else {
            let mut buf = std::mem::take(&mut self.pending);
            buf.push_str(chunk);
            let held = self.exchange.scan(
                &buf,
                self.prev,
                false,
                self.json_escape,
                &mut self.links,
                &mut out,
            );
            self.remember(&buf, held);
            self.pending.push_str(&buf[held..]);
        }
        out
    }

    /// Releases everything still held back (end of the channel, or of one block of a channel
    /// that goes on: where the text stands is kept).
    pub fn finish(&mut self) -> String {
        let buf = std::mem::take(&mut self.pending);
        if self.hold {
            let tools = self.exchange.tool_policy();
            let allowed = if self.json_escape {
                tools.allows_source(&buf)
            } else {
                tools.allows(std::iter::once(buf.as_str()))
            };
            if !allowed {
                self.links.withhold();
            }
        }
        let mut out = String::with_capacity(buf.len());
        self.exchange.scan(
            &buf,
            self.prev,
            true,
            self.json_escape,
            &mut self.links,
            &mut out,
        );
        self.remember(&buf, buf.len());
        out
    }

    fn remember(&mut self, buf: &str, held: usize) {
        let b = buf.as_bytes();
        match held {
            0 => {}
            1 => self.prev = [Some(b[0]), self.prev[0]],
            _ => self.prev = [Some(b[held - 1]), Some(b[held - 2])],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tolerant::sample_exchange as exchange;

    /// Every split of the text into two and three pieces restores like the whole.
    #[test]
    fn any_split_restores_like_the_whole() {
        let restorer = exchange();
        // `1_EMAIL_1` is no bare form (its `_` follows a word): found by fuzzing, when a
        // split fell right after the `_`
        let text = "Hallo [[NAME_1]], mail [EMAIL_1] oder NAME_1. Ende [[NAME_9]] ü 1_EMAIL_1";
        let whole = restorer.restore(text, false);
        assert!(whole.contains("Zoë \"Z\"") && !whole.contains("[[NAME_1]]"));
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &a in &cuts {
            for &b in cuts.iter().filter(|&&b| b >= a) {
                let mut s = StreamRestorer::new(restorer.clone(), false);
                let mut out = s.push(&text[..a]);
                out += &s.push(&text[a..b]);
                out += &s.push(&text[b..]);
                out += &s.finish();
                assert_eq!(out, whole, "cuts {a} {b}");
            }
        }
    }

    #[test]
    fn holds_only_a_possible_token() {
        let restorer = exchange();
        let mut s = StreamRestorer::new(restorer, true);
        assert_eq!(s.push("{\"to\":\"[["), "{\"to\":\"");
        assert_eq!(s.push("NAME"), "");
        assert_eq!(s.push("_1]]\"}"), "Zoë \\\"Z\\\"\"}");
        assert!(s.pending.is_empty());
        assert_eq!(s.push("plain text. "), "plain text. ");
        assert_eq!(s.finish(), "");
    }
}

//! The responses one socket serves, and which of them a server event belongs to. Responses
//! asked for by `response.create` run one after another: an event belongs to the oldest one not
//! finished. A `response.steer` leaves its table for the response that takes its input: the
//! successor the provider starts on its own (its `response.created` names the steered response
//! as `previous_response_id`), or the client's own `response.create` continuing that response.
//! A response's table is kept sealed under its id once its first event shows it was accepted
//! (anything but `error`), as a 2xx header does over HTTP; the socket also holds the tables of
//! the last responses it served, for a turn that continues one (the provider keeps a
//! `store: false` response for the socket, which nothing sealed was kept for).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::super::conversation::{reply_id, Turn};
use super::super::format::openai::RESPONSES;
use super::super::format::WireFormat;
use super::super::reply::{Framing, ReplyRewriter};
use crate::app::App;
use crate::json::Node;
use crate::tokens::{TokenTable, TolerantRestorer};

/// The server events that end a response.
const LAST: [&str; 4] = [
    "response.completed",
    "response.failed",
    "response.incomplete",
    "error",
];

/// Steered responses whose input a socket holds at once; one more `response.steer` is refused.
pub(super) const MAX_STEERED: usize = 64;
/// Tables of served responses a socket holds; the oldest goes first (a turn continuing it
/// then reads the store).
const MAX_HELD: usize = 64;

/// A response asked for and not yet finished: its restorer and its conversation turn.
pub(super) struct Pending {
    pub reply: ReplyRewriter,
    pub turn: Option<Turn>,
    /// The response it continues (`previous_response_id`).
    pub previous: Option<String>,
    /// The table it was asked for with, held under its id once that is known.
    pub table: Option<TokenTable>,
    /// Its first event was read (the table is kept or dropped by then).
    started: bool,
}

impl Pending {
    pub fn new(reply: ReplyRewriter, turn: Option<Turn>, previous: Option<String>) -> Pending {
        Pending {
            reply,
            turn,
            previous,
            table: None,
            started: false,
        }
    }
}

/// Who a server event belongs to.
enum Owner {
    /// The oldest response not finished.
    Front,
    /// The steer of this response (`response.steer.accepted`, `.pending`, `.failed`).
    Steer(String),
}

pub(super) struct Responses {
    format: &'static dyn WireFormat,
    queue: VecDeque<Pending>,
    /// By the response steered: the response that takes the steer's input.
    steered: HashMap<String, Pending>,
    /// Tables of the responses served, by id, oldest first.
    held: VecDeque<(String, TokenTable)>,
    /// Rows of the handshake: what an event of no known response is restored with.
    handshake: Vec<crate::tokens::MappingEntry>,
}

impl Responses {
    pub fn new(format: &'static dyn WireFormat, handshake: &TokenTable) -> Responses {
        Responses {
            format,
            queue: VecDeque::new(),
            steered: HashMap::new(),
            held: VecDeque::new(),
            handshake: handshake.entries().to_vec(),
        }
    }

    /// A `response.create` sent upstream.
    pub fn asked(&mut self, pending: Pending) {
        self.queue.push_back(pending);
    }

    /// A `response.steer` of `target` sent upstream (a later steer of the same response took
    /// over this one's rows, so it replaces it).
    pub fn steered(&mut self, target: String, pending: Pending) {
        self.steered.insert(target, pending);
    }

    /// The table a turn continuing `id` goes on from, when this socket holds it: a steer's of
    /// that response (the earlier rows and the steer's), else the response's own.
    pub fn table_of(&self, id: &str) -> Option<&TokenTable> {
        let steer = self.steered.get(id).and_then(|p| p.table.as_ref());
        steer.or_else(|| self.held.iter().find(|(h, _)| h == id).map(|(_, t)| t))
    }

    /// Whether a steer of `target` can be held.
    pub fn has_room_for(&self, target: &str) -> bool {
        self.steered.len() < MAX_STEERED || self.steered.contains_key(target)
    }

    /// One server event, restored (with any events releasing held-back text before it).
    pub async fn event(&mut self, app: &App, node: Node, len: usize) -> Vec<Node> {
        let kind = node.str_of("type").unwrap_or("").to_owned();
        let owner = self.owner(&node, &kind);
        if let Owner::Steer(target) = owner {
            if let Some(p) = self.steered.get_mut(&target) {
                return p.reply.message(node, len);
            }
        }
        if self.queue.is_empty() {
            let pending = self.foreign();
            self.queue.push_back(pending);
        }
        let Some(p) = self.queue.front_mut() else {
            return Vec::new();
        };
        if !p.started {
            p.started = true;
            if let Some(turn) = p.turn.as_mut() {
                // an `error` first: the request was refused, nothing is kept
                let status = if kind == "error" { 400 } else { 200 };
                turn.reply_header(app, status).await;
            }
        }
        let id = (kind == "response.created")
            .then(|| reply_id(&node))
            .flatten();
        if let (Some(id), Some(table)) = (id, p.table.take()) {
            if self.held.len() >= MAX_HELD {
                self.held.pop_front();
            }
            self.held.push_back((id.to_owned(), table));
        }
        let Some(p) = self.queue.front_mut() else {
            return Vec::new();
        };
        let last = LAST.contains(&kind.as_str());
        let mut out = p.reply.message(node, len);
        if last {
            let mut tail = p.reply.end();
            let end = out.pop();
            out.append(&mut tail);
            out.extend(end);
        }
        if let (Some(id), Some(turn)) = (p.reply.take_reply_id(), p.turn.as_mut()) {
            turn.reply_id(app, &id);
        }
        if last {
            if let Some(mut done) = self.queue.pop_front() {
                if let Some(turn) = done.turn.as_mut() {
                    turn.finish().await;
                }
            }
        }
        out
    }

    /// Who `node` belongs to; a `response.created` of a steered response's successor puts the
    /// steer's response first.
    fn owner(&mut self, node: &Node, kind: &str) -> Owner {
        if kind.starts_with("response.steer.") {
            let target = node
                .get("steer")
                .and_then(|s| s.str_of("previous_response_id"));
            if let Some(t) = target.filter(|t| self.steered.contains_key(*t)) {
                return Owner::Steer(t.to_owned());
            }
            return Owner::Front;
        }
        if kind != "response.created" {
            return Owner::Front;
        }
        let Some(previous) = node
            .get("response")
            .and_then(|r| r.str_of("previous_response_id"))
        else {
            return Owner::Front;
        };
        let waiting = self.queue.front().filter(|p| !p.started);
        if waiting.is_some_and(|p| p.previous.as_deref() == Some(previous)) {
            // the client's own continuation: it took the steer's rows when it was anonymized
            self.steered.remove(previous);
        } else if let Some(p) = self.steered.remove(previous) {
            self.queue.push_front(p);
        }
        Owner::Front
    }

    /// The restorer of an event of no response sent through here: the handshake's tokens are
    /// restored, any other is foreign (counted as such).
    fn foreign(&self) -> Pending {
        let restorer = Arc::new(TolerantRestorer::new(self.handshake.clone()));
        let reply = ReplyRewriter::new(restorer, self.format, RESPONSES, Framing::Sse);
        Pending::new(reply, None, None)
    }

    /// The socket closes: the writes of responses still running are waited for.
    pub async fn finish(&mut self) {
        let steered = self.steered.drain().map(|(_, p)| p);
        for mut p in self.queue.drain(..).chain(steered) {
            if let Some(turn) = p.turn.as_mut() {
                turn.finish().await;
            }
        }
    }
}

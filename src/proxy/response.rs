//! The reply phases: the rewriter is chosen from the upstream's header
//! (`upstream_response_filter`) and fed the body piece by piece (`response_body_filter`).

use std::sync::Arc;

use bytes::Bytes;
use pingora::http::ResponseHeader;
use pingora::prelude::*;

use super::ctx::RequestCtx;
use super::reply::{Framing, ReplyRewriter};
use crate::app::App;
use crate::tokens::TolerantRestorer;

const UNREADABLE_ENCODING: &str =
    "The upstream reply uses a content encoding the privacy proxy cannot read.";

/// `upstream_response_filter`: the entity count for the client, and — when this exchange
/// issued tokens, a conversation turn wants the reply's id, or signed thinking is kept — the
/// reply's framing from its
/// `Content-Type`. A rewritten reply has no
/// known length: `Content-Length` and the validators of the upstream's bytes go. A reply
/// still compressed (an encoding pingora does not decompress) cannot be restored: it is
/// replaced by a 502 in the provider's error shape.
pub(crate) fn begin(resp: &mut ResponseHeader, ctx: &mut RequestCtx) -> Result<()> {
    let Some(route) = ctx.route.as_ref() else {
        return Ok(());
    };
    resp.insert_header("x-tarnkappe-entities", ctx.entities.to_string())?;
    let watch_id = ctx
        .conversation
        .as_ref()
        .is_some_and(|t| t.wants_reply_id());
    // a signed block is kept even from a reply with nothing to restore: the model may name
    // someone in its thinking that the request never did
    let watch_thinking = ctx.thinking.as_ref().is_some_and(|t| t.watches());
    let watch = watch_id || watch_thinking;
    let restorer = match ctx.exchange.clone() {
        Some(restorer) => restorer,
        None if watch => {
            // nothing to restore yet the id is read; the reply's tokens are counted as foreign
            let restorer = Arc::new(TolerantRestorer::new(Vec::new()));
            ctx.exchange = Some(restorer.clone());
            restorer
        }
        None => return Ok(()),
    };
    let format = route.format;
    let header = |name: &str| resp.headers.get(name).and_then(|v| v.to_str().ok());
    let still_encoded =
        header("content-encoding").is_some_and(|v| !v.trim().eq_ignore_ascii_case("identity"));
    let framing = Framing::from_content_type(header("content-type").unwrap_or(""));
    resp.remove_header("content-length");
    resp.remove_header("etag");
    resp.remove_header("content-md5");
    if still_encoded {
        resp.set_status(502)?;
        resp.remove_header("content-encoding");
        resp.insert_header("content-type", "application/json")?;
        let body = format.error_body(502, UNREADABLE_ENCODING);
        ctx.reply_error = Some(Bytes::from(body.to_bytes()));
        return Ok(());
    }
    let mut reply = ReplyRewriter::new(restorer, format, ctx.endpoint, framing);
    if watch_id {
        reply.watch_reply_id();
    }
    if watch_thinking {
        reply.watch_thinking();
    }
    ctx.reply = Some(reply);
    Ok(())
}

/// `response_body_filter`: what the client receives for this piece of the upstream's body.
/// `None` holds everything back for now (a whole JSON reply waits for its end). The reply's
/// id, once read, goes to the conversation turn.
pub(crate) fn restore(
    app: &App,
    body: &mut Option<Bytes>,
    end_of_stream: bool,
    ctx: &mut RequestCtx,
) {
    if let Some(err) = &ctx.reply_error {
        *body = end_of_stream.then(|| err.clone());
        return;
    }
    let Some(reply) = ctx.reply.as_mut() else {
        return;
    };
    let input = body.take().unwrap_or_default();
    let out = reply.feed(&input, end_of_stream);
    if let (Some(id), Some(turn)) = (reply.take_reply_id(), ctx.conversation.as_mut()) {
        turn.reply_id(app, &id);
    }
    if let Some(thinking) = ctx.thinking.as_mut() {
        for (signature, text) in reply.take_thinking() {
            thinking.block(app, &signature, &text);
        }
    }
    *body = (!out.is_empty()).then(|| Bytes::from(out));
}

/// When the client's writes are held (`slow_clients::hold_writes`), so that what pingora
/// flushes piece by piece leaves in one write. Only a chunked reply qualifies: its last chunk
/// releases what is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hold {
    Never,
    /// From the header on: a reply built whole (a restored JSON or text reply, or the error
    /// that replaces an unreadable one) is chunked only because its length is unknown.
    FromHeader,
    /// From the last piece of a stream on: its last events and the last chunk.
    FromLastPiece,
}

pub(crate) fn hold(resp: &ResponseHeader, ctx: &RequestCtx) -> Hold {
    let chunked = resp
        .headers
        .get(http::header::TRANSFER_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let framing = ctx.reply.as_ref().map(ReplyRewriter::framing);
    match framing {
        _ if !chunked => Hold::Never,
        _ if ctx.reply_error.is_some() => Hold::FromHeader,
        Some(Framing::Json | Framing::Text) => Hold::FromHeader,
        Some(Framing::Sse | Framing::Ndjson) => Hold::FromLastPiece,
        None => Hold::Never,
    }
}

//! The LLM exchange: a request body anonymized on the way up (fail closed), the reply restored on
//! the way down, per wire format. [`crate::gateway`] calls the phases below in the order pingora
//! runs them; the promises kept here are in `docs/proxy.md`.
//!
//! Request side: the whole body is read and rewritten before anything is forwarded, where the
//! client can still be answered in the provider's error shape; only a fully rewritten body is
//! handed upstream. Reply side: the framing is chosen from the upstream's `Content-Type`, and the
//! body is restored event by event.
//!
//! The phases, each in its own module: `prepare` (request checks and the body read), `rewrite`
//! (anonymize-and-store, once, and the body handed upstream), `upstream` (the peer and the
//! upstream request header), `response` (the reply's rewriter and its body), `fail` (every
//! error answer; `refuse` writes them).

pub mod anon;
pub(crate) mod conversation;
pub(crate) mod ctx;
pub(crate) mod edges;
pub(crate) mod embedded;
pub(crate) mod fail;
pub mod format;
pub(crate) mod ndjson;
mod plan;
pub(crate) mod policy;
pub(crate) mod prepare;
pub(crate) mod refuse;
pub mod reply;
pub(crate) mod response;
pub mod restore;
pub(crate) mod rewrite;
pub(crate) mod routes;
mod runs;
pub(crate) mod sse;
pub(crate) mod thinking;
pub(crate) mod upstream;
pub(crate) mod walk;
mod websocket;

pub(crate) use ctx::RequestCtx;

//! Anonymize-and-store, once for both ways a body arrives (read whole in `request_filter`, or
//! accumulated in `request_body_filter`): the body is rewritten under the exchange's policy,
//! checked against the policy's block list, and the token table kept for the reply.

use std::sync::Arc;

use bytes::Bytes;

use super::ctx::RequestCtx;
use super::refuse::Refusal;
use super::routes::Route;
use super::{anon, policy, reply};
use crate::app::App;

/// The body to forward in place of `body`, or why nothing is forwarded. Records the
/// exchange's token table and entity count in `ctx`.
pub(super) fn rewrite(
    app: &App,
    ctx: &mut RequestCtx,
    route: &Route,
    body: Vec<u8>,
) -> Result<Bytes, Refusal> {
    let format = route.format;
    let policy = ctx.policy.as_deref();
    let a = anon::anonymize_body_in(&app.detector, policy, format, ctx.endpoint, &body).map_err(
        |e| {
            tracing::info!(route = %route.prefix, format = format.name(), reason = %e, "request refused");
            Refusal::new(
                400,
                format!("The privacy proxy could not rewrite the request: {e}"),
            )
        },
    )?;
    if let Some(message) = policy.and_then(|p| policy::verdict(p, &a.table)) {
        tracing::info!(route = %route.prefix, format = format.name(), "request blocked by policy");
        return Err(Refusal::new(policy::BLOCKED_STATUS, message));
    }
    ctx.entities = a.count;
    crate::telemetry::record_entities(a.table.entries().iter().map(|m| m.entity_type));
    if !a.table.is_empty() {
        ctx.exchange = Some(Arc::new(reply::exchange_for(a.table.entries(), &body)));
    }
    Ok(match a.body {
        Some(b) => Bytes::from(b),
        None => Bytes::from(body),
    })
}

//! The policy of a proxied exchange: which one applies (the key's, else the route's, else the
//! default) and what a `block` action answers. The refusal names the blocked types found and
//! never a value; it goes out in the provider's error shape before anything is forwarded.

use std::sync::Arc;

use crate::app::App;
use crate::detect::EntityType;
use crate::policy::Policy;
use crate::tokens::TokenTable;

/// The status of a request refused by a policy action (as the REST API's `policy_blocked`).
pub const BLOCKED_STATUS: u16 = 422;

/// The policy for an exchange on the route with `prefix`, by a caller with key `tenant` (on a
/// route that requires a key).
pub fn choose(app: &App, prefix: &str, tenant: Option<&str>) -> Arc<Policy> {
    app.policies.for_exchange(prefix, tenant).clone()
}

/// The refusal message when `policy` blocks a type of the request's findings (`table`), and
/// counts the exchange under the policy's name either way.
pub fn verdict(policy: &Policy, table: &TokenTable) -> Option<String> {
    let message = blocked_message(policy, table.entries().iter().map(|m| m.entity_type));
    crate::telemetry::metrics().policy_applied(&policy.name, message.is_some());
    message
}

/// The refusal message when `policy` blocks a type among `found`, without counting.
pub fn blocked_message(
    policy: &Policy,
    found: impl IntoIterator<Item = EntityType>,
) -> Option<String> {
    let blocked = policy.blocked_among(found);
    if blocked.is_empty() {
        return None;
    }
    Some(format!(
        "The privacy proxy's policy blocks this request: it contains {}.",
        blocked.join(", ")
    ))
}

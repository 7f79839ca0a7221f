//! Who may call, and how often: the API keys ([`KeyRing`]), the caller a request resolves to
//! ([`Caller`], by key or by the web page's cookie) and the admission gate ([`admit`]: 401, then
//! the rate limit's 429). It borrows what it needs from the process state ([`Gate`]), so the API,
//! the proxy and the web page share one gate without depending on each other.

mod admit;
mod caller;
pub mod client;
mod gate;
mod keys;
pub mod web;

pub(crate) use admit::{admit, check_rate, Admitted};
pub(crate) use caller::{Caller, Credential};
pub(crate) use gate::{
    Gate, Refused, RATE_LIMITED_MESSAGE, STORE_UNAVAILABLE_MESSAGE, UNAUTHORIZED_MESSAGE,
};
pub(crate) use keys::{KeyError, KeyRing};
pub(crate) use web::{WebAccess, WebConfigError, COOKIE_NAME};

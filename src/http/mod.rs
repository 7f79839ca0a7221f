//! The HTTP leaf shared by every door: the local endpoint table ([`Local`], [`is_local`]) and
//! complete local responses ([`Reply`], [`send`]). It knows nothing of the API, the proxy or the
//! web page, which all build on it.

mod held;
mod local;
mod reply;

pub use held::HeldWrites;
pub use local::{is_local, template, Local};
pub use reply::{respond_json, send, Reply};

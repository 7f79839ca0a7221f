//! The HTTP pieces shared by every door: complete local responses ([`Reply`], [`send`]) and
//! writes held back from a slow client ([`HeldWrites`]). It knows nothing of the API, the proxy
//! or the web page, which all build on it; the table of local paths is [`crate::endpoints`].

mod declared;
mod held;
mod reply;

pub use declared::Declared;
pub use held::HeldWrites;
pub use reply::{respond_json, send, Reply};

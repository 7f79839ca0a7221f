//! What a socket's messages need of the request that opened it.

use std::sync::Arc;

use pingora::http::RequestHeader;

use super::super::routes::Route;
use crate::tokens::TokenTable;

pub(crate) struct Opening {
    pub route: Arc<Route>,
    pub tenant: Option<String>,
    /// The client's handshake request, as it arrived (its credential binds conversation state).
    pub req: RequestHeader,
    pub policy: Option<Arc<crate::policy::Policy>>,
    pub caller: Option<String>,
    /// The tokens the handshake's headers and query string went upstream with: every message's
    /// table takes them over.
    pub handshake: TokenTable,
}

//! The body plan of a proxied request: decided once, from its declared framing
//! ([`Declared`], the same reading the REST API uses), before anything is read.

use crate::http::Declared;

/// Pingora hands a body read in `request_filter` on to `request_body_filter` only through its
/// retry buffer, which holds 64 KiB. Bodies known to fit are read, rewritten and refused (if
/// need be) before any upstream connection; larger ones are accumulated in
/// `request_body_filter` and rewritten at their end — a refusal then still answers the client
/// and forwards no byte of the body, but the upstream has seen the request line and headers.
const RETRY_BUFFER: usize = 64 * 1024;

/// How the body of a proxied request is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BodyPlan {
    /// Over the byte cap by its `Content-Length`: refused before a byte is read.
    TooLarge,
    /// Known to fit the retry buffer: read whole in `request_filter` and rewritten before any
    /// upstream connection.
    ReadNow { length: usize },
    /// Larger, or of unknown length (chunked): accumulated in `request_body_filter` and
    /// rewritten at its end.
    Deferred { capacity: usize },
}

impl BodyPlan {
    pub fn of(declared: &Declared, cap: usize) -> BodyPlan {
        let cap = u64::try_from(cap).unwrap_or(u64::MAX);
        match declared.length {
            Some(n) if n > cap => BodyPlan::TooLarge,
            Some(n) if n <= RETRY_BUFFER as u64 => BodyPlan::ReadNow {
                length: usize::try_from(n).unwrap_or(RETRY_BUFFER),
            },
            Some(n) => BodyPlan::Deferred {
                capacity: usize::try_from(n).unwrap_or(0),
            },
            None => BodyPlan::Deferred { capacity: 0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(length: Option<u64>, chunked: bool) -> Declared {
        Declared {
            length,
            chunked,
            expects_continue: false,
        }
    }

    #[test]
    fn small_bodies_are_read_now_large_and_chunked_ones_deferred() {
        let cap = 1 << 20;
        assert_eq!(
            BodyPlan::of(&declared(Some(10), false), cap),
            BodyPlan::ReadNow { length: 10 }
        );
        assert_eq!(
            BodyPlan::of(&declared(Some(RETRY_BUFFER as u64 + 1), false), cap),
            BodyPlan::Deferred {
                capacity: RETRY_BUFFER + 1
            }
        );
        assert_eq!(
            BodyPlan::of(&declared(None, true), cap),
            BodyPlan::Deferred { capacity: 0 }
        );
    }

    #[test]
    fn the_cap_is_checked_first_whatever_the_buffer() {
        assert_eq!(
            BodyPlan::of(&declared(Some(2_000), false), 1_000),
            BodyPlan::TooLarge
        );
        assert_eq!(
            BodyPlan::of(&declared(Some(1_000), false), 1_000),
            BodyPlan::ReadNow { length: 1_000 }
        );
    }
}

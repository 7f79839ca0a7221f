//! The access line of a successful request, written without `tracing`'s formatting machinery.
//!
//! `tracing`'s text format records every field through `dyn Debug` and `core::fmt`, which for
//! the 14 fields of one proxied request costs about a tenth of the proxy's own work on it.
//! When the text format is in use (and the line's level is enabled), the same bytes
//! are written here directly: numbers by `itoa`, operator-chosen names quoted as `Debug` would
//! quote them. Other lines, the JSON format and failed requests go through `tracing`.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// Set once the global subscriber writes `tracing`'s text format (without ANSI colours) to
/// stderr; until then (tests, other formats) lines go through `tracing`.
static TEXT_FORMAT: AtomicBool = AtomicBool::new(false);

/// The target `tracing` gives the line: the module that logs it.
pub(super) const TARGET: &str = "tarnkappe::telemetry";

pub(super) fn use_for_text_format() {
    TEXT_FORMAT.store(true, Ordering::Relaxed);
}

/// What the access line of a proxied exchange adds: names and counts, never content.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ExchangeLine {
    /// The wire format's name (`openai`, `anthropic`, …).
    pub format: &'static str,
    /// The endpoint within the format (`chat`, `embeddings`, …), empty when nothing was read.
    pub endpoint: &'static str,
    /// Values replaced in the request.
    pub entities: usize,
    /// Tokens restored in the reply, those restored from a tolerant form, and token forms the
    /// reply held that this exchange never issued.
    pub restored: usize,
    pub tolerant_restores: usize,
    pub unrestored_tokens: usize,
    /// The reply reached its growth bound (see `proxy::reply`).
    pub restore_limited: bool,
    /// For a turn of a conversation kept at the provider: `new`, `found` or `missing`
    /// (see `proxy::conversation`).
    pub conversation_state: Option<&'static str>,
}

/// The fields of one access line, in the order `tracing` writes them.
pub(super) struct RequestLine<'a> {
    pub id: &'a str,
    pub upstream_id: Option<&'a str>,
    pub policy: Option<&'a str>,
    pub method: &'a str,
    pub route: &'a str,
    pub status: u16,
    pub elapsed: Duration,
    pub exchange: Option<&'a ExchangeLine>,
}

/// The line through `tracing` (other formats, failures, and the reference the direct writer is
/// tested against): one macro call per level, because `tracing` fixes a line's fields at
/// compile time; absent (`None`) fields are left out of the line.
macro_rules! request_event {
    ($level:ident, $line:expr, $message:literal $(, $name:ident = $value:expr)*) => {{
        let line: &$crate::telemetry::access_line::RequestLine<'_> = $line;
        let x = line.exchange;
        tracing::$level!(
            target: $crate::telemetry::access_line::TARGET,
            request_id = %line.id,
            upstream_request_id = line.upstream_id,
            method = line.method,
            route = line.route,
            status = line.status,
            policy = line.policy,
            duration_ms = line.elapsed.as_secs_f64() * 1000.0,
            format = x.map(|x| x.format),
            endpoint = x.map(|x| x.endpoint),
            entities = x.map(|x| x.entities),
            restored = x.map(|x| x.restored),
            tolerant_restores = x.map(|x| x.tolerant_restores),
            unrestored_tokens = x.map(|x| x.unrestored_tokens),
            restore_limited = x.map(|x| x.restore_limited),
            conversation_state = x.and_then(|x| x.conversation_state),
            $($name = $value,)*
            $message
        )
    }};
}
pub(super) use request_event;

/// Writes the `INFO` line "request" to stderr when this is the text format and the level is
/// enabled; `false` when the caller must log through `tracing` instead.
pub(super) fn write_request_line(line: &RequestLine<'_>) -> bool {
    if !TEXT_FORMAT.load(Ordering::Relaxed)
        || !tracing::enabled!(target: TARGET, tracing::Level::INFO)
    {
        return false;
    }
    let mut out = Vec::with_capacity(400);
    timestamp(SystemTime::now(), &mut out);
    out.extend_from_slice(b"  INFO ");
    out.extend_from_slice(TARGET.as_bytes());
    out.extend_from_slice(b": request");
    fields(line, &mut out);
    out.push(b'\n');
    // as `tracing`'s writer: one write of the whole line, errors ignored
    let _ = std::io::stderr().write_all(&out);
    true
}

/// Everything after the message: ` name=value` for every present field.
fn fields(line: &RequestLine<'_>, out: &mut Vec<u8>) {
    let x = line.exchange;
    out.extend_from_slice(b" request_id=");
    out.extend_from_slice(line.id.as_bytes());
    if let Some(id) = line.upstream_id {
        quoted(out, " upstream_request_id=", id);
    }
    quoted(out, " method=", line.method);
    quoted(out, " route=", line.route);
    number(out, " status=", line.status as u64);
    if let Some(p) = line.policy {
        quoted(out, " policy=", p);
    }
    // `Debug` of an f64: the shortest representation that reads back the same
    let _ = write!(
        out,
        " duration_ms={:?}",
        line.elapsed.as_secs_f64() * 1000.0
    );
    if let Some(x) = x {
        quoted(out, " format=", x.format);
        quoted(out, " endpoint=", x.endpoint);
        number(out, " entities=", x.entities as u64);
        number(out, " restored=", x.restored as u64);
        number(out, " tolerant_restores=", x.tolerant_restores as u64);
        number(out, " unrestored_tokens=", x.unrestored_tokens as u64);
        out.extend_from_slice(b" restore_limited=");
        out.extend_from_slice(if x.restore_limited { b"true" } else { b"false" });
        if let Some(state) = x.conversation_state {
            quoted(out, " conversation_state=", state);
        }
    }
}

fn number(out: &mut Vec<u8>, name: &str, n: u64) {
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `s` as `{:?}` writes it: printable ASCII without quotes or backslashes as is, anything else
/// through `Debug` itself.
fn quoted(out: &mut Vec<u8>, name: &str, s: &str) {
    out.extend_from_slice(name.as_bytes());
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        let _ = write!(out, "{s:?}");
    }
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds), as `tracing`'s `SystemTime` timer writes
/// it, for years 0 to 9999 (the calendar from `chrono`, already in the tree through pingora).
fn timestamp(now: SystemTime, out: &mut Vec<u8>) {
    use chrono::{Datelike, Timelike};
    let at = chrono::DateTime::<chrono::Utc>::from(now);
    digits(out, at.year().clamp(0, 9999) as u64, 4);
    out.push(b'-');
    digits(out, u64::from(at.month()), 2);
    out.push(b'-');
    digits(out, u64::from(at.day()), 2);
    out.push(b'T');
    digits(out, u64::from(at.hour()), 2);
    out.push(b':');
    digits(out, u64::from(at.minute()), 2);
    out.push(b':');
    digits(out, u64::from(at.second()), 2);
    out.push(b'.');
    // a leap second's nanoseconds run past 10^9; tracing's timer has none
    digits(out, u64::from(at.nanosecond() % 1_000_000_000 / 1000), 6);
    out.push(b'Z');
}

/// `n` in decimal, zero-padded to `width` digits.
fn digits(out: &mut Vec<u8>, n: u64, width: usize) {
    let mut buf = itoa::Buffer::new();
    let s = buf.format(n);
    out.extend(std::iter::repeat_n(b'0', width.saturating_sub(s.len())));
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::UNIX_EPOCH;

    #[test]
    fn timestamps_read_as_tracing_writes_them() {
        for (secs, micros, text) in [
            (0, 0, "1970-01-01T00:00:00.000000Z"),
            (951_782_400, 5, "2000-02-29T00:00:00.000005Z"),
            (1_795_663_133, 729_127, "2026-11-26T03:18:53.729127Z"),
            (4_102_444_799, 999_999, "2099-12-31T23:59:59.999999Z"),
        ] {
            let at = UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_micros(micros);
            let mut out = Vec::new();
            timestamp(at, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
    }

    /// A writer into shared memory, for a `tracing` subscriber under test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What `tracing`'s text format writes after the target for the same fields.
    fn through_tracing(line: &RequestLine<'_>) -> String {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .without_time()
            .finish();
        tracing::subscriber::with_default(subscriber, || request_event!(info, line, "request"));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        text.split_once(": request").unwrap().1.to_owned()
    }

    #[test]
    fn fields_read_as_tracing_writes_them() {
        let exchange = ExchangeLine {
            format: "openai",
            endpoint: "chat",
            entities: 80,
            restored: 2,
            tolerant_restores: 0,
            unrestored_tokens: 1,
            restore_limited: true,
            conversation_state: None,
        };
        let turn = ExchangeLine {
            endpoint: "responses",
            conversation_state: Some("missing"),
            ..exchange
        };
        for (upstream, policy, route, ms, x) in [
            (None, None, "/v1/", 3.5, Some(&turn)),
            (None, None, "/v1/", 0.25, None),
            (
                Some("req_1"),
                Some("default"),
                "/v1/",
                256.063959,
                Some(&exchange),
            ),
            (
                None,
                Some("Zoë \"x\"\\"),
                "{unmatched}",
                1e-7,
                Some(&exchange),
            ),
            (None, None, "/api/v1/session/{id}", 12_345_678.0, None),
        ] {
            let line = RequestLine {
                id: "0123456789abcdef0123456789abcdef",
                upstream_id: upstream,
                policy,
                method: "POST",
                route,
                status: 200,
                elapsed: Duration::from_secs_f64(ms / 1000.0),
                exchange: x,
            };
            let mut out = Vec::new();
            fields(&line, &mut out);
            out.push(b'\n');
            assert_eq!(String::from_utf8(out).unwrap(), through_tracing(&line));
        }
    }
}

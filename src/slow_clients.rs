//! Deadlines for slow clients (slowloris): a client gets a bounded time to send a request's
//! header (here) and its body (enforced where bodies are read: the gateway and the API).
//!
//! Pingora bounds each single read of a downstream connection (60 s), not the whole header: a
//! client sending one byte every few seconds would hold its connection, and a worker's
//! attention, forever. No pingora hook runs before the header is complete, so the header
//! deadline lives in the connection itself: every accepted stream is wrapped in a
//! [`GuardedStream`], whose reads fail once a header has been in progress longer than the
//! configured time. The gateway tells the stream where a request stands ([`header_received`]
//! after the header, [`request_finished`] after the response): between requests on a
//! keep-alive connection no deadline runs, and the next request's first byte starts the next one.

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, LazyLock};
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use pingora::apps::ServerApp;
use pingora::protocols::raw_connect::ProxyDigest;
use pingora::protocols::tls::TlsRef;
use pingora::protocols::{
    GetProxyDigest, GetSocketDigest, GetTimingDigest, Peek, Shutdown, SocketDigest, Ssl, Stream,
    TimingDigest, UniqueID, UniqueIDType, ALPN,
};
use pingora::proxy::Session;
use pingora::server::ShutdownWatch;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::http::HeldWrites;

/// The phase of the request a connection is in.
const HEADER: u8 = 0;
const BUSY: u8 = 1;
const IDLE: u8 = 2;

static EPOCH: LazyLock<Instant> = LazyLock::new(Instant::now);

fn now_ms() -> u64 {
    EPOCH.elapsed().as_millis() as u64
}

/// A service that wraps every accepted connection in a [`GuardedStream`] before handing it to
/// `inner` (the HTTP proxy).
pub struct Guarded<A> {
    inner: Arc<A>,
    header_timeout: Duration,
}

impl<A> Guarded<A> {
    pub fn new(inner: A, header_timeout: Duration) -> Guarded<A> {
        Guarded {
            inner: Arc::new(inner),
            header_timeout,
        }
    }
}

#[async_trait]
impl<A: ServerApp + Send + Sync + 'static> ServerApp for Guarded<A> {
    async fn process_new(
        self: &Arc<Self>,
        stream: Stream,
        shutdown: &ShutdownWatch,
    ) -> Option<Stream> {
        let stream: Stream = if stream.as_any().is::<GuardedStream>() {
            stream
        } else {
            Box::new(GuardedStream::new(stream, self.header_timeout))
        };
        self.inner.process_new(stream, shutdown).await
    }

    async fn cleanup(&self) {
        self.inner.cleanup().await
    }
}

/// A downstream connection whose reads fail (`TimedOut`) once a request header has taken longer
/// than the header timeout.
pub struct GuardedStream {
    inner: Stream,
    phase: AtomicU8,
    /// When the current phase began (milliseconds since [`EPOCH`]).
    since: AtomicU64,
    header_timeout: u64,
    timer: Option<(u64, Pin<Box<tokio::time::Sleep>>)>,
    /// A response built whole is written in one go ([`hold_writes`]).
    held: HeldWrites,
}

impl fmt::Debug for GuardedStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuardedStream")
            .field("inner", &self.inner)
            .field("phase", &self.phase)
            .finish()
    }
}

impl GuardedStream {
    pub fn new(inner: Stream, header_timeout: Duration) -> GuardedStream {
        GuardedStream {
            inner,
            phase: AtomicU8::new(HEADER),
            since: AtomicU64::new(now_ms()),
            header_timeout: header_timeout.as_millis().max(1) as u64,
            timer: None,
            held: HeldWrites::default(),
        }
    }

    fn set_phase(&self, phase: u8) {
        self.since.store(now_ms(), Ordering::Relaxed);
        self.phase.store(phase, Ordering::Relaxed);
    }

    /// `Err` once the header deadline has passed; otherwise arms the timer that wakes the
    /// reader at the deadline.
    fn check_deadline(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if self.phase.load(Ordering::Relaxed) != HEADER {
            self.timer = None;
            return Ok(());
        }
        let deadline = self.since.load(Ordering::Relaxed) + self.header_timeout;
        let now = now_ms();
        if now >= deadline {
            return Err(timed_out());
        }
        let rearm = self.timer.as_ref().is_none_or(|(at, _)| *at != deadline);
        if rearm {
            let at = tokio::time::Instant::now() + Duration::from_millis(deadline - now);
            self.timer = Some((deadline, Box::pin(tokio::time::sleep_until(at))));
        }
        if let Some((_, sleep)) = self.timer.as_mut() {
            if sleep.as_mut().poll(cx).is_ready() {
                return Err(timed_out());
            }
        }
        Ok(())
    }
}

fn timed_out() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the client took too long to send the request header",
    )
}

fn guarded(session: &Session) -> Option<&GuardedStream> {
    session
        .as_downstream()
        .stream()?
        .as_any()
        .downcast_ref::<GuardedStream>()
}

/// The request's header is complete: its deadline is off.
pub fn header_received(session: &Session) {
    if let Some(g) = guarded(session) {
        g.set_phase(BUSY);
    }
}

/// The response is complete: the connection waits for the next request without a deadline;
/// that request's first byte starts its header deadline.
pub fn request_finished(session: &Session) {
    if let Some(g) = guarded(session) {
        g.set_phase(IDLE);
        g.held.stop();
    }
}

/// The response now being written is built whole (its length unknown only because it is
/// rewritten): its header, body and last chunk leave in one write (see [`HeldWrites`]).
pub fn hold_writes(session: &Session) {
    if let Some(g) = guarded(session) {
        g.held.hold();
    }
}

impl AsyncRead for GuardedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Err(e) = this.check_deadline(cx) {
            return Poll::Ready(Err(e));
        }
        // a client that waits for held bytes must get them before it is read from
        ready!(this.held.poll_drain(&mut *this.inner, cx))?;
        let before = buf.filled().len();
        let res = Pin::new(&mut *this.inner).poll_read(cx, buf);
        if matches!(res, Poll::Ready(Ok(())))
            && buf.filled().len() > before
            && this.phase.load(Ordering::Relaxed) == IDLE
        {
            this.set_phase(HEADER);
        }
        res
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.held.poll_write(&mut *this.inner, cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.held.poll_flush(&mut *this.inner, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.held.poll_drain(&mut *this.inner, cx))?;
        Pin::new(&mut *this.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.held.poll_write_vectored(&mut *this.inner, cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[async_trait]
impl Shutdown for GuardedStream {
    async fn shutdown(&mut self) {
        let (held, inner) = (&mut self.held, &mut self.inner);
        // best effort, as the shutdown itself: the connection is closing
        let _ = std::future::poll_fn(|cx| held.poll_drain(&mut **inner, cx)).await;
        self.inner.shutdown().await
    }
}

impl UniqueID for GuardedStream {
    fn id(&self) -> UniqueIDType {
        self.inner.id()
    }
}

impl Ssl for GuardedStream {
    fn get_ssl(&self) -> Option<&TlsRef> {
        self.inner.get_ssl()
    }
    fn get_ssl_digest(&self) -> Option<Arc<pingora::protocols::tls::SslDigest>> {
        self.inner.get_ssl_digest()
    }
    fn selected_alpn_proto(&self) -> Option<ALPN> {
        self.inner.selected_alpn_proto()
    }
}

impl GetTimingDigest for GuardedStream {
    fn get_timing_digest(&self) -> Vec<Option<TimingDigest>> {
        self.inner.get_timing_digest()
    }
    fn get_read_pending_time(&self) -> Duration {
        self.inner.get_read_pending_time()
    }
    fn get_write_pending_time(&self) -> Duration {
        self.inner.get_write_pending_time()
    }
}

impl GetProxyDigest for GuardedStream {
    fn get_proxy_digest(&self) -> Option<Arc<ProxyDigest>> {
        self.inner.get_proxy_digest()
    }
    fn set_proxy_digest(&mut self, digest: ProxyDigest) {
        self.inner.set_proxy_digest(digest)
    }
}

impl GetSocketDigest for GuardedStream {
    fn get_socket_digest(&self) -> Option<Arc<SocketDigest>> {
        self.inner.get_socket_digest()
    }
    fn set_socket_digest(&mut self, digest: SocketDigest) {
        self.inner.set_socket_digest(digest)
    }
}

#[async_trait]
impl Peek for GuardedStream {
    async fn try_peek(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        self.inner.try_peek(buf).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A header dribbled in byte by byte fails at the deadline; after the gateway marks the
    /// header received, the same pace is no longer cut off; an idle connection waits freely
    /// until the next request's first byte.
    #[tokio::test]
    async fn the_header_deadline_runs_only_while_a_header_is_read() {
        let (client, server) = tokio::io::duplex(64);
        let mut g = GuardedStream::new(Box::new(server), Duration::from_millis(150));
        let mut client = client;
        let writer = tokio::spawn(async move {
            for _ in 0..10 {
                if client.write_all(b"G").await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
            client
        });
        let mut buf = [0u8; 8];
        let started = Instant::now();
        let err = loop {
            match g.read(&mut buf).await {
                Ok(0) => panic!("closed early"),
                Ok(_) => continue,
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_millis(400));
        let mut client = writer.await.unwrap();

        g.set_phase(BUSY);
        g.set_phase(IDLE);
        tokio::time::sleep(Duration::from_millis(200)).await;
        client.write_all(b"x").await.unwrap();
        // (what the writer sent after the timeout is still buffered, plus the new byte)
        assert!(g.read(&mut buf).await.unwrap() >= 1, "idle has no deadline");
        assert_eq!(g.phase.load(Ordering::Relaxed), HEADER);
        g.set_phase(BUSY);
        tokio::time::sleep(Duration::from_millis(200)).await;
        client.write_all(b"y").await.unwrap();
        assert!(g.read(&mut buf).await.unwrap() >= 1, "busy has no deadline");
    }
}

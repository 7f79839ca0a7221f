//! One write for a response built whole. Pingora flushes a response header that has no
//! `Content-Length` at once, then every body chunk, then the last chunk: a restored JSON reply
//! (whose length is known only once it is complete) reached the client in three writes, each a
//! loopback send and a wake-up of the client, where the bare pass-through needs one. While
//! [`HeldWrites::hold`] is on, a connection keeps what is written and answers flushes at once;
//! the flush after the last chunk of the response (`0\r\n\r\n`) writes everything in one go and
//! ends the hold. Reading from the connection, shutting it down, or holding more than
//! [`MAX_HELD`] bytes writes out what is held first, so nothing waits on a client that waits.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{ready, Context, Poll};

use tokio::io::AsyncWrite;

/// The last chunk of a chunked body (no trailers: pingora sends none over HTTP/1).
const LAST_CHUNK: &[u8] = b"0\r\n\r\n";
/// Past this, held bytes are written out without waiting for the end of the response.
pub const MAX_HELD: usize = 256 * 1024;

/// The held bytes of one connection and whether the current response is held.
#[derive(Debug, Default)]
pub struct HeldWrites {
    holding: AtomicBool,
    buf: Vec<u8>,
    /// How much of `buf` has been written out already (a release may take several polls).
    written: usize,
}

impl HeldWrites {
    /// Holds this connection's writes until the current response's last chunk is flushed.
    pub fn hold(&self) {
        self.holding.store(true, Ordering::Relaxed);
    }

    /// Ends holding without writing: what is held goes out with the next flush, read or
    /// shutdown.
    pub fn stop(&self) {
        self.holding.store(false, Ordering::Relaxed);
    }

    fn holding(&self) -> bool {
        self.holding.load(Ordering::Relaxed)
    }

    /// `poll_write`: keeps `buf` while holding, else writes it (after anything held).
    pub fn poll_write<W: AsyncWrite + Unpin + ?Sized>(
        &mut self,
        inner: &mut W,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.holding() && self.buf.len() < MAX_HELD {
            self.buf.extend_from_slice(buf);
            return Poll::Ready(Ok(buf.len()));
        }
        ready!(self.poll_release(inner, cx))?;
        Pin::new(inner).poll_write(cx, buf)
    }

    /// `poll_write_vectored`: as [`Self::poll_write`], for several slices.
    pub fn poll_write_vectored<W: AsyncWrite + Unpin + ?Sized>(
        &mut self,
        inner: &mut W,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.holding() && self.buf.len() < MAX_HELD {
            let mut n = 0;
            for b in bufs {
                self.buf.extend_from_slice(b);
                n += b.len();
            }
            return Poll::Ready(Ok(n));
        }
        ready!(self.poll_release(inner, cx))?;
        Pin::new(inner).poll_write_vectored(cx, bufs)
    }

    /// `poll_flush`: answered at once while the response is incomplete; otherwise everything
    /// held is written and flushed, and holding ends.
    pub fn poll_flush<W: AsyncWrite + Unpin + ?Sized>(
        &mut self,
        inner: &mut W,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        if self.holding() {
            if !self.buf.ends_with(LAST_CHUNK) && self.buf.len() < MAX_HELD {
                return Poll::Ready(Ok(()));
            }
            self.stop();
        }
        ready!(self.poll_release(inner, cx))?;
        Pin::new(inner).poll_flush(cx)
    }

    /// Writes out and flushes what is held, if anything (before a read or a shutdown).
    pub fn poll_drain<W: AsyncWrite + Unpin + ?Sized>(
        &mut self,
        inner: &mut W,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        if self.buf.is_empty() {
            return Poll::Ready(Ok(()));
        }
        ready!(self.poll_release(inner, cx))?;
        Pin::new(inner).poll_flush(cx)
    }

    fn poll_release<W: AsyncWrite + Unpin + ?Sized>(
        &mut self,
        inner: &mut W,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        while self.written < self.buf.len() {
            let n = ready!(Pin::new(&mut *inner).poll_write(cx, &self.buf[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.buf.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;

    /// Counts the writes and flushes that reach the connection.
    #[derive(Default)]
    struct Counting {
        data: Vec<u8>,
        writes: usize,
        flushes: usize,
    }

    impl AsyncWrite for Counting {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            self.writes += 1;
            self.data.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.flushes += 1;
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    async fn write(h: &mut HeldWrites, c: &mut Counting, bytes: &[u8]) {
        let n = poll_fn(|cx| h.poll_write(c, cx, bytes)).await.unwrap();
        assert_eq!(n, bytes.len());
    }

    async fn flush(h: &mut HeldWrites, c: &mut Counting) {
        poll_fn(|cx| h.poll_flush(c, cx)).await.unwrap();
    }

    /// A header, a chunk and the last chunk, each flushed as pingora does: one write, one
    /// flush, the bytes unchanged and in order; the next response is not held.
    #[tokio::test]
    async fn a_held_chunked_response_goes_out_in_one_write() {
        let (mut h, mut c) = (HeldWrites::default(), Counting::default());
        h.hold();
        let parts: [&[u8]; 5] = [
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n",
            b"5\r\n",
            b"hallo",
            b"\r\n",
            LAST_CHUNK,
        ];
        for p in parts {
            write(&mut h, &mut c, p).await;
            flush(&mut h, &mut c).await;
        }
        assert_eq!((c.writes, c.flushes), (1, 1));
        assert_eq!(c.data, parts.concat());
        write(&mut h, &mut c, b"next").await;
        flush(&mut h, &mut c).await;
        assert_eq!((c.writes, c.flushes), (2, 2), "not held without hold()");
    }

    /// What is held goes out before a read (drain), and a body that ends like the last chunk
    /// only releases early: nothing is lost or reordered.
    #[tokio::test]
    async fn draining_and_early_release_keep_every_byte() {
        let (mut h, mut c) = (HeldWrites::default(), Counting::default());
        h.hold();
        write(&mut h, &mut c, b"head").await;
        flush(&mut h, &mut c).await;
        assert_eq!(c.writes, 0);
        poll_fn(|cx| h.poll_drain(&mut c, cx)).await.unwrap();
        assert_eq!(c.data, b"head");
        write(&mut h, &mut c, b"data 0\r\n\r\n").await;
        flush(&mut h, &mut c).await;
        write(&mut h, &mut c, b"tail").await;
        flush(&mut h, &mut c).await;
        assert_eq!(c.data, b"headdata 0\r\n\r\ntail");
    }
}

//! The bounded, deadlined body read: at most `cap` bytes, one deadline for the whole body.

use bytes::Bytes;
use http_body_util::BodyExt as _;
use std::pin::pin;
use tokio::time::{timeout_at, Instant};

/// Why a body could not be read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// The body reached `cap + 1` bytes; reading stopped there.
    TooLarge,
    /// The deadline passed before the body ended.
    TimedOut,
    /// The peer reset the stream or sent a malformed body.
    Failed,
}

/// Reads `body` whole, refusing it once it passes `cap` bytes or `deadline` passes.
///
/// One deadline covers every frame, so a drip of tiny frames cannot stretch the read. The
/// buffer grows geometrically but never past `declared` (the Content-Length, when there is
/// one) unless the bytes that arrived need it: nothing is allocated for bytes a client only
/// promised, and a body of the declared size costs one buffer of that size, not the next power
/// of two.
pub(crate) async fn read<B>(
    body: B,
    cap: usize,
    declared: Option<usize>,
    deadline: Instant,
) -> Result<Bytes, BodyError>
where
    B: http_body::Body,
    B::Data: bytes::Buf,
{
    let mut body = pin!(body);
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let frame = match timeout_at(deadline, body.frame()).await {
            Err(_) => return Err(BodyError::TimedOut),
            Ok(None) => return Ok(Bytes::from(buf)),
            Ok(Some(Err(_))) => return Err(BodyError::Failed),
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(mut data) = frame.into_data() {
            use bytes::Buf as _;
            if buf.len() + data.remaining() > cap {
                return Err(BodyError::TooLarge);
            }
            // The usual request: the whole body in its first frame, taken as it is (no copy
            // when hyper's data is already `Bytes`).
            if buf.is_empty() && body.is_end_stream() {
                return Ok(data.copy_to_bytes(data.remaining()));
            }
            let need = buf.len() + data.remaining();
            if need > buf.capacity() {
                let ceiling = declared.unwrap_or(cap).min(cap).max(need);
                let grown = (buf.capacity() * 2).clamp(need, ceiling);
                buf.reserve_exact(grown - buf.len());
            }
            while data.has_remaining() {
                let chunk = data.chunk();
                buf.extend_from_slice(chunk);
                let n = chunk.len();
                data.advance(n);
            }
        }
        // Known to be complete (its declared length reached): no further poll, no further timer.
        if body.is_end_stream() {
            return Ok(Bytes::from(buf));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Frame;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::{Context, Poll};
    use std::time::Duration;

    /// An endless body of fixed-size frames that counts what was pulled from it.
    struct Endless {
        frame: usize,
        pulled: Arc<AtomicUsize>,
    }

    impl http_body::Body for Endless {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            self.pulled.fetch_add(self.frame, Ordering::SeqCst);
            Poll::Ready(Some(Ok(Frame::data(Bytes::from(vec![b' '; self.frame])))))
        }
    }

    #[tokio::test]
    async fn stops_at_cap_plus_one_frame() {
        let pulled = Arc::new(AtomicUsize::new(0));
        let body = Endless {
            frame: 16 * 1024,
            pulled: pulled.clone(),
        };
        let cap = 1024 * 1024;
        let deadline = Instant::now() + Duration::from_secs(5);
        assert_eq!(
            read(body, cap, None, deadline).await,
            Err(BodyError::TooLarge)
        );
        assert!(pulled.load(Ordering::SeqCst) <= cap + 16 * 1024);
    }

    /// A body of given frames that says when it has ended, and counts its polls.
    struct Frames {
        left: std::collections::VecDeque<Bytes>,
        polls: usize,
    }

    impl http_body::Body for Frames {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            self.polls += 1;
            Poll::Ready(self.left.pop_front().map(|b| Ok(Frame::data(b))))
        }
        fn is_end_stream(&self) -> bool {
            self.left.is_empty()
        }
    }

    #[tokio::test]
    async fn a_body_that_has_ended_is_not_polled_again() {
        let deadline = Instant::now() + Duration::from_secs(5);
        for parts in [vec!["{\"a\":1}"], vec!["{\"a\"", ":1", "}"]] {
            let body = Frames {
                left: parts
                    .iter()
                    .map(|p| Bytes::from_static(p.as_bytes()))
                    .collect(),
                polls: 0,
            };
            let mut body = std::pin::pin!(body);
            let got = read(body.as_mut(), 64, None, deadline).await;
            assert_eq!(got.as_deref(), Ok(&b"{\"a\":1}"[..]));
            assert_eq!(
                body.polls,
                parts.len(),
                "one poll per frame, none after the end"
            );
        }
    }

    #[tokio::test]
    async fn exactly_the_cap_is_read_and_one_more_is_not() {
        let deadline = Instant::now() + Duration::from_secs(5);
        let at_cap = http_body_util::Full::new(Bytes::from(vec![b' '; 10]));
        assert_eq!(
            read(at_cap, 10, Some(10), deadline).await.map(|b| b.len()),
            Ok(10)
        );
        let over = http_body_util::Full::new(Bytes::from(vec![b' '; 11]));
        assert_eq!(
            read(over, 10, None, deadline).await,
            Err(BodyError::TooLarge)
        );
    }
}

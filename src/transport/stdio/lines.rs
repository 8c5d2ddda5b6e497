//! Bounded lines: the assembler both line sources share, and the cancel-safe reader over any
//! buffered reader.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// One line read, or the end of the input.
pub(crate) enum Line<'a> {
    /// A complete line, without its newline.
    Frame(&'a [u8]),
    /// A line longer than the limit it carries: its bytes were read and discarded.
    TooLong(usize),
    /// The input ended.
    Eof,
}

/// What [`Assembler::feed`] found at the end of a line.
pub(crate) enum Assembled {
    /// The line is in [`Assembler::line`].
    Frame,
    /// The line was over the limit (its bytes are gone).
    TooLong,
}

/// Builds lines out of chunks, never holding more than `max + 1` bytes of one.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    buf: Vec<u8>,
    overflow: bool,
}

impl Assembler {
    /// Takes bytes from `chunk` up to and including its first newline; returns how many it
    /// took, and what ended when it took a newline.
    pub(crate) fn feed(&mut self, chunk: &[u8], max: usize) -> (usize, Option<Assembled>) {
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !self.overflow {
            let content = &chunk[..if done { take - 1 } else { take }];
            // One byte of slack: a `\r` before the newline is not part of the line.
            if self.buf.len() + content.len() > max.saturating_add(1) {
                self.overflow = true;
                self.buf = Vec::new();
            } else {
                self.buf.extend_from_slice(content);
            }
        }
        (take, done.then(|| self.end(max)))
    }

    /// The input ended: the unterminated last line, if there is one.
    pub(crate) fn finish(&mut self, max: usize) -> Option<Assembled> {
        (self.overflow || !self.buf.is_empty()).then(|| self.end(max))
    }

    fn end(&mut self, max: usize) -> Assembled {
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        if std::mem::take(&mut self.overflow) || self.buf.len() > max {
            self.buf.clear();
            return Assembled::TooLong;
        }
        Assembled::Frame
    }

    /// The line [`Assembled::Frame`] reported.
    pub(crate) fn line(&self) -> &[u8] {
        &self.buf
    }

    /// Forgets the reported line, before the next one is fed.
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
    }
}

/// Lines from a buffered reader. Cancel safe: a line partly read when [`LineReader::next`]
/// is dropped is completed by the next call.
pub(crate) struct LineReader<R> {
    reader: R,
    line: Assembler,
    /// The last call returned a line that must be forgotten first.
    returned: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R) -> Self {
        LineReader {
            reader,
            line: Assembler::default(),
            returned: false,
        }
    }

    /// The next line of at most `max` bytes.
    pub(crate) async fn next(&mut self, max: usize) -> io::Result<Line<'_>> {
        if std::mem::take(&mut self.returned) {
            self.line.clear();
        }
        loop {
            // The only await: between it and `consume`, nothing can be cancelled.
            let chunk = self.reader.fill_buf().await?;
            if chunk.is_empty() {
                return Ok(match self.line.finish(max) {
                    None => Line::Eof,
                    Some(Assembled::TooLong) => Line::TooLong(max),
                    Some(Assembled::Frame) => {
                        self.returned = true;
                        Line::Frame(self.line.line())
                    }
                });
            }
            let (taken, ended) = self.line.feed(chunk, max);
            self.reader.consume(taken);
            match ended {
                None => {}
                Some(Assembled::TooLong) => return Ok(Line::TooLong(max)),
                Some(Assembled::Frame) => {
                    self.returned = true;
                    return Ok(Line::Frame(self.line.line()));
                }
            }
        }
    }

    /// The next line if the reader can give it without waiting (polled once).
    pub(crate) fn ready(&mut self, max: usize) -> Option<io::Result<Line<'_>>> {
        let mut cx = Context::from_waker(Waker::noop());
        match pin!(self.next(max)).poll(&mut cx) {
            Poll::Ready(line) => Some(line),
            Poll::Pending => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Result<Vec<u8>, ()>> {
        let mut a = Assembler::default();
        let mut out = Vec::new();
        // One byte at a time: every split point is a chunk boundary.
        for b in input {
            let (taken, ended) = a.feed(std::slice::from_ref(b), max);
            assert_eq!(taken, 1);
            match ended {
                Some(Assembled::Frame) => {
                    out.push(Ok(a.line().to_vec()));
                    a.clear();
                }
                Some(Assembled::TooLong) => out.push(Err(())),
                None => {}
            }
        }
        match a.finish(max) {
            Some(Assembled::Frame) => out.push(Ok(a.line().to_vec())),
            Some(Assembled::TooLong) => out.push(Err(())),
            None => {}
        }
        out
    }

    #[test]
    fn lines_end_at_newlines_and_the_bound_counts_neither_cr_nor_lf() {
        assert_eq!(
            lines(b"abc\r\nabcd\n\nab", 3),
            vec![Ok(b"abc".to_vec()), Err(()), Ok(vec![]), Ok(b"ab".to_vec())]
        );
        assert_eq!(lines(b"abcd", 3), vec![Err(())]);
        assert_eq!(lines(b"abc\r", 3), vec![Ok(b"abc".to_vec())]);
        assert_eq!(lines(b"", 3), vec![]);
    }

    #[test]
    fn a_whole_chunk_is_taken_up_to_its_first_newline() {
        let mut a = Assembler::default();
        let (taken, ended) = a.feed(b"ab\ncd\n", 8);
        assert_eq!(taken, 3);
        assert!(matches!(ended, Some(Assembled::Frame)));
        assert_eq!(a.line(), b"ab");
    }
}

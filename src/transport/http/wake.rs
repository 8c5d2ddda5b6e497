//! The connection's own waker: a wake-up raised while the connection is being polled becomes one
//! more poll at once instead of a trip through the scheduler.
//!
//! hyper's HTTP/1.1 body channel wakes the connection's task when the service takes the body,
//! and the service takes it inside that same task's poll. Tokio answers a task woken during its
//! own poll by queueing it at the back of the run queue and waking a parked worker to steal it:
//! for every request a futex wake-up of another thread, and often the connection moved to
//! another core for its next poll. Polled through [`Wake`] with folding on, a wake-up that lands
//! while the connection is being polled (its own, or one from another thread at that moment)
//! sends the poller once more round at once, up to [`MAX_ROUNDS`] polls; one that lands between
//! polls goes to the task as before. Folding is on when at least two HTTP requests are in flight
//! in the process as the poll starts (the request this poll may read is not counted yet).
//!
//! A request alone in the server is left to the scheduler's way on purpose. The worker it wakes
//! has nothing else to do, so the wake-up costs only idle time, and an awake worker answers the
//! next request sooner than one asleep. Measured with `tools/ab_http.sh 5 4 1 …` on the 2-core
//! VM the bench runs on, a build that folded every connection's wake-ups answered one
//! connection in twice the time (p50 about 90 µs against 47 µs); under 64 connections folding
//! is what saves the CPU (`tools/ab_http.sh 5 4 64 …`, figures in the CHANGELOG).

use atomic_waker::AtomicWaker;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

const IDLE: u8 = 0;
const POLLING: u8 = 1;
/// Woken while being polled.
const AGAIN: u8 = 2;

/// Polls in a row for wake-ups raised during a poll. Past it the wake-up goes to the scheduler,
/// so that a future that keeps waking itself to yield (hyper does, after 16 rounds of a busy
/// connection) still lets the worker's other tasks run.
const MAX_ROUNDS: usize = 3;

/// One connection's waker, and the task's behind it.
#[derive(Debug)]
pub(crate) struct Wake {
    signal: Arc<Signal>,
    waker: Waker,
}

#[derive(Debug)]
struct Signal {
    state: AtomicU8,
    task: AtomicWaker,
}

impl std::task::Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // During a poll the poller goes round again; otherwise the task is woken. A wake-up
        // that lands just after a poll's end, or between two rounds, finds the task still
        // running and takes tokio's way (queued, a parked worker woken): correct, only slower.
        match self
            .state
            .compare_exchange(POLLING, AGAIN, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) | Err(AGAIN) => {}
            Err(_) => self.task.wake(),
        }
    }
}

impl Wake {
    pub(crate) fn new() -> Wake {
        let signal = Arc::new(Signal {
            state: AtomicU8::new(IDLE),
            task: AtomicWaker::new(),
        });
        Wake {
            waker: Waker::from(signal.clone()),
            signal,
        }
    }

    /// Polls `fut` with this waker; when `fold`, again at once (up to [`MAX_ROUNDS`] polls)
    /// while each poll woke it.
    ///
    /// # Cancel safety
    /// Holds no state of `fut`'s between calls: dropping the caller drops nothing of it.
    pub(crate) fn poll<F: Future>(
        &self,
        mut fut: Pin<&mut F>,
        cx: &mut Context<'_>,
        fold: bool,
    ) -> Poll<F::Output> {
        self.signal.task.register(cx.waker());
        let mut inner = Context::from_waker(&self.waker);
        let rounds = if fold { MAX_ROUNDS } else { 1 };
        for _ in 0..rounds {
            self.signal.state.store(POLLING, Ordering::Release);
            let polled = fut.as_mut().poll(&mut inner);
            let state = self.signal.state.swap(IDLE, Ordering::AcqRel);
            if polled.is_ready() || state != AGAIN {
                return polled;
            }
        }
        // Still waking itself (or not folded): its next poll waits for its turn.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Counts the wake-ups that reach the task.
    struct Count(AtomicUsize);

    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Wakes itself during its first `times` polls, then is ready.
    struct WakesItself {
        times: usize,
        polls: usize,
    }

    impl Future for WakesItself {
        type Output = usize;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            self.polls += 1;
            if self.polls > self.times {
                return Poll::Ready(self.polls);
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    fn task() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        (count, waker)
    }

    /// Polls, once through a fresh [`Wake`], a future that wakes itself during its first
    /// `times` polls: what the poll gave, how often the future was polled, and how many
    /// wake-ups reached the task.
    fn drive(times: usize, fold: bool) -> (Poll<usize>, usize, usize) {
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        let mut fut = std::pin::pin!(WakesItself { times, polls: 0 });
        let polled = Wake::new().poll(fut.as_mut(), &mut cx, fold);
        (polled, fut.polls, count.0.load(Ordering::SeqCst))
    }

    #[test]
    fn a_wake_during_the_poll_is_one_more_poll_not_a_wake_of_the_task() {
        assert_eq!(drive(2, true), (Poll::Ready(3), 3, 0));
    }

    #[test]
    fn a_future_that_keeps_waking_itself_still_yields_to_the_scheduler() {
        // Polled MAX_ROUNDS times, then the task is woken to come back.
        assert_eq!(drive(100, true), (Poll::Pending, MAX_ROUNDS, 1));
    }

    #[test]
    fn unfolded_a_wake_during_the_poll_goes_to_the_task() {
        assert_eq!(drive(2, false), (Poll::Pending, 1, 1));
    }

    #[test]
    fn a_wake_between_polls_reaches_the_task() {
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        let wake = Wake::new();
        let mut fut = std::pin::pin!(std::future::pending::<()>());
        assert_eq!(wake.poll(fut.as_mut(), &mut cx, true), Poll::Pending);
        // Whoever kept the connection's waker (a socket, a timer) wakes it later.
        wake.waker.wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        // Woken once: the registration is spent until the next poll takes the task's waker
        // again, and a second wake-up before that poll adds nothing.
        wake.waker.wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(wake.poll(fut.as_mut(), &mut cx, true), Poll::Pending);
        wake.waker.wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 2);
    }
}

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
//! polls goes to the task as before. Folding is on when the server has other work as the poll
//! starts: at least two HTTP requests in flight in the process (the request this poll may read
//! is not counted yet; the caller says so), or another connection of the process woken between
//! its polls and not polled since ([`WAITING`]; a connection that yields after its rounds is not
//! counted). The second is what a server that answers within the connection's poll shows under
//! load (no runtime: a request is in flight only while it is being polled).
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
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

const IDLE: u8 = 0;
const POLLING: u8 = 1;
/// Woken while being polled.
const AGAIN: u8 = 2;
/// Woken between polls: its task is queued, and counted in [`WAITING`] until its poll starts.
const QUEUED: u8 = 3;
/// Its connection is gone: a late wake-up does nothing.
const CLOSED: u8 = 4;

/// Connections in this process woken between polls whose next poll has not started: other work
/// waiting for a worker. A hint, read relaxed; each connection adds at most one at a time, and
/// takes it back as its poll starts or as it is dropped, whichever comes first.
static WAITING: AtomicUsize = AtomicUsize::new(0);

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
    /// Where a wake-up between polls is counted: [`WAITING`], or a test's own.
    waiting: &'static AtomicUsize,
}

impl std::task::Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // During a poll the poller goes round again; otherwise the task is woken. A wake-up
        // that lands just after a poll's end, or between two rounds, finds the task still
        // running and takes tokio's way (queued, a parked worker woken): correct, only slower.
        // Every answer is a read-modify-write of the state, so that what the waker published
        // before waking is seen by the poll that answers it.
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            let next = match state {
                POLLING | AGAIN => AGAIN,
                // Counted before it is queued: the poll that takes the count back can only
                // follow the exchange, so the count never dips below zero.
                IDLE => {
                    self.waiting.fetch_add(1, Ordering::Relaxed);
                    QUEUED
                }
                // Already queued and counted: the task is woken again, as before, uncounted.
                QUEUED => QUEUED,
                _ => CLOSED,
            };
            match self
                .state
                .compare_exchange(state, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) if next == QUEUED => break,
                Ok(_) => return,
                Err(now) => {
                    if state == IDLE {
                        self.waiting.fetch_sub(1, Ordering::Relaxed);
                    }
                    state = now;
                }
            }
        }
        self.task.wake();
    }
}

impl Signal {
    /// Moves to `to`; a wake-up counted in `waiting` and not yet polled is taken back.
    fn leave(&self, to: u8) -> u8 {
        let was = self.state.swap(to, Ordering::AcqRel);
        if was == QUEUED {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
        }
        was
    }
}

impl Wake {
    pub(crate) fn new() -> Wake {
        Wake::counted_in(&WAITING)
    }

    fn counted_in(waiting: &'static AtomicUsize) -> Wake {
        let signal = Arc::new(Signal {
            state: AtomicU8::new(IDLE),
            task: AtomicWaker::new(),
            waiting,
        });
        Wake {
            waker: Waker::from(signal.clone()),
            signal,
        }
    }

    /// Polls `fut` with this waker; when `busy` (the caller knows of other work) or another
    /// connection is waiting for its poll, again at once (up to [`MAX_ROUNDS`] polls) while
    /// each poll woke it.
    ///
    /// # Cancel safety
    /// Holds no state of `fut`'s between calls: dropping the caller drops nothing of it.
    pub(crate) fn poll<F: Future>(
        &self,
        mut fut: Pin<&mut F>,
        cx: &mut Context<'_>,
        busy: bool,
    ) -> Poll<F::Output> {
        self.signal.task.register(cx.waker());
        let mut inner = Context::from_waker(&self.waker);
        self.signal.leave(POLLING);
        let fold = busy || self.signal.waiting.load(Ordering::Relaxed) > 0;
        let rounds = if fold { MAX_ROUNDS } else { 1 };
        let mut round = 1;
        loop {
            let polled = fut.as_mut().poll(&mut inner);
            let state = self.signal.leave(IDLE);
            if polled.is_ready() || state != AGAIN {
                return polled;
            }
            if round == rounds {
                // Still waking itself (or not folded): its next poll waits for its turn.
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            round += 1;
            // A wake-up that landed between the two rounds is this round's to answer.
            self.signal.leave(POLLING);
        }
    }
}

impl Drop for Wake {
    fn drop(&mut self) {
        // Whoever still holds the waker (a socket's registration, a timer) may wake it later:
        // closed, it counts nothing more, and what it counted is taken back.
        self.signal.leave(CLOSED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Polls, once through a fresh [`Wake`] counted in `waiting` (each test its own: the
    /// process's [`WAITING`] is every connection's), a future that wakes itself during its
    /// first `times` polls: what the poll gave, how often the future was polled, and how many
    /// wake-ups reached the task.
    fn drive(
        times: usize,
        busy: bool,
        waiting: &'static AtomicUsize,
    ) -> (Poll<usize>, usize, usize) {
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        let mut fut = std::pin::pin!(WakesItself { times, polls: 0 });
        let polled = Wake::counted_in(waiting).poll(fut.as_mut(), &mut cx, busy);
        (polled, fut.polls, count.0.load(Ordering::SeqCst))
    }

    #[test]
    fn a_wake_during_the_poll_is_one_more_poll_not_a_wake_of_the_task() {
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        assert_eq!(drive(2, true, &WAITING), (Poll::Ready(3), 3, 0));
    }

    #[test]
    fn a_future_that_keeps_waking_itself_still_yields_to_the_scheduler() {
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        // Polled MAX_ROUNDS times, then the task is woken to come back.
        assert_eq!(drive(100, true, &WAITING), (Poll::Pending, MAX_ROUNDS, 1));
    }

    #[test]
    fn unfolded_a_wake_during_the_poll_goes_to_the_task() {
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        assert_eq!(drive(2, false, &WAITING), (Poll::Pending, 1, 1));
    }

    /// Polls `wake` once with nothing to do, as the task `waker` wakes: a connection waiting
    /// for its socket.
    fn poll_idle(wake: &Wake, waker: &Waker) -> Poll<()> {
        let mut cx = Context::from_waker(waker);
        wake.poll(std::pin::pin!(std::future::pending()), &mut cx, false)
    }

    /// A connection counted in `waiting`, polled once with nothing to do: how often its task
    /// was woken, the task's waker, and the connection's [`Wake`].
    fn parked(waiting: &'static AtomicUsize) -> (Arc<Count>, Waker, Wake) {
        let (count, waker) = task();
        let wake = Wake::counted_in(waiting);
        assert_eq!(poll_idle(&wake, &waker), Poll::Pending);
        (count, waker, wake)
    }

    fn woken(count: &Count) -> usize {
        count.0.load(Ordering::SeqCst)
    }

    #[test]
    fn another_connection_waiting_for_its_poll_turns_folding_on() {
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        let (_, waker, other) = parked(&WAITING);
        // Its socket wakes it; it waits for a worker while this one is polled.
        other.waker.wake_by_ref();
        assert_eq!(WAITING.load(Ordering::SeqCst), 1);
        assert_eq!(drive(2, false, &WAITING), (Poll::Ready(3), 3, 0));
        // Its poll takes it off the count: folding is off again.
        assert_eq!(poll_idle(&other, &waker), Poll::Pending);
        assert_eq!(WAITING.load(Ordering::SeqCst), 0);
        assert_eq!(drive(2, false, &WAITING), (Poll::Pending, 1, 1));
    }

    #[test]
    fn a_connection_is_counted_waiting_once_per_wait_and_never_after_it_is_gone() {
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        let (_, _, wake) = parked(&WAITING);
        wake.waker.wake_by_ref();
        wake.waker.wake_by_ref();
        assert_eq!(WAITING.load(Ordering::SeqCst), 1);
        // Dropped while waiting (its connection ended elsewhere): the count is given back.
        drop(wake);
        assert_eq!(WAITING.load(Ordering::SeqCst), 0);
        // Dropped while registered and idle: a wake-up from whoever still holds its waker (a
        // socket's registration, a timer) counts nothing and reaches no task.
        let (count, _, wake) = parked(&WAITING);
        let late = wake.waker.clone();
        drop(wake);
        late.wake_by_ref();
        assert_eq!(WAITING.load(Ordering::SeqCst), 0);
        assert_eq!(woken(&count), 0);
    }

    #[test]
    fn a_connection_waiting_for_its_own_poll_does_not_fold_it() {
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        let (count, waker, wake) = parked(&WAITING);
        wake.waker.wake_by_ref();
        assert_eq!((WAITING.load(Ordering::SeqCst), woken(&count)), (1, 1));
        // The poll it was woken for takes its count back before looking for other work.
        let mut fut = std::pin::pin!(WakesItself { times: 2, polls: 0 });
        let mut cx = Context::from_waker(&waker);
        assert_eq!(wake.poll(fut.as_mut(), &mut cx, false), Poll::Pending);
        assert_eq!((fut.polls, woken(&count)), (1, 2));
        assert_eq!(WAITING.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_wake_between_polls_reaches_the_task() {
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        let wake = Wake::counted_in(&WAITING);
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

//! Restart intensity: at most `max_restarts` restarts within a sliding `period`.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The restart budget of a supervisor (OTP's `intensity` and `period`).
///
/// A supervisor may restart children `max_restarts` times within any window of
/// `period`; the restart after that makes it give up and fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intensity {
    /// Restarts allowed within one period.
    pub max_restarts: u32,
    /// The length of the sliding window.
    pub period: Duration,
}

impl Default for Intensity {
    /// Three restarts in five seconds.
    fn default() -> Self {
        Intensity {
            max_restarts: 3,
            period: Duration::from_secs(5),
        }
    }
}

/// The restarts of the current window, oldest first.
#[derive(Debug)]
pub(crate) struct RestartWindow {
    limit: Intensity,
    recent: VecDeque<Instant>,
}

impl RestartWindow {
    pub(crate) fn new(limit: Intensity) -> Self {
        RestartWindow {
            limit,
            recent: VecDeque::new(),
        }
    }

    /// Records a restart at `now`; `false` when it exceeds the budget.
    pub(crate) fn record(&mut self, now: Instant) -> bool {
        self.forget_before(now);
        self.recent.push_back(now);
        self.recent.len() <= self.limit.max_restarts as usize
    }

    /// Restarts counted in the window ending at `now`.
    pub(crate) fn in_window(&mut self, now: Instant) -> usize {
        self.forget_before(now);
        self.recent.len()
    }

    fn forget_before(&mut self, now: Instant) {
        while let Some(&oldest) = self.recent.front() {
            if now.saturating_duration_since(oldest) >= self.limit.period {
                self.recent.pop_front();
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(max_restarts: u32, secs: u64) -> RestartWindow {
        RestartWindow::new(Intensity {
            max_restarts,
            period: Duration::from_secs(secs),
        })
    }

    #[test]
    fn n_restarts_fit_the_n_plus_first_does_not() {
        let t0 = Instant::now();
        let mut w = window(3, 5);
        for i in 0..3 {
            assert!(w.record(t0 + Duration::from_millis(i * 10)));
        }
        assert!(!w.record(t0 + Duration::from_millis(40)));
    }

    #[test]
    fn old_restarts_leave_the_window() {
        let t0 = Instant::now();
        let mut w = window(2, 5);
        assert!(w.record(t0));
        assert!(w.record(t0 + Duration::from_secs(1)));
        assert_eq!(w.in_window(t0 + Duration::from_secs(5)), 1);
        assert!(w.record(t0 + Duration::from_secs(5)));
        assert!(!w.record(t0 + Duration::from_secs(5)));
    }

    #[test]
    fn zero_budget_refuses_the_first_restart() {
        let mut w = window(0, 5);
        assert!(!w.record(Instant::now()));
    }
}

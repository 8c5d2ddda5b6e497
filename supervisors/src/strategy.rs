//! Restart strategies and which children a failure touches.

use std::fmt;
use std::ops::Range;

/// What a supervisor restarts when one child must be restarted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Only the child that exited.
    OneForOne,
    /// The child that exited and every child started after it.
    RestForOne,
    /// Every child.
    OneForAll,
}

impl Strategy {
    /// The positions (in start order) of the children restarted when the child at
    /// `failed` must be restarted, among `len` children. A `failed` past `len`
    /// yields an empty range.
    #[must_use]
    pub fn affected(self, failed: usize, len: usize) -> Range<usize> {
        let failed = failed.min(len);
        match self {
            Strategy::OneForOne => failed..(failed + 1).min(len),
            Strategy::RestForOne => failed..len,
            Strategy::OneForAll => 0..len,
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::OneForOne => "one_for_one",
            Strategy::RestForOne => "rest_for_one",
            Strategy::OneForAll => "one_for_all",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(Strategy::OneForOne.affected(1, 3), 1..2);
        assert_eq!(Strategy::RestForOne.affected(1, 3), 1..3);
        assert_eq!(Strategy::OneForAll.affected(1, 3), 0..3);
        assert_eq!(Strategy::OneForOne.affected(5, 3), 3..3);
    }
}

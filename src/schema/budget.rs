//! The work one validation may do.

use std::fmt;

/// A bound on the work of validating one instance against a general (JSON Schema 2020-12)
/// schema, counted in steps: one per subschema applied to a value, one per array item or object
/// member visited, and one per 64 bytes of a string compared, measured or matched against a
/// pattern.
///
/// Validation is linear in the instance whatever schema the host declares (`ARCHITECTURE.md`,
/// "Bounded validation"); the budget is the second line: a request that would take more steps is
/// refused with a [`Violation`](super::Violation) whose keyword is `budget`, at once, instead of
/// occupying a worker. The subset validator needs none: it visits each value of the instance at
/// most once.
///
/// ```
/// use beam_mcp::schema::{Budget, Schema};
/// use serde_json::json;
///
/// let schema = Schema::compile(&json!({"type": "array", "items": {"enum": [1, 2, 3]}}))?;
/// let mut budget = Budget::new(1_000);
/// schema.validate_within(&json!([1, 2, 3]), &mut budget).unwrap();
/// assert!(budget.used() > 0);
///
/// let mut tight = Budget::new(5);
/// let v = schema.validate_within(&json!([1, 2, 3, 1, 2, 3]), &mut tight).unwrap_err();
/// assert_eq!(v.keyword(), "budget");
/// # Ok::<(), beam_mcp::schema::SchemaError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    /// The budget of one request unless the host sets another: 4,194,304 steps. A valid
    /// cap-sized (1 MiB) request against the schemas of `benches/schema_validate.rs` takes at
    /// most a third of it (`cargo bench --bench schema_validate`, the `steps` lines).
    pub const DEFAULT_STEPS: u64 = 1 << 22;

    /// A budget of `steps`.
    pub const fn new(steps: u64) -> Budget {
        Budget {
            limit: steps,
            used: 0,
        }
    }

    /// The steps this budget allows in all.
    pub const fn limit(&self) -> u64 {
        self.limit
    }

    /// The steps spent so far.
    pub const fn used(&self) -> u64 {
        self.used
    }

    /// The steps left.
    pub(crate) const fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    pub(crate) fn spend(&mut self, steps: u64) {
        self.used = self.used.saturating_add(steps);
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(Budget::DEFAULT_STEPS)
    }
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Budget({} of {} steps)", self.used, self.limit)
    }
}

//! A completion: what `completion/complete` answers with.

use serde::Serialize;

/// The most values one `completion/complete` result carries (the specification's bound).
/// A completer that returns more is cut to this many, with `hasMore: true` and `total` at least
/// the number it returned.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What a completer answers: the suggested values, best first.
///
/// ```
/// use beam_mcp::catalog::Completion;
/// let c = Completion::new(["Oslo", "Osaka"]).with_total(2);
/// assert_eq!(c.total(), Some(2));
/// assert_eq!(c.values(), ["Oslo", "Osaka"]);
/// ```
///
/// The wire form of `completion`: `values`, then `total` when known, and `hasMore`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    values: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    has_more: bool,
}

impl Completion {
    /// The suggested values (at most [`MAX_COMPLETION_VALUES`] are sent).
    pub fn new<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        Completion {
            values: values.into_iter().map(Into::into).collect(),
            total: None,
            has_more: false,
        }
    }

    /// How many values exist in all, which may exceed those returned.
    #[must_use]
    pub fn with_total(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Whether more values exist than those returned, even if their number is unknown.
    #[must_use]
    pub fn with_has_more(mut self, more: bool) -> Self {
        self.has_more = more;
        self
    }

    /// The values, in order.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// The total, if given.
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// Whether more values exist.
    pub fn has_more(&self) -> bool {
        self.has_more
    }

    /// Cut to [`MAX_COMPLETION_VALUES`]: what was cut is counted in `total` and `hasMore`.
    pub(crate) fn bounded(mut self) -> Self {
        let returned = self.values.len();
        if returned > MAX_COMPLETION_VALUES {
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.has_more = true;
            let returned = u64::try_from(returned).unwrap_or(u64::MAX);
            self.total = Some(self.total.map_or(returned, |t| t.max(returned)));
        }
        self
    }
}

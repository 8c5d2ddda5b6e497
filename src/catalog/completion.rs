//! Argument completion: the one completer behind `completion/complete`.
//!
//! A host that gives its [`Catalog`](super::Catalog) a [`Completer`] gets the `completions`
//! capability and the `completion/complete` method, at both revisions. The server refuses,
//! before the completer runs, a reference to a prompt or resource template the catalog does
//! not list and an argument the prompt does not declare (or a variable the template does not
//! name); what reaches the completer is keyed by the catalog's own names.

use crate::dispatch::CallContext;
use crate::schema::Arguments;
use crate::BoxFuture;
use serde::ser::SerializeMap as _;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

/// The most values one `completion/complete` result carries (the specification's bound).
/// A completer that returns more is cut to this many, with `hasMore: true` and `total` at least
/// the number it returned.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What is being completed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CompletionRef {
    /// An argument of a listed prompt (`ref/prompt`): the prompt's name.
    Prompt(Arc<str>),
    /// A variable of a listed resource template (`ref/resource`): the uri template.
    ResourceTemplate(Arc<str>),
}

impl CompletionRef {
    /// The prompt's name, or the template's uri template.
    pub fn as_str(&self) -> &str {
        match self {
            CompletionRef::Prompt(s) | CompletionRef::ResourceTemplate(s) => s,
        }
    }
}

/// One validated `completion/complete` request, as the completer receives it.
///
/// `#[non_exhaustive]`: read its fields; the server builds it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The prompt or template, by the catalog's own name.
    pub target: CompletionRef,
    /// The argument (or template variable) being completed: the catalog's own `Arc`, not the
    /// caller's string.
    pub argument: Arc<str>,
    /// The caller's partial value. Owned by this request; the server keeps nothing of it.
    pub value: String,
    /// The values the caller has already resolved for the other arguments (the request's
    /// `context.arguments`), keyed by the catalog's own names; names the prompt or template
    /// does not declare are dropped. Each value is a JSON string.
    pub arguments: Arguments,
    /// Where the request came from, and what the host attached to it.
    pub context: CallContext,
}

/// What a completer answers: the suggested values, best first.
///
/// ```
/// use beam_mcp::catalog::Completion;
/// let c = Completion::new(["Oslo", "Osaka"]).with_total(2);
/// assert_eq!(c.total(), Some(2));
/// assert_eq!(c.values(), ["Oslo", "Osaka"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    values: Vec<String>,
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

/// The wire form of `completion`: `values`, then `total` and `hasMore` when known.
impl serde::Serialize for Completion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("values", &self.values)?;
        if let Some(t) = self.total {
            m.serialize_entry("total", &t)?;
        }
        m.serialize_entry("hasMore", &self.has_more)?;
        m.end()
    }
}

/// A completer's refusal; the reason travels to the client as -32602 data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompleteError {
    reason: String,
}

impl CompleteError {
    /// A refusal with a reason the client may see.
    pub fn new(reason: impl Into<String>) -> Self {
        CompleteError {
            reason: reason.into(),
        }
    }
    /// The reason.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for CompleteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "completion refused: {}", self.reason)
    }
}

impl std::error::Error for CompleteError {}

/// The one completer behind `completion/complete`, called only for a listed prompt's declared
/// argument or a listed template's variable.
///
/// Implemented for every `Fn(CompletionRequest) -> impl Future<Output = Result<Completion,
/// CompleteError>>`.
///
/// # Cancel safety
/// The future may be dropped before completion when the connection it serves goes away.
pub trait Completer: Send + Sync + 'static {
    /// Suggests values for `request.argument`.
    fn complete(&self, request: CompletionRequest) -> BoxFuture<Result<Completion, CompleteError>>;
}

impl<F, Fut> Completer for F
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Completion, CompleteError>> + Send + 'static,
{
    fn complete(&self, request: CompletionRequest) -> BoxFuture<Result<Completion, CompleteError>> {
        Box::pin(self(request))
    }
}

pub(crate) type SharedCompleter = Arc<dyn Completer>;

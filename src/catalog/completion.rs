//! Argument completion: the one completer behind `completion/complete`.
//!
//! A host that gives its [`Catalog`](super::Catalog) a [`Completer`] gets the `completions`
//! capability and the `completion/complete` method, at both revisions. The server refuses,
//! before the completer runs, a reference to a prompt or resource template the catalog does
//! not list and an argument the prompt does not declare (or a variable the template does not
//! name); what reaches the completer is keyed by the catalog's own names.

use crate::dispatch::CallContext;
use crate::model::Completion;
use crate::schema::Arguments;
use crate::BoxFuture;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

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

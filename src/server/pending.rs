//! Host work the core hands back to a transport: a tool call, a read, a rendering.

use super::cancel::CancelOnDrop;
use super::inner::Inner;
use super::refusals::{not_found, refused_tool_arguments, unserved_reply};
use super::reply::Reply;
use crate::catalog::{Completer, CompletionRequest, PromptRenderer, ResourceReader};
use crate::dispatch::{CallContext, CancellationToken, Carrier, ToolCall, ToolError, ToolOutput};
use crate::metrics;
use crate::model::result::{CallToolResult, CompleteResult, ReadResourceResult};
use crate::model::Content;
use crate::otel::RequestSpan;
use crate::protocol::outcome::{Outcome, Unserved};
use crate::protocol::{Cacheable, RequestId, Revision, RpcError};
use crate::schema::{Arguments, Budget, Schema};
use serde_json::{json, Value};
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tracing::Instrument as _;

pub(super) enum Work {
    /// A tool call whose arguments a general schema has yet to check: validated first, under
    /// the server's budget, where the host work runs.
    Unchecked {
        tool: Arc<str>,
        arguments: Value,
        context: CallContext,
    },
    /// A validated call. The tool's output schema (a successful result is checked against it)
    /// and its metric series are read in the snapshot the work holds, under `call.tool`.
    Tool { call: ToolCall },
    Read {
        reader: Arc<dyn ResourceReader>,
        uri: String,
        context: CallContext,
    },
    Render {
        renderer: Arc<dyn PromptRenderer>,
        name: String,
        arguments: Arguments,
        context: CallContext,
    },
    Complete {
        completer: Arc<dyn Completer>,
        request: CompletionRequest,
    },
}

/// Host work a request needs before it can be answered. [`Pending::run`] does it.
///
/// Dropped without being run to its end (its caller cancelled it or went away), it fires the
/// call's [`CallContext::cancellation`] token and counts a cancellation.
#[must_use]
pub struct Pending {
    inner: Arc<Inner>,
    id: RequestId,
    revision: Revision,
    work: Work,
    cancel: CancelOnDrop,
}

impl fmt::Debug for Pending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.work {
            Work::Unchecked { .. } | Work::Tool { .. } => {
                format!("tool {}", self.tool().unwrap_or("?"))
            }
            Work::Read { uri, .. } => format!("read {uri}"),
            Work::Render { name, .. } => format!("prompt {name}"),
            Work::Complete { request, .. } => {
                format!(
                    "complete {} of {}",
                    request.argument,
                    request.target.as_str()
                )
            }
        };
        f.debug_struct("Pending")
            .field("id", &self.id)
            .field("work", &kind)
            .finish()
    }
}

/// Polls a host future, turning a panic into an error value instead of unwinding into the
/// transport.
struct Guarded<F>(F);

/// Calls a host function that returns a future; a panic raised before the future exists is
/// caught like one raised while it runs.
pub(crate) async fn guarded<T>(make: impl FnOnce() -> crate::BoxFuture<T>) -> Result<T, ()> {
    match std::panic::catch_unwind(AssertUnwindSafe(make)) {
        Ok(fut) => Guarded(fut).await,
        Err(_) => Err(()),
    }
}

impl<F: Future + Unpin> Future for Guarded<F> {
    type Output = Result<F::Output, ()>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let fut = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(&mut *fut).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(_) => Poll::Ready(Err(())),
        }
    }
}

impl Pending {
    pub(super) fn new(inner: Arc<Inner>, id: RequestId, revision: Revision, work: Work) -> Self {
        let context = match &work {
            Work::Unchecked { context, .. }
            | Work::Read { context, .. }
            | Work::Render { context, .. } => context,
            Work::Tool { call, .. } => &call.context,
            Work::Complete { request, .. } => &request.context,
        };
        let cancel = CancelOnDrop::new(context.cancellation.clone(), context.carrier);
        Pending {
            inner,
            id,
            revision,
            work,
            cancel,
        }
    }

    /// The same work, run in the request's `span` and answered on it.
    pub(super) fn traced(mut self, span: RequestSpan) -> Self {
        self.cancel.trace(span);
        self
    }

    /// The request's span: whoever answers the work without it (the pool's deadline) records
    /// that answer here.
    pub(crate) fn span(&self) -> &RequestSpan {
        self.cancel.span()
    }

    /// The call's cancellation token: whoever drops the work for a reason other than its
    /// caller (the pool's deadline) fires it first, so the drop is not counted as a
    /// cancellation.
    pub(crate) fn cancellation(&self) -> &CancellationToken {
        self.cancel.token()
    }

    /// The request id this work answers.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The tool this work calls, when it is a tool call.
    pub fn tool(&self) -> Option<&str> {
        match &self.work {
            Work::Tool { call, .. } => Some(&call.tool),
            Work::Unchecked { tool, .. } => Some(tool),
            _ => None,
        }
    }

    /// The reply for a request whose host work could not be run at all (an overloaded pool,
    /// an expired deadline, a connection stopping): -32603 with the reason as `data.reason`,
    /// its [`Outcome`] a refusal whose [`crate::Refused::reason`] is `reason`.
    pub fn unserved(self, reason: Unserved) -> Reply {
        let Pending { id, cancel, .. } = self;
        let reply = unserved_reply(&id, reason);
        reply.end_span(cancel.span());
        cancel.disarm();
        reply
    }

    /// Runs the host work and encodes its answer. A host panic is caught: a tool's panic is
    /// answered as a tool error, a reader's or renderer's as an internal error; the detail
    /// goes to the log only.
    ///
    /// # Cancel safety
    /// Dropping this future drops the host's future and fires the call's
    /// [`CallContext::cancellation`] token: the request is cancelled, and nothing answers it.
    pub async fn run(self) -> Reply {
        self.run_observed().await.0
    }

    /// [`Pending::run`], also saying whether the host panicked (the dispatch pool replaces a
    /// worker whose host code panicked).
    pub(crate) async fn run_observed(self) -> (Reply, HostOutcome) {
        let Pending {
            inner,
            id,
            revision,
            work,
            cancel,
        } = self;
        let span = cancel.span().clone();
        let work = async {
            match work {
                Work::Unchecked {
                    tool,
                    arguments,
                    context,
                } => match checked(&inner, &id, revision, &tool, arguments, context) {
                    Ok(call) => run_tool(&inner, &id, revision, call).await,
                    Err(refusal) => (refusal, HostOutcome::Returned),
                },
                Work::Tool { call } => run_tool(&inner, &id, revision, call).await,
                Work::Read {
                    reader,
                    uri,
                    context,
                } => {
                    let got = guarded(|| reader.read(&uri, &context)).await;
                    let host = HostOutcome::of(&got);
                    let reply = match got {
                        Ok(Ok(contents)) => {
                            let hint = inner.viewed_cache_hint(Cacheable::Resources);
                            let result = ReadResourceResult {
                                contents: &contents,
                                cache: revision.is_modern().then(|| hint.members()),
                            };
                            Reply::result(inner.envelope.encode(&id, revision, &result))
                        }
                        Ok(Err(e)) => {
                            Reply::error(Some(&id), not_found(revision, &uri, Some(e.reason())))
                        }
                        Err(()) => {
                            tracing::error!(%uri, "resource reader panicked");
                            Reply::error(Some(&id), RpcError::internal())
                        }
                    };
                    (reply, host)
                }
                Work::Render {
                    renderer,
                    name,
                    arguments,
                    context,
                } => {
                    let got = guarded(|| renderer.render(&name, arguments, &context)).await;
                    let host = HostOutcome::of(&got);
                    let reply = match got {
                        // A rendering is its own `GetPromptResult`.
                        Ok(Ok(rendered)) => {
                            Reply::result(inner.envelope.encode(&id, revision, &rendered))
                        }
                        Ok(Err(e)) => Reply::error(
                            Some(&id),
                            RpcError::invalid_params(
                                "Prompt could not be rendered",
                                json!({ "name": name, "reason": e.reason() }),
                            ),
                        ),
                        Err(()) => {
                            tracing::error!(prompt = %name, "prompt renderer panicked");
                            Reply::error(Some(&id), RpcError::internal())
                        }
                    };
                    (reply, host)
                }
                Work::Complete { completer, request } => {
                    let argument = request.argument.clone();
                    let target = request.target.clone();
                    let got = guarded(|| completer.complete(request)).await;
                    let host = HostOutcome::of(&got);
                    let reply = match got {
                        Ok(Ok(completion)) => {
                            let body = CompleteResult {
                                completion: completion.bounded(),
                            };
                            Reply::result(inner.envelope.encode(&id, revision, &body))
                        }
                        Ok(Err(e)) => Reply::error(
                            Some(&id),
                            RpcError::invalid_params(
                                "Completion refused",
                                json!({ "argument": &*argument, "reason": e.reason() }),
                            ),
                        ),
                        Err(()) => {
                            tracing::error!(target = target.as_str(), %argument, "completer panicked");
                            Reply::error(Some(&id), RpcError::internal())
                        }
                    };
                    (reply, host)
                }
            }
        };
        let ended = span.around(work).await;
        ended.0.end_span(&span);
        cancel.disarm();
        ended
    }
}

/// Calls the host's dispatch with a validated call, holds a successful result to the tool's
/// output schema, counts it, and encodes the answer.
async fn run_tool(
    inner: &Inner,
    id: &RequestId,
    revision: Revision,
    call: ToolCall,
) -> (Reply, HostOutcome) {
    let Some(entry) = inner.catalog.tool(&call.tool) else {
        return (
            Reply::error(Some(id), RpcError::internal()),
            HostOutcome::Returned,
        );
    };
    // The tool's own handler, else the catalog's one dispatch function.
    let Some(dispatch) = entry.spec.handler.as_ref().or(inner.dispatch.as_ref()) else {
        // Routing checked both: unreachable, answered rather than assumed.
        return (
            Reply::error(Some(id), RpcError::internal()),
            HostOutcome::Returned,
        );
    };
    let tool: &str = entry.spec.name();
    let (output, metric_keys) = (entry.output.as_ref(), &entry.metric_keys);
    let carrier = call.context.carrier;
    // Emitted with or without the connectome: a collector's layer reads it, and so
    // may any subscriber of the host's (target `DISPATCH_TARGET`).
    let span = crate::dispatch::dispatch_span(tool);
    let started = std::time::Instant::now();
    let unanswered = Unanswered {
        inner,
        tool,
        metric_keys,
        started,
    };
    let dispatched = guarded(|| dispatch.call(call)).instrument(span).await;
    unanswered.answered();
    // The one dispatch site: the edge is recorded here, after validation, by name only, once
    // the host answered (a call dropped before is recorded as cancelled instead).
    #[cfg(feature = "connectome")]
    if let Some(collector) = &inner.collector {
        collector.record_dispatch(tool);
    }
    let (outcome, host) = match dispatched {
        Ok(r) => (r, HostOutcome::Returned),
        Err(()) => {
            tracing::error!(%tool, "tool dispatch panicked");
            (
                Err(ToolError::new("the tool failed")),
                HostOutcome::Panicked,
            )
        }
    };
    let took = started.elapsed();
    let returned_ok = outcome.is_ok();
    let outcome = outcome.and_then(|out| conforming(tool, output, out));
    let counted = match (host, returned_ok, outcome.is_ok()) {
        (HostOutcome::Panicked, _, _) => metrics::ToolOutcome::Panic,
        (_, true, false) => metrics::ToolOutcome::Nonconforming,
        (_, _, false) if outcome.as_ref().is_err_and(ToolError::is_internal) => {
            metrics::ToolOutcome::Nonconforming
        }
        (_, _, false) => metrics::ToolOutcome::ToolError,
        (_, _, true) => metrics::ToolOutcome::Ok,
    };
    metrics::tool_call(metric_keys, counted, took);
    match &outcome {
        Err(e) if e.is_internal() => {
            // The host's fault (its types and its schema disagree, say): the detail is for its
            // log, the caller learns only that the server failed.
            tracing::error!(%tool, detail = e.message(), "tool call failed inside the host");
            return (Reply::error(Some(id), RpcError::internal()), host);
        }
        _ => {}
    }
    let reply = encode_tool_result(inner, id, revision, &outcome);
    // A host actor reads the tool's answer as the tool gave it, not the bytes.
    let reply = if carrier == Carrier::Host {
        reply.with_tool(outcome)
    } else {
        reply
    };
    (reply, host)
}

/// A tool call the host has not answered yet. Dropped so (the call's future dropped: its
/// caller cancelled or left, or the deadline passed), it counts the call as cancelled, in the
/// metrics and in the connectome's collector, rather than as an answer.
struct Unanswered<'a> {
    inner: &'a Inner,
    tool: &'a str,
    metric_keys: &'a metrics::ToolKeys,
    started: std::time::Instant,
}

impl Unanswered<'_> {
    fn answered(self) {
        std::mem::forget(self);
    }
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        metrics::tool_call(
            self.metric_keys,
            metrics::ToolOutcome::Cancelled,
            self.started.elapsed(),
        );
        #[cfg(feature = "connectome")]
        if let Some(collector) = &self.inner.collector {
            collector.record_cancelled(self.tool);
        }
        #[cfg(not(feature = "connectome"))]
        let _ = (self.inner, self.tool);
    }
}

/// Validates and normalises a tool call's arguments against its general schema, under the
/// server's budget; the refusal, when they fail, is the one routing gives a subset schema's.
fn checked(
    inner: &Inner,
    id: &RequestId,
    revision: Revision,
    tool: &str,
    arguments: Value,
    context: CallContext,
) -> Result<ToolCall, Reply> {
    let Some(entry) = inner.catalog.tool(tool) else {
        return Err(Reply::error(Some(id), RpcError::internal()));
    };
    let mut budget = Budget::new(inner.validation_budget);
    match entry.schema.arguments_owned_within(arguments, &mut budget) {
        Ok(arguments) => Ok(ToolCall {
            tool: entry.spec.name.clone(),
            arguments,
            context,
        }),
        Err(v) => Err(refused_tool_arguments(
            inner,
            id,
            context.carrier,
            revision,
            entry,
            &v,
        )),
    }
}

/// What the client is told when a tool's result breaks its own declared contract; the detail
/// goes to the log only, and nothing of the value is sent.
const NONCONFORMING: &str = "the tool's result did not conform to its output schema";

/// Holds a successful result to the tool's declared output: with an output schema, a
/// structured result must be present and valid against it. A result that breaks this is the
/// host's bug, answered as a tool error.
fn conforming(
    tool: &str,
    output: Option<&Schema>,
    out: ToolOutput,
) -> Result<ToolOutput, ToolError> {
    let fault = match (output, out.structured.as_ref()) {
        (Some(_), None) => {
            Some("no structured content, though the tool declares an output schema".to_owned())
        }
        (Some(schema), Some(value)) => schema.validate(value).err().map(|v| v.to_string()),
        (None, _) => None,
    };
    match fault {
        None => Ok(out),
        Some(reason) => {
            tracing::error!(%tool, %reason, "tool result refused: it breaks the tool's declared output");
            Err(ToolError::new(NONCONFORMING))
        }
    }
}

/// Whether host code returned or panicked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostOutcome {
    /// The host returned (a value or its own error).
    Returned,
    /// The host panicked; the caller was answered with an error.
    Panicked,
}

impl HostOutcome {
    fn of<T>(guarded: &Result<T, ()>) -> Self {
        match guarded {
            Ok(_) => HostOutcome::Returned,
            Err(()) => HostOutcome::Panicked,
        }
    }
}

fn encode_tool_result(
    inner: &Inner,
    id: &RequestId,
    revision: Revision,
    outcome: &Result<ToolOutput, ToolError>,
) -> Reply {
    let (bytes, kind) = match outcome {
        Ok(out) => (
            inner.envelope.encode(
                id,
                revision,
                &CallToolResult {
                    content: &out.content,
                    // 2025-11-25 carries only an object here; any other value reaches its
                    // clients through the content blocks (`Json<U>` writes one).
                    structured_content: out
                        .structured
                        .as_ref()
                        .filter(|v| revision.is_modern() || v.is_object()),
                    is_error: false,
                },
            ),
            Outcome::Result,
        ),
        Err(e) => (
            inner.envelope.encode(
                id,
                revision,
                &CallToolResult {
                    content: &[Content::text(e.message())],
                    structured_content: None,
                    is_error: true,
                },
            ),
            Outcome::ToolError,
        ),
    };
    Reply::new(bytes, kind)
}

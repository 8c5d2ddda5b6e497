//! Host work the core hands back to a transport: a tool call, a read, a rendering.

use super::route::{not_found, reply_ok};
use super::{Inner, Reply};
use crate::catalog::{PromptRenderer, ResourceBody, ResourceReader};
use crate::dispatch::{Dispatch, ToolCall, ToolError, ToolOutput};
use crate::protocol::{RequestId, Revision, RpcError};
use crate::schema::Arguments;
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tracing::Instrument as _;

pub(super) enum Work {
    Tool {
        dispatch: Arc<dyn Dispatch>,
        call: ToolCall,
    },
    Read {
        reader: Arc<dyn ResourceReader>,
        uri: String,
    },
    Render {
        renderer: Arc<dyn PromptRenderer>,
        name: String,
        arguments: Arguments,
    },
}

/// Host work a request needs before it can be answered. [`Pending::run`] does it.
#[must_use]
pub struct Pending {
    inner: Arc<Inner>,
    id: RequestId,
    revision: Revision,
    work: Work,
}

impl fmt::Debug for Pending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.work {
            Work::Tool { call, .. } => format!("tool {}", call.tool),
            Work::Read { uri, .. } => format!("read {uri}"),
            Work::Render { name, .. } => format!("prompt {name}"),
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
async fn guarded<T>(make: impl FnOnce() -> crate::BoxFuture<T>) -> Result<T, ()> {
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
        Pending {
            inner,
            id,
            revision,
            work,
        }
    }

    /// The request id this work answers.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The tool this work calls, when it is a tool call.
    pub fn tool(&self) -> Option<&str> {
        match &self.work {
            Work::Tool { call, .. } => Some(&call.tool),
            _ => None,
        }
    }

    /// The reply for a request whose host work could not be run at all (an overloaded pool,
    /// an expired deadline): -32603 with `reason` as data.
    pub fn refuse(self, reason: &'static str) -> Reply {
        refusal(&self.id, reason)
    }

    /// Runs the host work and encodes its answer. A host panic is caught: a tool's panic is
    /// answered as a tool error, a reader's or renderer's as an internal error; the detail
    /// goes to the log only.
    ///
    /// # Cancel safety
    /// Dropping this future drops the host's future.
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
        } = self;
        match work {
            Work::Tool { dispatch, call } => {
                let tool = call.tool.clone();
                // The one dispatch site: the edge is recorded here, after validation, by name only.
                if let Some(collector) = &inner.collector {
                    collector.record_dispatch(&tool);
                }
                let span = crate::connectome::observed::dispatch_span(&tool);
                let (outcome, host) = match guarded(|| dispatch.call(call)).instrument(span).await {
                    Ok(r) => (r, HostOutcome::Returned),
                    Err(()) => {
                        tracing::error!(%tool, "tool dispatch panicked");
                        (
                            Err(ToolError::new("the tool failed")),
                            HostOutcome::Panicked,
                        )
                    }
                };
                (encode_tool_result(&inner, &id, revision, &outcome), host)
            }
            Work::Read { reader, uri } => {
                let got = guarded(|| reader.read(&uri)).await;
                let host = HostOutcome::of(&got);
                let reply = match got {
                    Ok(Ok(contents)) => {
                        let list: Vec<Value> = contents
                            .into_iter()
                            .map(|c| {
                                let mut m = Map::new();
                                m.insert("uri".into(), Value::String(c.uri));
                                if let Some(t) = c.mime_type {
                                    m.insert("mimeType".into(), Value::String(t));
                                }
                                match c.body {
                                    ResourceBody::Text(t) => {
                                        m.insert("text".into(), Value::String(t))
                                    }
                                    ResourceBody::Blob(b) => m.insert(
                                        "blob".into(),
                                        Value::String(
                                            base64::engine::general_purpose::STANDARD.encode(b),
                                        ),
                                    ),
                                };
                                Value::Object(m)
                            })
                            .collect();
                        let mut r = Map::new();
                        r.insert("contents".into(), Value::Array(list));
                        let (ttl, scope) = inner.resources_cache;
                        Reply::new(
                            inner
                                .envelope
                                .encode_cacheable(&id, revision, r, ttl, scope),
                            None,
                        )
                    }
                    Ok(Err(e)) => {
                        Reply::error(Some(&id), &not_found(revision, &uri, Some(e.reason())))
                    }
                    Err(()) => {
                        tracing::error!(%uri, "resource reader panicked");
                        Reply::error(Some(&id), &RpcError::internal())
                    }
                };
                (reply, host)
            }
            Work::Render {
                renderer,
                name,
                arguments,
            } => {
                let got = guarded(|| renderer.render(&name, arguments)).await;
                let host = HostOutcome::of(&got);
                let reply = match got {
                    Ok(Ok(rendered)) => {
                        let messages: Vec<Value> = rendered
                            .messages
                            .into_iter()
                            .map(|m| {
                                json!({
                                    "role": m.role.as_str(),
                                    "content": { "type": "text", "text": m.text }
                                })
                            })
                            .collect();
                        let mut r = Map::new();
                        if let Some(d) = rendered.description {
                            r.insert("description".into(), Value::String(d));
                        }
                        r.insert("messages".into(), Value::Array(messages));
                        reply_ok(&inner, &id, revision, r)
                    }
                    Ok(Err(e)) => Reply::error(
                        Some(&id),
                        &RpcError::invalid_params(
                            "Prompt could not be rendered",
                            json!({ "name": name, "reason": e.reason() }),
                        ),
                    ),
                    Err(()) => {
                        tracing::error!(prompt = %name, "prompt renderer panicked");
                        Reply::error(Some(&id), &RpcError::internal())
                    }
                };
                (reply, host)
            }
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

/// The -32603 reply for request `id` whose host work could not be run (`reason` as data).
pub(crate) fn refusal(id: &RequestId, reason: &'static str) -> Reply {
    Reply::error(
        Some(id),
        &RpcError::internal().with_data(json!({ "reason": reason })),
    )
}

/// A `CallToolResult`'s own members, serialised straight to the wire: text content only.
#[derive(serde::Serialize)]
struct ToolResult<'a> {
    content: Vec<TextBlock<'a>>,
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    is_error: bool,
}

#[derive(serde::Serialize)]
struct TextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

fn encode_tool_result(
    inner: &Inner,
    id: &RequestId,
    revision: Revision,
    outcome: &Result<ToolOutput, ToolError>,
) -> Reply {
    fn text(t: &str) -> TextBlock<'_> {
        TextBlock {
            kind: "text",
            text: t,
        }
    }
    let body = match outcome {
        Ok(out) => ToolResult {
            content: out.texts.iter().map(|t| text(t)).collect(),
            is_error: false,
        },
        Err(e) => ToolResult {
            content: vec![text(e.message())],
            is_error: true,
        },
    };
    Reply::new(inner.envelope.encode(id, revision, &body), None)
}

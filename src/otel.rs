//! OpenTelemetry (feature `otel`): one span per MCP request, named and attributed as the
//! OpenTelemetry semantic conventions for MCP say, parented on the caller's trace.
//!
//! The span is a [`tracing`] span at target [`REQUEST_TARGET`], opened when a frame is decoded
//! and closed when its reply is made; [`tracing-opentelemetry`](https://docs.rs/tracing-opentelemetry)'s
//! layer, which the host installs with its exporter, makes it an OpenTelemetry span of kind
//! `SERVER`. The dispatch span ([`crate::DISPATCH_TARGET`]) opens beneath it. The crate installs
//! no subscriber, no SDK and no exporter: with none, or with the target filtered out, a
//! request pays one disabled-span check and reads no trace context.
//!
//! **Name:** `{mcp.method.name} {target}` where the target is the catalog's tool
//! (`tools/call get_weather`) or prompt (`prompts/get forecast`), found for the caller;
//! otherwise `{mcp.method.name}` (`tools/list`, `resources/read`, and a `tools/call` of a tool
//! the caller cannot see). A method outside the MCP method table is named `_OTHER`, so that no
//! caller can grow the set of span names.
//!
//! **Attributes:**
//!
//! | attribute | when | value |
//! |---|---|---|
//! | `mcp.method.name` | always | the method as sent (cut to [`crate::protocol::MAX_ECHO_BYTES`]) |
//! | `jsonrpc.request.id` | a request (not a notification) | the id: an integer's digits, a string as it is |
//! | `mcp.protocol.version` | once the revision is known | `2026-07-28` or `2025-11-25` |
//! | `network.transport` | always | `pipe` (stdio) or `tcp` (HTTP) |
//! | `network.protocol.name`, `network.protocol.version` | HTTP | `http`; `1.1` or `2` |
//! | `gen_ai.tool.name`, `gen_ai.operation.name` | `tools/call` of a tool the caller sees | the catalog's name; `execute_tool` |
//! | `gen_ai.prompt.name` | `prompts/get` of a prompt the caller sees | the catalog's name |
//! | `mcp.resource.uri` | `resources/read` of a readable uri | the uri |
//! | `error.type` | the request failed | the JSON-RPC error code (`-32602`); `tool_error` for a tool result with `isError: true`; `cancelled` when the caller cancelled or left before the answer |
//! | `rpc.response.status_code` | the answer is a JSON-RPC error | its code (`-32602`) |
//!
//! With `error.type` the span's status is `ERROR`, described by the JSON-RPC error's message
//! when there is one.
//!
//! **Parent:** the W3C trace context in `params._meta` (`traceparent`, with `tracestate`), the
//! convention of the MCP semantic conventions and of the TypeScript and Python SDKs; else, over
//! HTTP, the `traceparent` and `tracestate` headers; else whatever span is current where the
//! request is handled (none, unless the host wraps the service in one). When both `_meta` and
//! the headers carry one, `_meta` is the parent and the headers' context is added as a link:
//! `_meta` belongs to the MCP request itself, while the headers belong to the HTTP request that
//! carried it, which a proxy or an HTTP client's own instrumentation may have set (the
//! conventions: the MCP client span is the parent whatever the transport; the transport's
//! context is recorded as a link). A `traceparent` that is not exactly W3C Trace Context's
//! form is ignored, with its `tracestate`: the span is then a root (or the current span's
//! child), never a refusal. `docs/tracing.md` has the whole story.

mod context;
#[cfg(not(feature = "otel"))]
mod off;
#[cfg(feature = "otel")]
mod span;
#[cfg(feature = "otel")]
mod traceparent;

pub(crate) use context::TransportContext;
#[cfg(not(feature = "otel"))]
pub(crate) use off::RequestSpan;
#[cfg(feature = "otel")]
pub(crate) use span::RequestSpan;
#[cfg(feature = "otel")]
pub use span::REQUEST_TARGET;

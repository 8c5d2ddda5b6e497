//! What the crate records through the [`metrics`] facade. The library installs no recorder and
//! no exporter: a host that wants the figures installs one (the `weather` example's `--metrics`
//! flag serves them to Prometheus). With no recorder every call here is a no-op.
//!
//! Every label value is chosen by the crate or the catalog, never by a caller: methods outside
//! the MCP method table count as `other`, tools are the catalog's own names, so a caller cannot
//! grow the number of series.
//!
//! | name | kind | labels | what |
//! |---|---|---|---|
//! | `mcp_requests_total` | counter | `method`, `revision`, `transport` | requests routed by the core |
//! | `mcp_refusals_total` | counter | `reason`, `status`, `transport` | JSON-RPC errors answered (`status` is the HTTP status, `none` on stdio) |
//! | `mcp_tool_calls_total` | counter | `tool`, `outcome` | tool calls run: `ok`, `tool_error`, `panic`, `nonconforming`, `cancelled` |
//! | `mcp_tool_call_duration_seconds` | histogram | `tool` | time in the host's dispatch |
//! | `mcp_pool_queue_depth` | gauge | | calls waiting for a pool worker |
//! | `mcp_pool_in_flight` | gauge | | calls running in the pool whose callers wait for them |
//! | `mcp_pool_overrunning` | gauge | | host calls still holding a worker after their caller stopped waiting (the deadline passed, or the caller left): a host blocking its thread |
//! | `mcp_pool_overloaded_total` | counter | | calls refused with `reason: "overloaded"` |
//! | `mcp_pool_deadline_total` | counter | | calls answered `reason: "deadline"` |
//! | `mcp_pool_panics_total` | counter | | host panics caught in the pool |
//! | `mcp_pool_worker_restarts_total` | counter | | pool workers replaced |
//! | `mcp_http_connections_open` | gauge | | HTTP connections being served |
//! | `mcp_cancellations_total` | counter | `transport` | requests whose host work was dropped because the caller cancelled them or went away |

use crate::dispatch::Carrier;
use crate::protocol::methods::METHODS;
use crate::protocol::{codes, Revision};
use metrics::{Key, Label, Metadata};
use std::sync::OnceLock;
use std::time::Duration;

/// Requests routed by the core.
pub const REQUESTS: &str = "mcp_requests_total";
/// JSON-RPC errors answered.
pub const REFUSALS: &str = "mcp_refusals_total";
/// Tool calls run.
pub const TOOL_CALLS: &str = "mcp_tool_calls_total";
/// Time in the host's dispatch, per tool.
pub const TOOL_CALL_SECONDS: &str = "mcp_tool_call_duration_seconds";
/// Calls waiting for a pool worker.
pub const POOL_QUEUE_DEPTH: &str = "mcp_pool_queue_depth";
/// Calls running in the pool.
pub const POOL_IN_FLIGHT: &str = "mcp_pool_in_flight";
/// Calls refused because the pool's queue was full.
pub const POOL_OVERLOADED: &str = "mcp_pool_overloaded_total";
/// Calls past the pool's deadline.
pub const POOL_DEADLINES: &str = "mcp_pool_deadline_total";
/// Host panics caught in the pool.
pub const POOL_PANICS: &str = "mcp_pool_panics_total";
/// Pool workers replaced.
pub const POOL_WORKER_RESTARTS: &str = "mcp_pool_worker_restarts_total";
/// HTTP connections being served.
pub const HTTP_CONNECTIONS_OPEN: &str = "mcp_http_connections_open";
/// Host calls still holding a pool worker after their caller stopped waiting.
pub const POOL_OVERRUNNING: &str = "mcp_pool_overrunning";
/// Requests whose host work was dropped because the caller cancelled them or went away.
pub const CANCELLATIONS: &str = "mcp_cancellations_total";

fn transport_label(carrier: Carrier) -> &'static str {
    match carrier {
        Carrier::Stdio => "stdio",
        Carrier::Http => "http",
        Carrier::Host => "host",
    }
}

fn reason_label(code: i64) -> &'static str {
    match code {
        codes::PARSE_ERROR => "parse_error",
        codes::INVALID_REQUEST => "invalid_request",
        codes::METHOD_NOT_FOUND => "method_not_found",
        codes::INVALID_PARAMS => "invalid_params",
        codes::INTERNAL_ERROR => "internal_error",
        codes::RESOURCE_NOT_FOUND => "resource_not_found",
        codes::HEADER_MISMATCH => "header_mismatch",
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY => "missing_client_capability",
        codes::UNSUPPORTED_PROTOCOL_VERSION => "unsupported_protocol_version",
        _ => "other",
    }
}

/// Every `mcp_requests_total` series the crate can record, built once: a request then
/// records through a prebuilt key (hashed when built), with no label vector allocated and no
/// hash computed per call, recorder or not.
fn request_keys() -> &'static [Key] {
    static KEYS: OnceLock<Box<[Key]>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let methods = METHODS.iter().copied().chain(["other"]);
        let mut keys = Vec::with_capacity((METHODS.len() + 1) * REVISIONS.len() * CARRIERS.len());
        for method in methods {
            for revision in REVISIONS {
                for carrier in CARRIERS {
                    keys.push(Key::from_parts(
                        REQUESTS,
                        vec![
                            Label::from_static_parts("method", method),
                            Label::from_static_parts("revision", revision_label(revision)),
                            Label::from_static_parts("transport", transport_label(carrier)),
                        ],
                    ));
                }
            }
        }
        keys.into_boxed_slice()
    })
}

const REVISIONS: [Option<Revision>; 3] = [
    None,
    Some(Revision::V2025_11_25),
    Some(Revision::V2026_07_28),
];
const CARRIERS: [Carrier; 3] = [Carrier::Stdio, Carrier::Http, Carrier::Host];

fn revision_label(revision: Option<Revision>) -> &'static str {
    revision.map_or("none", Revision::as_str)
}

/// The metadata the `metrics` macros would pass for a series of this module.
fn metadata() -> &'static Metadata<'static> {
    static METADATA: Metadata<'static> =
        Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));
    &METADATA
}

/// A request the core routed, at the revision it was served at (`none` when it was refused
/// before one was known).
pub(crate) fn request(method: &str, revision: Option<Revision>, carrier: Carrier) {
    let m = crate::protocol::methods::position(method).unwrap_or(METHODS.len());
    // Indexed in the order `request_keys` built them: the arrays are the one source of it.
    let (Some(r), Some(t)) = (
        REVISIONS.iter().position(|known| *known == revision),
        CARRIERS.iter().position(|known| *known == carrier),
    ) else {
        return;
    };
    if let Some(key) = request_keys().get((m * REVISIONS.len() + r) * CARRIERS.len() + t) {
        metrics::with_recorder(|recorder| recorder.register_counter(key, metadata())).increment(1);
    }
}

/// A JSON-RPC error answered with `code` (`status`: the HTTP status, or `None` off HTTP).
pub(crate) fn refusal(code: i64, status: Option<u16>, carrier: Carrier) {
    metrics::counter!(
        REFUSALS,
        "reason" => reason_label(code),
        "status" => status_label(status),
        "transport" => transport_label(carrier),
    )
    .increment(1);
}

fn status_label(status: Option<u16>) -> &'static str {
    match status {
        None => "none",
        Some(200) => "200",
        Some(400) => "400",
        Some(403) => "403",
        Some(404) => "404",
        Some(405) => "405",
        Some(406) => "406",
        Some(408) => "408",
        Some(411) => "411",
        Some(413) => "413",
        Some(415) => "415",
        Some(500) => "500",
        Some(_) => "other",
    }
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolOutcome {
    Ok,
    ToolError,
    Panic,
    Nonconforming,
    /// The call's future was dropped before the host answered (the caller cancelled or left,
    /// or the deadline passed).
    Cancelled,
}

impl ToolOutcome {
    /// Every outcome, in the order [`ToolKeys`] holds their keys.
    const ALL: [ToolOutcome; 5] = [
        ToolOutcome::Ok,
        ToolOutcome::ToolError,
        ToolOutcome::Panic,
        ToolOutcome::Nonconforming,
        ToolOutcome::Cancelled,
    ];

    fn label(self) -> &'static str {
        match self {
            ToolOutcome::Ok => "ok",
            ToolOutcome::ToolError => "tool_error",
            ToolOutcome::Panic => "panic",
            ToolOutcome::Nonconforming => "nonconforming",
            ToolOutcome::Cancelled => "cancelled",
        }
    }
}

/// The series one tool records into, built once when the catalog is validated: a call
/// records through these keys with nothing allocated or hashed per call.
#[derive(Debug)]
pub(crate) struct ToolKeys {
    /// `mcp_tool_calls_total`, one key per [`ToolOutcome`], in the order of `ToolOutcome::ALL`.
    calls: [Key; 5],
    /// `mcp_tool_call_duration_seconds`.
    seconds: Key,
}

impl ToolKeys {
    /// The keys of the catalog's tool `tool`.
    pub(crate) fn new(tool: &std::sync::Arc<str>) -> ToolKeys {
        ToolKeys {
            calls: ToolOutcome::ALL.map(|outcome| {
                Key::from_parts(
                    TOOL_CALLS,
                    vec![
                        Label::new("tool", tool.clone()),
                        Label::from_static_parts("outcome", outcome.label()),
                    ],
                )
            }),
            seconds: Key::from_parts(TOOL_CALL_SECONDS, vec![Label::new("tool", tool.clone())]),
        }
    }
}

/// A tool call that ran, how it ended and how long the host took.
pub(crate) fn tool_call(keys: &ToolKeys, outcome: ToolOutcome, took: Duration) {
    let Some(calls) = ToolOutcome::ALL
        .iter()
        .position(|known| *known == outcome)
        .and_then(|i| keys.calls.get(i))
    else {
        return;
    };
    metrics::with_recorder(|recorder| {
        recorder.register_counter(calls, metadata()).increment(1);
        recorder
            .register_histogram(&keys.seconds, metadata())
            .record(took.as_secs_f64());
    });
}

/// A pool event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolEvent {
    Overloaded,
    Deadline,
    Panic,
    WorkerRestart,
}

pub(crate) fn pool_event(event: PoolEvent) {
    let name = match event {
        PoolEvent::Overloaded => POOL_OVERLOADED,
        PoolEvent::Deadline => POOL_DEADLINES,
        PoolEvent::Panic => POOL_PANICS,
        PoolEvent::WorkerRestart => POOL_WORKER_RESTARTS,
    };
    metrics::counter!(name).increment(1);
}

/// A call entered (`+1`) or left (`-1`) the pool's queue.
pub(crate) fn pool_queued(delta: f64) {
    metrics::gauge!(POOL_QUEUE_DEPTH).increment(delta);
}

/// A call started (`+1`) or ended (`-1`) running in the pool.
pub(crate) fn pool_running(delta: f64) {
    metrics::gauge!(POOL_IN_FLIGHT).increment(delta);
}

/// A host call began (`+1`) or stopped (`-1`) holding a worker its caller no longer waits for.
pub(crate) fn pool_overrunning(delta: f64) {
    metrics::gauge!(POOL_OVERRUNNING).increment(delta);
}

/// A request's host work dropped because its caller cancelled it or went away.
pub(crate) fn cancelled(carrier: Carrier) {
    metrics::counter!(CANCELLATIONS, "transport" => transport_label(carrier)).increment(1);
}

/// An HTTP connection opened (`+1`) or ended (`-1`).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn http_connections(delta: f64) {
    metrics::gauge!(HTTP_CONNECTIONS_OPEN).increment(delta);
}

//! The refusals more than one step of the core builds: arguments that fail their schema, a
//! resource not found, host work that could not be run.

use super::inner::Inner;
use super::reply::Reply;
use crate::catalog::validated::ToolEntry;
use crate::dispatch::Carrier;
use crate::model::result::CallToolResult;
use crate::model::Content;
use crate::protocol::outcome::{Kind, Outcome, Unserved};
use crate::protocol::{codes, RequestId, Revision, RpcError};
use serde_json::{json, Value};

/// The -32602 for arguments that fail their schema: the failing path, and the tool or prompt.
pub(super) fn refused_arguments(v: &crate::schema::Violation, key: &str, owner: &str) -> RpcError {
    let mut data = v.to_data();
    if let Value::Object(d) = &mut data {
        d.insert(key.into(), Value::String(owner.into()));
    }
    RpcError::invalid_params("Invalid arguments", data).of_kind(Kind::InvalidArguments)
}

/// The one text block of a 2025-11-25 `CallToolResult` for arguments that fail the tool's
/// schema, naming the failing path (the same facts the 2026-07-28 refusal carries as data).
fn invalid_input(tool: &str, v: &crate::schema::Violation) -> [Content; 1] {
    [Content::text(crate::protocol::bounded(&format!(
        "Invalid arguments for tool {tool}: {v}"
    )))]
}

/// The answer to a `tools/call` whose arguments fail the tool's schema. 2025-11-25 makes an
/// input validation error a tool execution error, for the model to correct itself; 2026-07-28
/// makes it -32602, and so does a host actor's Dispatch, which reads a typed refusal. The host's
/// tool runs in no case.
pub(super) fn refused_tool_arguments(
    inner: &Inner,
    id: &RequestId,
    carrier: Carrier,
    revision: Revision,
    tool: &ToolEntry,
    v: &crate::schema::Violation,
) -> Reply {
    if !revision.is_modern() && carrier != Carrier::Host {
        let result = CallToolResult {
            content: &invalid_input(&tool.spec.name, v),
            structured_content: None,
            is_error: true,
        };
        return Reply::new(
            inner.envelope.encode(id, revision, &result),
            Outcome::ToolError,
        );
    }
    Reply::error(Some(id), refused_arguments(v, "tool", &tool.spec.name))
}

pub(super) fn not_found(revision: Revision, uri: &str, reason: Option<&str>) -> RpcError {
    let mut data = json!({ "uri": uri });
    if let (Some(r), Value::Object(d)) = (reason, &mut data) {
        d.insert("reason".into(), Value::String(r.into()));
    }
    let code = if revision.is_modern() {
        codes::INVALID_PARAMS
    } else {
        codes::RESOURCE_NOT_FOUND
    };
    RpcError::new(code, "Resource not found")
        .with_data(data)
        .of_kind(Kind::ResourceNotFound)
}

/// The -32603 reply for request `id` whose host work could not be run (`reason` as data).
pub(crate) fn unserved_reply(id: &RequestId, reason: Unserved) -> Reply {
    Reply::error(Some(id), RpcError::unserved(reason))
}

//! Writing one answer: a result or an error frame, as one compact JSON line.

use super::jsonrpc::RequestId;
use crate::protocol::error::RpcError;
use serde::Serialize;
use serde_json::Value;

#[derive(Serialize)]
struct ResultFrame<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a Value,
}

#[derive(Serialize)]
struct ErrorFrame<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RequestId>,
    error: Value,
}

/// Encodes a success response as one compact JSON line (without the newline).
pub fn encode_result(id: &RequestId, result: &Value) -> Vec<u8> {
    let frame = ResultFrame {
        jsonrpc: "2.0",
        id,
        result,
    };
    // Serialising a Value-backed frame into a Vec cannot fail: every key is a string.
    serde_json::to_vec(&frame).unwrap_or_default()
}

/// Encodes an error response. An unknown id (a frame that could not be read) is omitted, as
/// both revisions' schemas allow, rather than sent as `null`, which neither allows.
pub fn encode_error(id: Option<&RequestId>, error: &RpcError) -> Vec<u8> {
    let frame = ErrorFrame {
        jsonrpc: "2.0",
        id,
        error: error.to_value(),
    };
    serde_json::to_vec(&frame).unwrap_or_default()
}

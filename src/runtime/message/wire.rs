//! The cluster wire encoding of [`ApplicationMsg`] and its reply (feature `cluster`).
//!
//! `ractor_cluster` carries a message as a [`SerializedMessage`]: for a call, a variant name,
//! argument bytes and a reply port of bytes. Here:
//!
//! - variant [`DISPATCH_VARIANT`];
//! - arguments: the UTF-8 JSON object `{"tool": <string>, "arguments": <value>}`;
//! - reply: the UTF-8 JSON object `{"ok": {"texts": [...], "content": [...], "structured":
//!   <value or null>, "is_error": <bool>}}` or `{"err": {"code": <int>, "message": <string>,
//!   "data": <value or null>, "kind": <string>}}`, `kind` naming the typed refusal so the
//!   caller's `is_*` predicates answer as they would locally.
//!
//! The `extensions` of a dispatch do not cross: they are in-process values with no encoding,
//! and the tool on the serving node sees none (`Extensions::new()`).

use super::{unserved, ApplicationMsg, DispatchError, DispatchResult, ToolReply};
use crate::extensions::Extensions;
use crate::protocol::outcome::{Kind, RefusalReason};
use crate::protocol::RpcError;
use ractor::concurrency::oneshot;
use ractor::message::{BoxedDowncastErr, SerializedMessage};
use ractor::RpcReplyPort;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The variant name a remote dispatch travels under.
pub const DISPATCH_VARIANT: &str = "beam_mcp.dispatch.v1";

#[derive(Serialize, Deserialize)]
struct WireCall {
    tool: String,
    arguments: Value,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum WireReply {
    Ok {
        texts: Vec<String>,
        content: Vec<Value>,
        structured: Option<Value>,
        is_error: bool,
    },
    Err {
        code: i64,
        message: String,
        data: Option<Value>,
        kind: String,
    },
}

/// A dispatch's answer as reply bytes.
pub(crate) fn encode_reply(result: &DispatchResult) -> Vec<u8> {
    let wire = match result {
        Ok(r) => WireReply::Ok {
            texts: r.texts.clone(),
            content: r.content.clone(),
            structured: r.structured.clone(),
            is_error: r.is_error,
        },
        Err(e) => WireReply::Err {
            code: e.code(),
            message: e.message().to_owned(),
            data: e.error.data().cloned(),
            kind: e.refused.kind().wire_name().to_owned(),
        },
    };
    // Strings, numbers and JSON values with string keys: writing them cannot fail. Should it,
    // the bytes are empty, which the caller's side reads as an internal error.
    serde_json::to_vec(&wire).unwrap_or_default()
}

/// Reply bytes as the answer they encode. Bytes that are not a reply of this version are the
/// serving side's fault, answered as -32603 (and logged).
pub(crate) fn decode_reply(bytes: &[u8]) -> DispatchResult {
    match serde_json::from_slice::<WireReply>(bytes) {
        Ok(WireReply::Ok {
            texts,
            content,
            structured,
            is_error,
        }) => Ok(ToolReply {
            texts,
            content,
            structured,
            is_error,
        }),
        Ok(WireReply::Err {
            code,
            message,
            data,
            kind,
        }) => {
            let kind = Kind::of_wire_name(&kind).unwrap_or(Kind::of_code(code));
            let mut error = RpcError::new(code, message).of_kind(kind);
            if let Some(data) = data {
                error = error.with_data(data);
            }
            Err(DispatchError::of(error))
        }
        Err(e) => {
            tracing::error!(error = %e, "a remote dispatch answered bytes that are no reply");
            Err(DispatchError::of(RpcError::internal()))
        }
    }
}

/// The arguments of a remote dispatch, as bytes.
fn encode_call(tool: String, arguments: Value) -> Result<Vec<u8>, BoxedDowncastErr> {
    serde_json::to_vec(&WireCall { tool, arguments }).map_err(|_| BoxedDowncastErr)
}

impl ractor::Message for ApplicationMsg {
    fn serializable() -> bool {
        true
    }

    /// On the calling node: the call's bytes, and a byte reply port whose answer (or whose
    /// loss, when the serving node goes away) a forwarding task turns into the typed reply.
    fn serialize(self) -> Result<SerializedMessage, BoxedDowncastErr> {
        match self {
            ApplicationMsg::Dispatch {
                tool,
                arguments,
                extensions: _,
                reply,
            } => {
                // Without a tokio runtime there is nowhere to forward the answer from: the
                // send fails (and the caller's port is dropped, which it reads as a failed
                // send), no panic.
                let handle = tokio::runtime::Handle::try_current().map_err(|_| BoxedDowncastErr)?;
                let args = encode_call(tool, arguments)?;
                let raw = forward_bytes(&handle, reply, |bytes| match bytes {
                    Some(bytes) => decode_reply(&bytes),
                    None => Err(unserved(RefusalReason::Unavailable)),
                });
                Ok(SerializedMessage::Call {
                    variant: DISPATCH_VARIANT.to_owned(),
                    args,
                    reply: raw,
                    metadata: None,
                })
            }
        }
    }

    /// On the serving node: a dispatch whose typed reply is encoded back into the byte port.
    /// A call this version cannot read is answered at once with -32600 (and not delivered).
    fn deserialize(bytes: SerializedMessage) -> Result<Self, BoxedDowncastErr> {
        let SerializedMessage::Call {
            variant,
            args,
            reply,
            ..
        } = bytes
        else {
            return Err(BoxedDowncastErr);
        };
        let call = if variant == DISPATCH_VARIANT {
            serde_json::from_slice::<WireCall>(&args).ok()
        } else {
            None
        };
        let Some(WireCall { tool, arguments }) = call else {
            let refusal = Err(DispatchError::of(RpcError::invalid_request(
                "not a beam_mcp.dispatch.v1 call",
            )));
            let _ = reply.send(encode_reply(&refusal));
            return Err(BoxedDowncastErr);
        };
        let handle = tokio::runtime::Handle::try_current().map_err(|_| BoxedDowncastErr)?;
        let (tx, rx) = oneshot::<DispatchResult>();
        handle.spawn(async move {
            // Bounded by the serving runtime: the pool answers (or drops) every job within its
            // deadline.
            if let Ok(answer) = rx.await {
                let _ = reply.send(encode_reply(&answer));
            }
        });
        Ok(ApplicationMsg::Dispatch {
            tool,
            arguments,
            extensions: Extensions::new(),
            reply: RpcReplyPort::from(tx),
        })
    }
}

/// A byte reply port for a call that crosses a node, and a task forwarding what comes back on
/// it to the caller's typed `reply`, read by `read` (`None`: the port was dropped — the serving
/// node or its session went away — or the caller's timeout passed). Bounded: the byte port is
/// answered by the serving node or dropped with the session or the remote proxy, and a caller
/// with a timeout bounds it further.
pub(crate) fn forward_bytes<T: Send + 'static>(
    handle: &tokio::runtime::Handle,
    reply: RpcReplyPort<T>,
    read: impl FnOnce(Option<Vec<u8>>) -> T + Send + 'static,
) -> RpcReplyPort<Vec<u8>> {
    let (tx, rx) = oneshot::<Vec<u8>>();
    let timeout = reply.get_timeout();
    let raw = match timeout {
        Some(t) => RpcReplyPort::from((tx, t)),
        None => RpcReplyPort::from(tx),
    };
    handle.spawn(async move {
        let bytes = match timeout {
            Some(t) => tokio::time::timeout(t, rx).await.ok().and_then(Result::ok),
            None => rx.await.ok(),
        };
        // A caller that gave up waiting is not an error here.
        let _ = reply.send(read(bytes));
    });
    raw
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::outcome::Kind;

    #[test]
    fn every_kind_round_trips_by_wire_name() {
        for kind in Kind::ALL {
            assert_eq!(Kind::of_wire_name(kind.wire_name()), Some(kind));
        }
        assert_eq!(Kind::of_wire_name("nonsense"), None);
    }

    #[test]
    fn refusals_keep_their_predicates_across_the_wire() {
        let e = unserved(RefusalReason::Unavailable);
        let back = decode_reply(&encode_reply(&Err(e.clone())));
        let back = back
            .err()
            .map(|b| (b.is_unavailable(), b.data().clone(), b));
        assert_eq!(back.as_ref().map(|b| b.0), Some(true));
        assert_eq!(back.map(|b| b.2), Some(e));
    }

    #[test]
    fn garbage_reply_bytes_are_an_internal_error() {
        let e = decode_reply(b"{\"maybe\":1}").err();
        assert_eq!(e.map(|e| e.code()), Some(-32603));
    }
}

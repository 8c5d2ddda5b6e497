//! The messages a host sends the runtime, and what it gets back: plain data.

use crate::content::Content;
use crate::dispatch::Extensions;
use crate::protocol::outcome::{Refused, Unserved};
use crate::protocol::RpcError;
use crate::server::Reply;
use ractor::RpcReplyPort;
use serde_json::Value;
use std::fmt;

#[cfg(feature = "cluster")]
use crate::protocol::outcome::Kind;
#[cfg(feature = "cluster")]
use ractor::concurrency::oneshot;
#[cfg(feature = "cluster")]
use ractor::message::{BoxedDowncastErr, SerializedMessage};
#[cfg(feature = "cluster")]
use serde::{Deserialize, Serialize};

/// What a host actor may send the runtime's dispatcher (see
/// [`ApplicationRef::dispatcher`](super::ApplicationRef::dispatcher)).
///
/// Every field but `extensions` is plain data (strings, JSON values, a reply port). With the
/// `cluster` feature the message has a wire encoding (`runtime::cluster`, "What crosses a
/// node"), and a host actor on another node can send it to this runtime's catalog actor; the
/// extensions are in-process values and do not cross: a remote dispatch runs with none.
#[derive(Debug)]
#[non_exhaustive]
pub enum ApplicationMsg {
    /// Call `tool` with `arguments`, validated exactly as a `tools/call` off a wire, and run
    /// in the dispatch pool. The answer goes to `reply`.
    Dispatch {
        /// The tool's name.
        tool: String,
        /// The arguments object (`null` counts as `{}`).
        arguments: Value,
        /// What the host attaches to the call (the principal it acts for, say); the tool reads
        /// them as [`crate::CallContext::extensions`]. `Extensions::new()` for none.
        extensions: Extensions,
        /// Where the answer goes.
        reply: RpcReplyPort<DispatchResult>,
    },
    /// Change the catalog ([`crate::Server::change`]): validated whole, applied whole or not at
    /// all, published to every transport before the answer is sent. The answer is the
    /// catalog's generation after it, or why it was refused. In-process only: a change holds
    /// the host's handlers and readers, and does not cross a node.
    Change {
        /// The change.
        change: crate::catalog::CatalogChange,
        /// Where the answer goes.
        reply: RpcReplyPort<Result<u64, crate::ConfigError>>,
    },
}

/// The answer to a host dispatch.
pub type DispatchResult = Result<ToolResult, DispatchError>;

/// A tool's answer: its content blocks (and their texts), its structured result, and whether
/// the tool reported a failure (a tool error or a panic, which the client side of MCP sees as
/// `isError: true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    texts: Vec<String>,
    content: Vec<Value>,
    structured: Option<Value>,
    is_error: bool,
}

impl ToolResult {
    /// The text of each text block, in order.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }

    /// Every content block, in order, in its wire form (images and audio base64-encoded).
    pub fn content(&self) -> &[Value] {
        &self.content
    }

    /// The structured result (`structuredContent`), if the tool returned one.
    pub fn structured(&self) -> Option<&Value> {
        self.structured.as_ref()
    }

    /// Whether the tool failed (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.is_error
    }
}

/// A dispatch refused before or instead of running the tool: an unknown tool, invalid
/// arguments, an overloaded pool, an expired deadline, a runtime shutting down.
///
/// It carries the JSON-RPC error the same request would have earned over a wire, and the typed
/// [`Refused`] the core made it with: the `is_*` predicates read that, never the message.
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchError {
    refused: Refused,
    error: RpcError,
}

/// The JSON-RPC error code of a refusal by the runtime itself (overload, deadline, shutdown):
/// -32603, Internal error, with the reason in `data.reason`.
pub const RUNTIME_REFUSAL_CODE: i64 = crate::protocol::codes::INTERNAL_ERROR;

static NULL: Value = Value::Null;

impl DispatchError {
    /// The refusal as the wire carries it: a caller's long tool name or key echoed in the
    /// message or data is cut as it is in the bytes.
    fn of(error: RpcError) -> Self {
        DispatchError {
            refused: error.refused(),
            error: error.into_sent(),
        }
    }

    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        self.error.code()
    }

    /// The JSON-RPC error message.
    pub fn message(&self) -> &str {
        self.error.message()
    }

    /// The JSON-RPC error data (`null` when absent).
    pub fn data(&self) -> &Value {
        self.error.data().unwrap_or(&NULL)
    }

    /// The typed refusal: its code and kind.
    pub fn refused(&self) -> Refused {
        self.refused
    }

    /// Why the runtime could not serve a valid call now, when that is the refusal.
    pub fn reason(&self) -> Option<Unserved> {
        self.refused.reason()
    }

    /// The pool's queue was full: retry later.
    pub fn is_overloaded(&self) -> bool {
        self.refused.is_overloaded()
    }

    /// The tool ran past the pool's deadline and was abandoned.
    pub fn is_deadline(&self) -> bool {
        self.refused.is_deadline()
    }

    /// The runtime could not run the work: the pool is restarting or stopped, or the runtime
    /// is shutting down.
    pub fn is_unavailable(&self) -> bool {
        self.refused.is_unavailable()
    }

    /// The arguments did not satisfy the tool's schema (-32602).
    pub fn is_invalid_arguments(&self) -> bool {
        self.refused.is_invalid_arguments()
    }

    /// No tool of that name is listed (-32602 naming the tool).
    pub fn is_unknown_tool(&self) -> bool {
        self.refused.is_unknown_tool()
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dispatch refused ({}): {}", self.code(), self.message())?;
        if let Some(data) = self.error.data() {
            write!(f, " {data}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DispatchError {}

/// A core reply, as the host's plain-data answer: read from its typed outcome and the tool's
/// own answer, never from the encoded bytes.
pub(crate) fn answer(mut reply: Reply) -> DispatchResult {
    if let Some(error) = reply.take_error() {
        return Err(DispatchError::of(error));
    }
    match reply.take_tool() {
        Some(Ok(out)) => Ok(ToolResult {
            texts: out.texts().map(str::to_owned).collect(),
            content: out.content().iter().map(wire).collect(),
            structured: out.structured,
            is_error: false,
        }),
        Some(Err(e)) => {
            let block = Content::text(e.message());
            Ok(ToolResult {
                texts: vec![e.message().to_owned()],
                content: vec![wire(&block)],
                structured: None,
                is_error: true,
            })
        }
        // Every host dispatch is a tool call on `Carrier::Host`, which carries the tool's
        // answer: a reply without one is the crate's fault, said as such.
        None => {
            tracing::error!(outcome = ?reply.outcome(), "a host dispatch reply carried no answer");
            Err(DispatchError::of(RpcError::internal()))
        }
    }
}

/// A content block in its wire form.
fn wire(block: &Content) -> Value {
    // A content block is strings, numbers and base64: serialising it cannot fail; `null`
    // keeps this total.
    serde_json::to_value(block).unwrap_or(Value::Null)
}

/// The runtime's own refusal of a host dispatch (a remote one whose node went away, say).
#[cfg(feature = "cluster")]
pub(crate) fn unserved(reason: Unserved) -> DispatchError {
    DispatchError::of(RpcError::unserved(reason))
}

// The cluster wire encoding (feature `cluster`).
// `ractor_cluster` carries a message as a [`SerializedMessage`]: for a call, a variant name,
// argument bytes and a reply port of bytes. Here:
//
// - variant [`DISPATCH_VARIANT`];
// - arguments: the UTF-8 JSON object `{"tool": <string>, "arguments": <value>}`;
// - reply: the UTF-8 JSON object `{"ok": {"texts": [...], "content": [...], "structured":
//   <value or null>, "is_error": <bool>}}` or `{"err": {"code": <int>, "message": <string>,
//   "data": <value or null>, "kind": <string>}}`, `kind` naming the typed refusal so the
//   caller's `is_*` predicates answer as they would locally.
//
// The `extensions` of a dispatch do not cross: they are in-process values with no encoding,
// and the tool on the serving node sees none (`Extensions::new()`).

/// The variant name a remote dispatch travels under.
#[cfg(feature = "cluster")]
pub const DISPATCH_VARIANT: &str = "beam_mcp.dispatch.v1";

#[cfg(feature = "cluster")]
#[derive(Serialize, Deserialize)]
struct WireCall {
    tool: String,
    arguments: Value,
}

#[cfg(feature = "cluster")]
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
#[cfg(feature = "cluster")]
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
#[cfg(feature = "cluster")]
pub(crate) fn decode_reply(bytes: &[u8]) -> DispatchResult {
    match serde_json::from_slice::<WireReply>(bytes) {
        Ok(WireReply::Ok {
            texts,
            content,
            structured,
            is_error,
        }) => Ok(ToolResult {
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
#[cfg(feature = "cluster")]
fn encode_call(tool: String, arguments: Value) -> Result<Vec<u8>, BoxedDowncastErr> {
    serde_json::to_vec(&WireCall { tool, arguments }).map_err(|_| BoxedDowncastErr)
}

#[cfg(feature = "cluster")]
impl ractor::Message for ApplicationMsg {
    fn serializable() -> bool {
        true
    }

    /// On the calling node: the call's bytes, and a byte reply port whose answer (or whose
    /// loss, when the serving node goes away) a forwarding task turns into the typed reply.
    fn serialize(self) -> Result<SerializedMessage, BoxedDowncastErr> {
        match self {
            // A change carries the host's own handlers: it has no wire form.
            ApplicationMsg::Change { .. } => Err(BoxedDowncastErr),
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
                let raw = forward_bytes(&handle, reply, |forwarded| match forwarded {
                    Forwarded::Answer(bytes) => decode_reply(&bytes),
                    Forwarded::Lost => Err(unserved(Unserved::Unavailable)),
                    Forwarded::Expired => Err(unserved(Unserved::Deadline)),
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
        // The caller's bound came with the call: the pool runs the work no longer than it.
        let bound = reply.get_timeout();
        handle.spawn(async move {
            // Bounded by the serving runtime: the pool answers (or drops) every job within its
            // deadline. An answer for a caller that has stopped waiting is dropped here, not
            // queued for the network.
            if let Ok(answer) = rx.await {
                if !reply.is_closed() {
                    let _ = reply.send(encode_reply(&answer));
                }
            }
        });
        let reply = match bound {
            Some(bound) => RpcReplyPort::from((tx, bound)),
            None => RpcReplyPort::from(tx),
        };
        Ok(ApplicationMsg::Dispatch {
            tool,
            arguments,
            extensions: Extensions::new(),
            reply,
        })
    }
}

/// What came back on a byte reply port.
#[cfg(feature = "cluster")]
#[derive(Debug)]
pub(crate) enum Forwarded {
    /// The serving node's answer.
    Answer(Vec<u8>),
    /// The port was dropped: the serving node or its session went away (declared silent
    /// included), or the serving node could not read the call.
    Lost,
    /// The call's bound passed first.
    Expired,
}

/// The bound of a remote call whose reply port has none (a host actor's own port): no call
/// crosses a node without a deadline. The serving runtime answers by the sooner of this and
/// its own deadline.
#[cfg(feature = "cluster")]
pub const REMOTE_DEADLINE: std::time::Duration = super::config::DEFAULT_DEADLINE;

/// A byte reply port for a call that crosses a node, and a task forwarding what comes back on
/// it to the caller's typed `reply`, read by `read`. The byte port always has a bound, the
/// caller's or [`REMOTE_DEADLINE`]; it travels with the call, so the serving node stops
/// waiting (and the runtime stops the work) when the caller does. Expiry is read as
/// [`Forwarded::Expired`] whichever timer sees it first, so a caller with a bound of its own
/// racing this one gets the same answer from both.
#[cfg(feature = "cluster")]
pub(crate) fn forward_bytes<T: Send + 'static>(
    handle: &tokio::runtime::Handle,
    reply: RpcReplyPort<T>,
    read: impl FnOnce(Forwarded) -> T + Send + 'static,
) -> RpcReplyPort<Vec<u8>> {
    let (tx, rx) = oneshot::<Vec<u8>>();
    let bound = reply.get_timeout().unwrap_or(REMOTE_DEADLINE);
    let raw = RpcReplyPort::from((tx, bound));
    handle.spawn(async move {
        let forwarded = match tokio::time::timeout(bound, rx).await {
            Ok(Ok(bytes)) => Forwarded::Answer(bytes),
            Ok(Err(_dropped)) => Forwarded::Lost,
            Err(_elapsed) => Forwarded::Expired,
        };
        // A caller that gave up waiting is not an error here.
        let _ = reply.send(read(forwarded));
    });
    raw
}

#[cfg(all(test, feature = "cluster"))]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_by_wire_name() {
        for kind in Kind::ALL {
            assert_eq!(Kind::of_wire_name(kind.wire_name()), Some(kind));
        }
        assert_eq!(Kind::of_wire_name("nonsense"), None);
    }

    #[test]
    fn refusals_keep_their_predicates_across_the_wire() {
        let e = unserved(Unserved::Unavailable);
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

    /// The call as it leaves the node: its byte reply port, and the caller's answer.
    fn leave(
        timeout: Option<std::time::Duration>,
    ) -> (
        RpcReplyPort<Vec<u8>>,
        ractor::concurrency::OneshotReceiver<DispatchResult>,
    ) {
        let (tx, rx) = oneshot();
        let reply = match timeout {
            Some(t) => RpcReplyPort::from((tx, t)),
            None => RpcReplyPort::from(tx),
        };
        let msg = ApplicationMsg::Dispatch {
            tool: "t".to_owned(),
            arguments: serde_json::json!({}),
            extensions: Extensions::new(),
            reply,
        };
        match ractor::Message::serialize(msg) {
            Ok(SerializedMessage::Call { reply, .. }) => (reply, rx),
            _ => panic!("a dispatch leaves as a call"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_crosses_with_its_callers_bound_and_its_expiry_is_a_deadline() {
        let bound = std::time::Duration::from_millis(300);
        let (raw, answer) = leave(Some(bound));
        assert_eq!(
            raw.get_timeout(),
            Some(bound),
            "the bound travels with the call"
        );
        // The serving node says nothing; the port is held, not dropped.
        let refused = answer.await.expect("answered").expect_err("expired");
        assert!(refused.is_deadline(), "{refused}");
        drop(raw);
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_on_a_bare_port_still_has_a_deadline() {
        let (raw, answer) = leave(None);
        assert_eq!(raw.get_timeout(), Some(REMOTE_DEADLINE));
        let started = tokio::time::Instant::now();
        let refused = answer.await.expect("answered").expect_err("expired");
        assert!(refused.is_deadline(), "{refused}");
        assert_eq!(
            started.elapsed(),
            REMOTE_DEADLINE,
            "the paused clock says when"
        );
        drop(raw);
    }

    #[tokio::test(start_paused = true)]
    async fn a_dropped_port_is_unavailable_and_an_answer_is_read() {
        let (raw, answer) = leave(Some(std::time::Duration::from_secs(5)));
        drop(raw);
        let refused = answer.await.expect("answered").expect_err("lost");
        assert!(refused.is_unavailable(), "{refused}");

        let (raw, answer) = leave(None);
        let ok: DispatchResult = Err(unserved(Unserved::Overloaded));
        raw.send(encode_reply(&ok)).expect("the forwarder waits");
        assert_eq!(answer.await.expect("answered"), ok);
    }
}

//! What a reply answers, typed: decided by the core where it builds the reply, and read by the
//! transports, the runtime and host dispatch, which never look at the encoded text.

use super::codes;
use std::fmt;

/// What a [`crate::Reply`] answers.
///
/// ```
/// use beam_mcp::{Carrier, Catalog, Outcome, Answer, Server, ServerConfig};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#;
/// let Answer::Reply(reply) = server.answer(frame, Carrier::Stdio).await else { unreachable!() };
/// let Outcome::Refused(refused) = reply.outcome() else { unreachable!() };
/// assert!(refused.is_method_not_found());
/// assert_eq!(refused.code(), -32601);
/// # });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// A result: the method did what was asked (a tool call whose tool returned its output).
    Result,
    /// A tool call answered as a tool's failure (`isError: true`): the tool's own error, a
    /// panicking tool, a result that broke the tool's output schema, or (2025-11-25 over a
    /// wire) arguments that failed the tool's schema.
    ToolError,
    /// A JSON-RPC error: the request was refused, and why.
    Refused(Refused),
}

impl Outcome {
    /// The refusal, when the reply is one.
    pub fn refused(&self) -> Option<Refused> {
        match self {
            Outcome::Refused(r) => Some(*r),
            Outcome::Result | Outcome::ToolError => None,
        }
    }

    /// The JSON-RPC error code, when the reply is a refusal.
    pub fn error_code(&self) -> Option<i64> {
        self.refused().map(|r| r.code())
    }
}

/// Why a request that was valid could not be served now: the runtime's own refusals, each
/// answered -32603 with its [`Unserved::as_str`] as `data.reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unserved {
    /// The dispatch pool's queue was full: retry later.
    Overloaded,
    /// The work ran (or waited) past the pool's deadline and was abandoned.
    Deadline,
    /// Nothing could run the work: the pool is restarting or stopped.
    Unavailable,
    /// The connection or runtime is stopping: work read but not started is refused.
    ShuttingDown,
}

impl Unserved {
    /// The reason as it travels in `data.reason`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Unserved::Overloaded => "overloaded",
            Unserved::Deadline => "deadline",
            Unserved::Unavailable => "unavailable",
            Unserved::ShuttingDown => "shutting down",
        }
    }
}

impl fmt::Display for Unserved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal: its JSON-RPC code and what kind of refusal it is, read through the `is_*`
/// predicates. More kinds may be told apart in later versions; a code is never reinterpreted.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Refused {
    code: i64,
    kind: Kind,
}

/// What the core knows about a refusal where it makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Parse,
    InvalidRequest,
    MethodNotFound,
    /// -32602 for anything but the kinds below (a malformed `_meta`, a bad cursor…).
    InvalidParams,
    UnknownTool,
    UnknownPrompt,
    InvalidArguments,
    ResourceNotFound,
    HeaderMismatch,
    MissingCapability,
    UnsupportedVersion,
    /// -32603 with nothing said (a host panic, a misconfigured tool).
    Internal,
    /// -32603 for a valid request the runtime could not serve now.
    Unserved(Unserved),
    /// A code this crate does not give a meaning (a host's own [`crate::protocol::RpcError`]).
    Other,
}

impl Kind {
    /// Every kind, for the wire tables below and their tests.
    #[cfg(feature = "cluster")]
    pub(crate) const ALL: [Kind; 17] = [
        Kind::Parse,
        Kind::InvalidRequest,
        Kind::MethodNotFound,
        Kind::InvalidParams,
        Kind::UnknownTool,
        Kind::UnknownPrompt,
        Kind::InvalidArguments,
        Kind::ResourceNotFound,
        Kind::HeaderMismatch,
        Kind::MissingCapability,
        Kind::UnsupportedVersion,
        Kind::Internal,
        Kind::Unserved(Unserved::Overloaded),
        Kind::Unserved(Unserved::Deadline),
        Kind::Unserved(Unserved::Unavailable),
        Kind::Unserved(Unserved::ShuttingDown),
        Kind::Other,
    ];

    /// The kind's name on a cluster wire (a dispatch refused on another node keeps its
    /// `is_*` answers): stable, one per kind.
    #[cfg(feature = "cluster")]
    pub(crate) const fn wire_name(self) -> &'static str {
        match self {
            Kind::Parse => "parse",
            Kind::InvalidRequest => "invalid_request",
            Kind::MethodNotFound => "method_not_found",
            Kind::InvalidParams => "invalid_params",
            Kind::UnknownTool => "unknown_tool",
            Kind::UnknownPrompt => "unknown_prompt",
            Kind::InvalidArguments => "invalid_arguments",
            Kind::ResourceNotFound => "resource_not_found",
            Kind::HeaderMismatch => "header_mismatch",
            Kind::MissingCapability => "missing_capability",
            Kind::UnsupportedVersion => "unsupported_version",
            Kind::Internal => "internal",
            Kind::Unserved(Unserved::Overloaded) => "unserved:overloaded",
            Kind::Unserved(Unserved::Deadline) => "unserved:deadline",
            Kind::Unserved(Unserved::Unavailable) => "unserved:unavailable",
            Kind::Unserved(Unserved::ShuttingDown) => "unserved:shutting down",
            Kind::Other => "other",
        }
    }

    /// The kind a cluster wire name stands for; `None` for a name this version does not know.
    #[cfg(feature = "cluster")]
    pub(crate) fn of_wire_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.wire_name() == name)
    }

    /// The kind a bare code has, when nothing more precise was said where it was made.
    pub(crate) const fn of_code(code: i64) -> Kind {
        match code {
            codes::PARSE_ERROR => Kind::Parse,
            codes::INVALID_REQUEST => Kind::InvalidRequest,
            codes::METHOD_NOT_FOUND => Kind::MethodNotFound,
            codes::INVALID_PARAMS => Kind::InvalidParams,
            codes::INTERNAL_ERROR => Kind::Internal,
            codes::RESOURCE_NOT_FOUND => Kind::ResourceNotFound,
            codes::HEADER_MISMATCH => Kind::HeaderMismatch,
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY => Kind::MissingCapability,
            codes::UNSUPPORTED_PROTOCOL_VERSION => Kind::UnsupportedVersion,
            _ => Kind::Other,
        }
    }
}

impl Refused {
    pub(crate) const fn new(code: i64, kind: Kind) -> Self {
        Refused { code, kind }
    }

    /// The kind, for the cluster wire.
    #[cfg(feature = "cluster")]
    pub(crate) const fn kind(&self) -> Kind {
        self.kind
    }

    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// Why a valid request was not served now, when that is the refusal (-32603).
    pub fn reason(&self) -> Option<Unserved> {
        match self.kind {
            Kind::Unserved(r) => Some(r),
            _ => None,
        }
    }

    /// The frame was not JSON (-32700).
    pub fn is_parse_error(&self) -> bool {
        self.kind == Kind::Parse
    }

    /// The frame was JSON but not a valid request: a batch, nesting too deep, a line too long,
    /// a missing `method` (-32600).
    pub fn is_invalid_request(&self) -> bool {
        self.kind == Kind::InvalidRequest
    }

    /// The method is not served (at the request's revision, or at all) (-32601).
    pub fn is_method_not_found(&self) -> bool {
        self.kind == Kind::MethodNotFound
    }

    /// Any -32602: the kinds below, and malformed parameters or `_meta`.
    pub fn is_invalid_params(&self) -> bool {
        self.code == codes::INVALID_PARAMS
    }

    /// No tool of that name is listed (-32602 naming the tool).
    pub fn is_unknown_tool(&self) -> bool {
        self.kind == Kind::UnknownTool
    }

    /// No prompt of that name is listed (-32602 naming the prompt).
    pub fn is_unknown_prompt(&self) -> bool {
        self.kind == Kind::UnknownPrompt
    }

    /// The arguments did not satisfy the tool's or prompt's schema (-32602 with the path).
    pub fn is_invalid_arguments(&self) -> bool {
        self.kind == Kind::InvalidArguments
    }

    /// The uri is not listed, or the reader refused it (-32002 at 2025-11-25, -32602 at
    /// 2026-07-28).
    pub fn is_resource_not_found(&self) -> bool {
        self.kind == Kind::ResourceNotFound
    }

    /// HTTP headers disagree with the body (-32020).
    pub fn is_header_mismatch(&self) -> bool {
        self.kind == Kind::HeaderMismatch
    }

    /// The call needs a client capability the request did not declare (-32021).
    pub fn is_missing_capability(&self) -> bool {
        self.kind == Kind::MissingCapability
    }

    /// The request names a revision this endpoint does not serve (-32022).
    pub fn is_unsupported_version(&self) -> bool {
        self.kind == Kind::UnsupportedVersion
    }

    /// A server fault, with nothing said to the caller (-32603, no reason).
    pub fn is_internal(&self) -> bool {
        self.kind == Kind::Internal
    }

    /// The dispatch pool's queue was full: retry later.
    pub fn is_overloaded(&self) -> bool {
        self.reason() == Some(Unserved::Overloaded)
    }

    /// The work ran or waited past the pool's deadline and was abandoned.
    pub fn is_deadline(&self) -> bool {
        self.reason() == Some(Unserved::Deadline)
    }

    /// Nothing could run the work: the pool is restarting or stopped, or the connection or
    /// runtime is shutting down.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self.reason(),
            Some(Unserved::Unavailable | Unserved::ShuttingDown)
        )
    }

    /// The connection or runtime is stopping (one case of [`Refused::is_unavailable`]).
    pub fn is_shutting_down(&self) -> bool {
        self.reason() == Some(Unserved::ShuttingDown)
    }
}

impl fmt::Debug for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Refused")
            .field("code", &self.code)
            .field("kind", &self.kind)
            .finish()
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "refused ({})", self.code)?;
        if let Some(r) = self.reason() {
            write!(f, ": {r}")?;
        }
        Ok(())
    }
}

//! Which revision serves a request: the one place that decides it, from what the transport
//! knows before the body (an `Era`) and the request's own `params._meta`; and the check of the
//! 2025-11-25 opener, `initialize`.

use crate::dispatch::Carrier;
use crate::protocol::{
    codes, Incoming, Member, Params, Revision, RpcError, Text,
    META_CLIENT_CAPABILITIES as CLIENT_CAPABILITIES, META_PROTOCOL_VERSION as PROTOCOL_VERSION,
};
use serde_json::{json, Map, Value};

const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// How a request's revision is found, and which revisions its endpoint serves.
///
/// stdio and host dispatch are dual-era by `_meta`. The HTTP transport decides from the
/// `MCP-Protocol-Version` header first (`transport/http/service.rs`) and hands the core an era
/// that says whether a request without the modern `_meta` is a 2025-11-25 request there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Era {
    /// The transport the request arrived on.
    pub(crate) carrier: Carrier,
    /// Every revision the endpoint serves: what `server/discover` lists and -32022 names.
    pub(crate) served: &'static [Revision],
    /// A request without the modern `_meta` is served at 2025-11-25 (otherwise it is
    /// malformed, and the legacy opener `initialize` is not a method).
    pub(crate) bare_is_legacy: bool,
}

/// 2026-07-28 only: an HTTP endpoint that does not serve the legacy revision.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) const MODERN_ONLY: &[Revision] = &[Revision::V2026_07_28];

impl Era {
    /// The era of a carrier when its transport adds nothing: every revision, by `_meta`.
    pub(crate) const fn of(carrier: Carrier) -> Era {
        Era {
            carrier,
            served: &Revision::ALL,
            bare_is_legacy: true,
        }
    }
}

/// The revision a request is served at, from `params._meta`.
///
/// No `_meta`, or a `_meta` with no `io.modelcontextprotocol/` member (a legacy
/// `progressToken`, say), is a legacy request. A `_meta` that speaks the modern vocabulary
/// must name its revision, and a 2026-07-28 request must carry what that revision requires.
pub(super) fn revision_of(m: &Incoming<'_>, era: Era) -> Result<Revision, RpcError> {
    let meta = match m.params.as_ref().and_then(|p| p.meta.as_ref()) {
        None => return legacy(era),
        Some(Member::Object(meta)) => meta,
        Some(Member::Other(_)) => {
            return Err(RpcError::invalid_params(
                "_meta must be an object",
                json!({ "field": "params._meta" }),
            ))
        }
    };
    let requested: &str = match &meta.protocol_version {
        Some(Text::Str(v)) => v,
        Some(Text::Other(_)) => return Err(missing_field(PROTOCOL_VERSION, "must be a string")),
        None if meta.speaks_modern() => return Err(missing_field(PROTOCOL_VERSION, "is required")),
        None => return legacy(era),
    };
    let served = era.served;
    let revision = match requested.parse::<Revision>() {
        Ok(r) if served.contains(&r) => r,
        _ => {
            let list: Vec<&str> = served.iter().map(|r| r.as_str()).collect();
            return Err(RpcError::new(
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
            )
            .with_data(json!({ "supported": list, "requested": requested })));
        }
    };
    if revision.is_modern() {
        match &meta.client_capabilities {
            Some(Value::Object(caps)) => {
                // The known capabilities are objects; a client's own may be anything.
                let known = [
                    "elicitation",
                    "experimental",
                    "extensions",
                    "roots",
                    "sampling",
                ];
                if known
                    .iter()
                    .any(|k| caps.get(*k).is_some_and(|v| !v.is_object()))
                {
                    return Err(missing_field(
                        CLIENT_CAPABILITIES,
                        "declares a known capability that is not an object",
                    ));
                }
            }
            Some(_) => return Err(missing_field(CLIENT_CAPABILITIES, "must be an object")),
            None => return Err(missing_field(CLIENT_CAPABILITIES, "is required")),
        }
        if let Some(level) = meta.get(LOG_LEVEL) {
            let levels = [
                "alert",
                "critical",
                "debug",
                "emergency",
                "error",
                "info",
                "notice",
                "warning",
            ];
            if !level.as_str().is_some_and(|l| levels.contains(&l)) {
                return Err(missing_field(LOG_LEVEL, "must be a logging level"));
            }
        }
        if let Some(info) = meta.get(CLIENT_INFO) {
            let valid = info.get("name").is_some_and(Value::is_string)
                && info.get("version").is_some_and(Value::is_string);
            if !valid {
                return Err(missing_field(
                    CLIENT_INFO,
                    "must be an object with name and version",
                ));
            }
        }
    }
    Ok(revision)
}

fn legacy(era: Era) -> Result<Revision, RpcError> {
    if !era.bare_is_legacy || !era.served.contains(&Revision::V2025_11_25) {
        // A request that said it is modern (the HTTP header) must carry the modern `_meta`.
        return Err(missing_field(PROTOCOL_VERSION, "is required"));
    }
    Ok(Revision::V2025_11_25)
}

fn missing_field(field: &'static str, problem: &'static str) -> RpcError {
    RpcError::invalid_params(
        format!("params._meta[\"{field}\"] {problem}"),
        json!({ "field": format!("params._meta.{field}") }),
    )
}

/// A 2025-11-25 `initialize` held to its schema (`InitializeRequest`): `params` present, with
/// `protocolVersion` a string, `capabilities` an object (each capability that revision defines
/// an object when present), and `clientInfo` an `Implementation` (`name` and `version`
/// strings). Members the schema does not name are not refused, and any string is a
/// `protocolVersion`: one this server does not know is answered with the version it speaks.
///
/// # Errors
/// -32602 naming the member at fault; the caller's value is never echoed.
pub(super) fn check_initialize(params: Option<&Params<'_>>) -> Result<(), RpcError> {
    let Some(params) = params else {
        return Err(initialize_fault("params", "is required"));
    };
    let params = &params.rest;
    required_string(params, "protocolVersion", "params.protocolVersion")?;
    let caps = required_object(params, "capabilities", "params.capabilities")?;
    // The capabilities 2025-11-25 defines are objects; a client's own may be anything.
    for k in ["elicitation", "experimental", "roots", "sampling", "tasks"] {
        if caps.get(k).is_some_and(|v| !v.is_object()) {
            let field = format!("params.capabilities.{k}");
            return Err(initialize_fault(&field, "must be an object"));
        }
    }
    let info = required_object(params, "clientInfo", "params.clientInfo")?;
    required_string(info, "name", "params.clientInfo.name")?;
    required_string(info, "version", "params.clientInfo.version")?;
    Ok(())
}

/// `obj[key]`, which must be present and a string (`field` is its path, for the refusal).
fn required_string(obj: &Map<String, Value>, key: &str, field: &str) -> Result<(), RpcError> {
    match obj.get(key) {
        Some(Value::String(_)) => Ok(()),
        Some(_) => Err(initialize_fault(field, "must be a string")),
        None => Err(initialize_fault(field, "is required")),
    }
}

/// `obj[key]`, which must be present and an object (`field` is its path, for the refusal).
fn required_object<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<&'v Map<String, Value>, RpcError> {
    match obj.get(key) {
        Some(Value::Object(o)) => Ok(o),
        Some(_) => Err(initialize_fault(field, "must be an object")),
        None => Err(initialize_fault(field, "is required")),
    }
}

/// The -32602 for an `initialize` whose params break its schema: the member and what is
/// wrong with it, never the value sent.
fn initialize_fault(field: &str, problem: &str) -> RpcError {
    RpcError::invalid_params(
        format!("{field} {problem}"),
        json!({ "field": field, "method": "initialize" }),
    )
}

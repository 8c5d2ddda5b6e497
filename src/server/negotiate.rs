//! Which revision serves a request: the one place that decides it. The transport supplies only
//! what it read before the body (on HTTP, the `MCP-Protocol-Version` header's value:
//! [`Era::of_http`]); the request's own `params._meta` decides the rest ([`revision_of`]).
//! Beside it, the check of the 2025-11-25 opener, `initialize`.

use crate::dispatch::Carrier;
use crate::protocol::{
    codes, Incoming, Member, Meta, Params, Revision, RpcError, Text,
    META_CLIENT_CAPABILITIES as CLIENT_CAPABILITIES, META_PROTOCOL_VERSION as PROTOCOL_VERSION,
};
use serde_json::{json, Map, Value};

const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// How a request's revision is found, and which revisions its endpoint serves.
///
/// stdio and host dispatch are dual-era by `_meta` ([`Era::of`]). On HTTP the
/// `MCP-Protocol-Version` header speaks first ([`Era::of_http`]): the era says whether a
/// request without the modern `_meta` is a 2025-11-25 request there. Once the revision is
/// found (the HTTP transport checks it before routing, to answer a malformed envelope with a
/// 400), it travels in the era, and routing does not work it out again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Era {
    /// The transport the request arrived on.
    pub(crate) carrier: Carrier,
    /// Every revision the endpoint serves: what `server/discover` lists and -32022 names.
    pub(crate) served: &'static [Revision],
    /// A request without the modern `_meta` is served at 2025-11-25 (otherwise it is
    /// malformed, and the legacy opener `initialize` is not a method).
    pub(crate) bare_is_legacy: bool,
    /// The revision, once [`revision_of`] found it for this request.
    pub(crate) revision: Option<Revision>,
}

/// Why an HTTP request's `MCP-Protocol-Version` header cannot stand; the transport words the
/// first two as the header refusals they are (-32020).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum VersionHeaderFault {
    /// Absent, where the body speaks the modern `_meta` or only 2026-07-28 is served.
    Missing,
    /// Present, and naming another revision than the body's `_meta`.
    Mismatch,
    /// A revision this endpoint does not serve: -32022 naming what is served.
    Unsupported(RpcError),
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
            revision: None,
        }
    }

    /// The era of an HTTP request: `header` is the `MCP-Protocol-Version` header's one value
    /// (`None` when absent), `meta` the body's `params._meta`, `served` what the endpoint serves.
    ///
    /// The header names 2026-07-28: the request is modern and must carry the modern `_meta`.
    /// It names 2025-11-25 where that is served, or is absent while the body speaks no modern
    /// `_meta`: the request is served at 2025-11-25, as stdio serves it. Any other value
    /// (2025-06-18 and older included: this endpoint never negotiates them, its `initialize`
    /// answers 2025-11-25) is -32022 naming what is served, as the 2025-11-25 transport
    /// prescribes. A header that names another revision than `_meta` does is a mismatch.
    ///
    /// # Errors
    /// The [`VersionHeaderFault`].
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn of_http(
        header: Option<&str>,
        meta: Option<&Meta<'_>>,
        served: &'static [Revision],
    ) -> Result<Era, VersionHeaderFault> {
        let legacy_served = served.contains(&Revision::V2025_11_25);
        let modern = match header.map(str::parse::<Revision>) {
            Some(Ok(Revision::V2026_07_28)) => true,
            Some(Ok(Revision::V2025_11_25)) if legacy_served => false,
            Some(_) => {
                let requested = header.unwrap_or_default();
                return Err(VersionHeaderFault::Unsupported(unsupported(
                    requested, served,
                )));
            }
            None if meta.is_some_and(Meta::speaks_modern) || !legacy_served => {
                return Err(VersionHeaderFault::Missing);
            }
            None => false,
        };
        let meta_version = meta.and_then(|meta| meta.protocol_version.as_ref());
        if let (Some(v), Some(said)) = (header, meta_version) {
            if said.as_str() != Some(v) {
                return Err(VersionHeaderFault::Mismatch);
            }
        }
        Ok(Era {
            carrier: Carrier::Http,
            served,
            bare_is_legacy: !modern,
            revision: None,
        })
    }

    /// The same era, carrying the revision [`revision_of`] found.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_revision(self, revision: Revision) -> Era {
        Era {
            revision: Some(revision),
            ..self
        }
    }
}

/// -32022: `requested` is not served; `data` names what is.
fn unsupported(requested: &str, served: &[Revision]) -> RpcError {
    let list: Vec<&str> = served.iter().map(|r| r.as_str()).collect();
    RpcError::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(json!({ "supported": list, "requested": requested }))
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
    let revision = match requested.parse::<Revision>() {
        Ok(r) if era.served.contains(&r) => r,
        _ => return Err(unsupported(requested, era.served)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decode::decode;

    const BOTH: &[Revision] = &Revision::ALL;

    /// The era `header` gives a request whose body is `frame`, on an endpoint serving `served`.
    fn era(
        header: Option<&str>,
        frame: &str,
        served: &'static [Revision],
    ) -> Result<Era, VersionHeaderFault> {
        let m = decode(frame.as_bytes()).expect("a valid frame");
        Era::of_http(header, m.meta(), served)
    }

    const BARE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    const MODERN_META: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;

    #[test]
    fn the_header_picks_the_era_and_the_body_must_agree() {
        let modern = era(Some("2026-07-28"), MODERN_META, BOTH).expect("modern");
        assert!(!modern.bare_is_legacy);
        assert_eq!(modern.revision, None);
        let legacy = era(Some("2025-11-25"), BARE, BOTH).expect("legacy");
        assert!(legacy.bare_is_legacy);
        assert_eq!(era(None, BARE, BOTH).map(|e| e.bare_is_legacy), Ok(true));
        assert_eq!(
            era(Some("2025-11-25"), MODERN_META, BOTH),
            Err(VersionHeaderFault::Mismatch)
        );
    }

    #[test]
    fn an_absent_header_is_missing_where_the_body_or_the_endpoint_is_modern() {
        assert_eq!(
            era(None, MODERN_META, BOTH),
            Err(VersionHeaderFault::Missing)
        );
        assert_eq!(
            era(None, BARE, MODERN_ONLY),
            Err(VersionHeaderFault::Missing)
        );
    }

    #[test]
    fn a_revision_not_served_is_32022_naming_what_is() {
        for (header, served) in [
            ("2025-06-18", BOTH),
            ("2025-11-25", MODERN_ONLY),
            ("x", BOTH),
        ] {
            let Err(VersionHeaderFault::Unsupported(e)) = era(Some(header), BARE, served) else {
                panic!("{header} on {served:?} must be unsupported");
            };
            assert_eq!(e.code(), codes::UNSUPPORTED_PROTOCOL_VERSION);
            let listed: Vec<&str> = served.iter().map(|r| r.as_str()).collect();
            assert_eq!(
                e.data(),
                Some(&json!({ "supported": listed, "requested": header }))
            );
        }
    }

    #[test]
    fn a_found_revision_travels_in_the_era() {
        let m = decode(MODERN_META.as_bytes()).expect("a valid frame");
        let era = Era::of_http(Some("2026-07-28"), m.meta(), BOTH).expect("modern");
        let found = revision_of(&m, era);
        assert!(found.is_err(), "2026-07-28 requires clientCapabilities");
        assert_eq!(
            era.with_revision(Revision::V2026_07_28).revision,
            Some(Revision::V2026_07_28)
        );
    }
}

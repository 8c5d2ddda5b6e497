//! Liveness and readiness at the paths the host chose: the probe's answer as JSON, never
//! cached.

use super::config::HealthPaths;
use crate::health::Health;
use crate::protocol::RpcError;
use crate::transport::http::rejection::{json, Rejection};
use bytes::Bytes;
use http::request::Parts;
use http::{header, HeaderValue, Method, Response, StatusCode};
use http_body_util::Full;
use serde_json::json;

/// Which of the two is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asked {
    Live,
    Ready,
}

/// Whether `path` is one of the health paths, and which.
pub(super) fn which(paths: &HealthPaths, path: &str) -> Option<Asked> {
    if path == paths.live {
        Some(Asked::Live)
    } else if path == paths.ready {
        Some(Asked::Ready)
    } else {
        None
    }
}

/// The answer to a `GET` (or `HEAD`) of a health path.
pub(super) fn answer(
    asked: Asked,
    health: Health,
    parts: &Parts,
) -> Result<Response<Full<Bytes>>, Rejection> {
    let head = parts.method == Method::HEAD;
    if parts.method != Method::GET && !head {
        let mut r = Rejection::new(
            StatusCode::METHOD_NOT_ALLOWED,
            RpcError::invalid_request("only GET is served here"),
        );
        r.allow = Some("GET, HEAD");
        return Err(r);
    }
    let (ok, body) = match asked {
        Asked::Live if health.is_live() => (true, json!({"status": "live"})),
        Asked::Live => (false, json!({"status": "down"})),
        Asked::Ready if health.is_ready() => (true, json!({"status": "ready"})),
        Asked::Ready => {
            let unready: Vec<&str> = health.unready().iter().map(|u| u.as_str()).collect();
            (false, json!({"status": "unready", "unready": unready}))
        }
    };
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    let len = bytes.len();
    let mut r = json(status, if head { Vec::new() } else { bytes });
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if head {
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    Ok(r)
}

//! Liveness and readiness at the paths the host chose: the probe's answer as JSON, never
//! cached.

use super::config::HealthPaths;
use crate::health::Health;
use crate::transport::http::rejection::{read_only, Rejection};
use bytes::Bytes;
use http::request::Parts;
use http::{HeaderValue, Response, StatusCode};
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
    read_only(parts, status, bytes, HeaderValue::from_static("no-store"))
}

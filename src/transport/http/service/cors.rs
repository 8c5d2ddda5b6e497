//! CORS for browser clients, off unless the host enables it ([`HttpService::cors`], with the
//! [`Cors`](super::Cors) of `service/config.rs`): the preflight a browser sends before a
//! cross-origin request, decided by the same `Host` and `Origin` rules as every request, and
//! the headers an answer to an allowed origin carries so that the page may read it. Which
//! origins are allowed is the service's [`AllowedOrigins`](super::AllowedOrigins), never a
//! second list.
//!
//! [`HttpService::cors`]: super::HttpService::cors

use super::config::{AllowedOrigins, Config};
use super::gatekeeping;
use crate::transport::http::headers::{Head, Read, PARAM_PREFIX};
use crate::transport::http::rejection::Rejection;
use bytes::Bytes;
use http::header::{self, HeaderName, HeaderValue};
use http::request::Parts;
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;

/// The request headers MCP clients write to the endpoint, beside the `Mcp-Param-*` ones: the
/// MCP headers, and the W3C trace context a client's HTTP instrumentation adds (read with the
/// `otel` feature, ignored without it: admitting it lets such a page call at all).
const ENDPOINT_HEADERS: &str = "Content-Type, Accept, Authorization, MCP-Protocol-Version, \
    Mcp-Method, Mcp-Name, traceparent, tracestate";
/// The request headers MCP clients write when they fetch the metadata document.
const METADATA_HEADERS: &str = "Accept, MCP-Protocol-Version";
/// What the answers carry that a client reads beyond the CORS-safelisted response headers.
const EXPOSED: &str = "WWW-Authenticate";
/// What a preflight's answer depends on beside the configuration.
const PREFLIGHT_VARY: &str =
    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers";

/// The paths CORS covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// The MCP endpoint.
    Endpoint,
    /// A well-known location of the resource-server metadata.
    Metadata,
}

fn route(c: &Config, path: &str) -> Option<Route> {
    // The health paths are for probes, not pages, and are answered before the endpoint's
    // rules: never the endpoint, even when every other path is.
    if c.health
        .as_ref()
        .is_some_and(|h| path == h.live || path == h.ready)
    {
        return None;
    }
    if c.resource_server
        .as_ref()
        .is_some_and(|rs| rs.is_metadata_path(path))
    {
        return Some(Route::Metadata);
    }
    match &c.path {
        Some(p) if p != path => None,
        _ => Some(Route::Endpoint),
    }
}

/// Whether a request is a CORS preflight: `OPTIONS` carrying `Origin` and
/// `Access-Control-Request-Method`. Any other `OPTIONS` is answered as today (405).
fn is_preflight(method: &Method, headers: &http::HeaderMap) -> bool {
    method == Method::OPTIONS
        && headers.contains_key(header::ORIGIN)
        && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
}

/// The answer to a preflight on a path CORS covers, when CORS is on and the request is one:
/// 204 with the methods and headers MCP uses, or the 403 the `Host` and `Origin` rules give.
/// `None` for every other request, which goes on to the usual checks.
pub(super) fn preflight(
    c: &Config,
    parts: &Parts,
) -> Option<Result<Response<Full<Bytes>>, Rejection>> {
    let cors = c.cors.as_ref()?;
    if !is_preflight(&parts.method, &parts.headers) {
        return None;
    }
    let route = route(c, parts.uri.path())?;
    let head = Head::scan(&parts.headers);
    if let Err(refuse) = gatekeeping::check_host_and_origin(c, parts, &head) {
        return Some(Err(refuse.unread()));
    }
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    let (methods, headers) = match route {
        Route::Endpoint => ("POST", allowed_endpoint_headers(&parts.headers)),
        Route::Metadata => ("GET", HeaderValue::from_static(METADATA_HEADERS)),
    };
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(methods),
    );
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, headers);
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        cors.max_age_header().clone(),
    );
    Some(Ok(r))
}

/// MCP's fixed headers, and each `Mcp-Param-*` name the preflight's
/// `Access-Control-Request-Headers` asks for (lower case, once each). Nothing else it asks for
/// is echoed.
fn allowed_endpoint_headers(request: &http::HeaderMap) -> HeaderValue {
    let mut params: Vec<&str> = Vec::new();
    for value in request.get_all(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        let Ok(value) = value.to_str() else { continue };
        for name in value.split(',').map(str::trim) {
            let is_param = name.len() > PARAM_PREFIX.len()
                && name.as_bytes()[..PARAM_PREFIX.len()]
                    .eq_ignore_ascii_case(PARAM_PREFIX.as_bytes())
                && HeaderName::from_bytes(name.as_bytes()).is_ok();
            if is_param && !params.iter().any(|p| p.eq_ignore_ascii_case(name)) {
                params.push(name);
            }
        }
    }
    if params.is_empty() {
        return HeaderValue::from_static(ENDPOINT_HEADERS);
    }
    let mut list = String::from(ENDPOINT_HEADERS);
    for p in params {
        list.push_str(", ");
        list.extend(p.chars().map(|c| c.to_ascii_lowercase()));
    }
    // Every piece is a header name (visible ASCII), so the value is one.
    HeaderValue::from_str(&list).unwrap_or_else(|_| HeaderValue::from_static(ENDPOINT_HEADERS))
}

/// The CORS headers one answer carries, decided from its request before the request is
/// consumed; `None` when CORS is off or the path is not one CORS covers (nothing changes).
#[derive(Debug)]
pub(super) struct Answer {
    /// `Access-Control-Allow-Origin`, for an allowed origin.
    allow_origin: Option<HeaderValue>,
    preflight: bool,
}

impl Answer {
    /// What the answer to `req` will carry.
    pub(super) fn of<B>(c: &Config, req: &Request<B>) -> Option<Answer> {
        c.cors.as_ref()?;
        route(c, req.uri().path())?;
        let head = Head::scan(req.headers());
        let mut origins = head.values(Read::Origin);
        let allow_origin = match (origins.next(), origins.next()) {
            (Some(origin), None) if c.origins.allows(origin) => Some(match c.origins {
                AllowedOrigins::Any => HeaderValue::from_static("*"),
                AllowedOrigins::List(_) => origin.clone(),
            }),
            _ => None,
        };
        Some(Answer {
            allow_origin,
            preflight: is_preflight(req.method(), req.headers()),
        })
    }

    /// Adds them to `r`.
    pub(super) fn apply(self, r: &mut Response<Full<Bytes>>) {
        let h = r.headers_mut();
        let vary = if self.preflight {
            PREFLIGHT_VARY
        } else {
            "Origin"
        };
        h.append(header::VARY, HeaderValue::from_static(vary));
        let Some(origin) = self.allow_origin else {
            return;
        };
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        if !self.preflight {
            h.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static(EXPOSED),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(names: &[&str]) -> http::HeaderMap {
        let mut m = http::HeaderMap::new();
        for n in names {
            m.append(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                HeaderValue::from_bytes(n.as_bytes()).unwrap(),
            );
        }
        m
    }

    #[test]
    fn only_mcp_param_headers_are_echoed_once_each() {
        let none = allowed_endpoint_headers(&asked(&[]));
        assert_eq!(none, ENDPOINT_HEADERS);
        let v = allowed_endpoint_headers(&asked(&[
            "content-type, mcp-param-place,x-evil , Mcp-Param-Days",
            "mcp-param-place, mcp-param-, cookie, mcp-paramx",
        ]));
        assert_eq!(
            v.to_str().unwrap(),
            format!("{ENDPOINT_HEADERS}, mcp-param-place, mcp-param-days")
        );
        // Not a header name: left out, never copied into the answer.
        let v = allowed_endpoint_headers(&asked(&["mcp-param-a b, mcp-param-é"]));
        assert_eq!(v, ENDPOINT_HEADERS);
    }
}

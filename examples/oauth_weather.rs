//! A weather host behind OAuth: the HTTP transport as an OAuth 2.1 resource server
//! (`beam_mcp::transport::http::oauth`), its tokens issued by a real authorization server.
//!
//! ```text
//! cargo run --example oauth_weather -- --http 127.0.0.1:4000 --issuer http://127.0.0.1:4100
//! ```
//!
//! The resource is `http://ADDR/mcp` (or `--resource URL`). At startup the example reads the
//! issuer's OpenID configuration and the signing keys it publishes (`jwks_uri`); then every
//! request must carry a JWT access token the issuer signed for that resource. What the crate
//! does and what this host does:
//!
//! - The crate publishes the protected-resource metadata (RFC 9728) at
//!   `/.well-known/oauth-protected-resource/mcp` (and the root form), answers a request without
//!   a token 401 with the `WWW-Authenticate` challenge a client starts its login from, refuses
//!   a token in the query string, checks the token's audience is this resource and its expiry
//!   lies ahead, and answers a missing scope 403 `insufficient_scope`.
//! - This host's verifier checks the signature with the issuer's keys and the issuer (the
//!   `jsonwebtoken` crate; the library links no cryptography), and its scope policy says what
//!   each request needs: `get_weather`, `whoami` and everything else `weather:read`,
//!   `get_alerts` `weather:alerts`. A client's first login asks for `weather:read` alone (the
//!   challenge's scope); its first `get_alerts` makes it step up.
//!
//! `tools/oauth_interop.sh` drives it with the TypeScript and Python SDK clients against a
//! real `oidc-provider`; `docs/oauth.md` walks through it.

use beam_mcp::handler::Extension;
use beam_mcp::transport::http::oauth::{
    BearerToken, Grant, ResourceServer, TokenRefusal, VerifiedToken,
};
use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
use beam_mcp::{Args, Catalog, Json, Server, ServerConfig, ToolError, ToolSpec};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{errors::ErrorKind, DecodingKey, Validation};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

/// Each station: its place, the temperature in °C, the conditions, the alerts in force.
const PLACES: [(&str, i64, &str, &[&str]); 2] = [
    ("Oslo", 12, "light rain", &[]),
    ("Lima", 19, "overcast", &["coastal fog"]),
];

/// Where to read the weather.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Query {
    /// The place, as its station is named (any case).
    #[schemars(length(min = 1, max = 64))]
    place: String,
}

/// The weather at a station.
#[derive(Serialize, JsonSchema)]
struct Report {
    place: &'static str,
    celsius: i64,
    conditions: &'static str,
}

/// The alerts in force at a station.
#[derive(Serialize, JsonSchema)]
struct Alerts {
    place: &'static str,
    alerts: Vec<&'static str>,
}

/// Who called, as the verifier saw the token.
#[derive(Serialize, JsonSchema)]
struct Caller {
    subject: String,
    scopes: Vec<String>,
}

/// The host's principal, built by its verifier from the token's claims.
#[derive(Debug, Clone)]
struct Principal {
    subject: String,
}

type Station = (&'static str, i64, &'static str, &'static [&'static str]);

fn station(place: &str) -> Result<&'static Station, ToolError> {
    PLACES
        .iter()
        .find(|(p, ..)| p.eq_ignore_ascii_case(place))
        .ok_or_else(|| ToolError::new(format!("no weather station for {place}")))
}

async fn get_weather(Args(q): Args<Query>) -> Result<Json<Report>, ToolError> {
    let (place, celsius, conditions, _) = station(&q.place)?;
    Ok(Json(Report {
        place,
        celsius: *celsius,
        conditions,
    }))
}

async fn get_alerts(Args(q): Args<Query>) -> Result<Json<Alerts>, ToolError> {
    let (place, _, _, alerts) = station(&q.place)?;
    Ok(Json(Alerts {
        place,
        alerts: alerts.to_vec(),
    }))
}

/// Reads the principal the verifier built and the grant the crate left beside it: the token
/// itself never reaches a tool.
async fn whoami(
    Extension(principal): Extension<Principal>,
    Extension(grant): Extension<Grant>,
) -> Result<Json<Caller>, ToolError> {
    Ok(Json(Caller {
        subject: principal.subject,
        scopes: grant.scopes().to_vec(),
    }))
}

fn catalog() -> Catalog {
    Catalog::new()
        .tool(
            ToolSpec::new("get_weather", "Read the current weather for a place.")
                .with_handler(get_weather),
        )
        .tool(
            ToolSpec::new(
                "get_alerts",
                "Read the weather alerts in force for a place (needs weather:alerts).",
            )
            .with_handler(get_alerts),
        )
        .tool(
            ToolSpec::new(
                "whoami",
                "Say whom the access token was issued to and what it grants.",
            )
            .with_handler(whoami),
        )
}

/// The claims this host reads from an access token.
#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    #[serde(default)]
    aud: Value,
    #[serde(default)]
    scope: String,
    exp: u64,
}

/// The host's verifier: the signature by one of the issuer's keys, the issuer, and the claims
/// the crate checks next (audience, expiry) handed over as they are.
struct Verifier {
    issuer: String,
    keys: JwkSet,
}

impl Verifier {
    fn verify(&self, token: &BearerToken) -> Result<VerifiedToken, TokenRefusal> {
        let header = jsonwebtoken::decode_header(token.secret())
            .map_err(|_| TokenRefusal::invalid("not a JWT"))?;
        // An access token (RFC 9068 §4), not an ID token the client was also issued.
        let access_token = header.typ.as_deref().is_some_and(|t| {
            t.eq_ignore_ascii_case("at+jwt") || t.eq_ignore_ascii_case("application/at+jwt")
        });
        if !access_token {
            return Err(TokenRefusal::invalid("not an access token"));
        }
        let kid = header
            .kid
            .as_deref()
            .ok_or(TokenRefusal::invalid("no key id"))?;
        // A long-lived host fetches the keys again on an unknown `kid` (the issuer rotated
        // them); this example's issuer keeps its keys for its life.
        let jwk = self
            .keys
            .find(kid)
            .ok_or(TokenRefusal::invalid("unknown key id"))?;
        let key = DecodingKey::from_jwk(jwk).map_err(|_| TokenRefusal::invalid("unusable key"))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_required_spec_claims(&["exp", "iss"]);
        // The crate checks the audience against the canonical resource itself.
        validation.validate_aud = false;
        validation.leeway = 0;
        let claims = jsonwebtoken::decode::<Claims>(token.secret(), &key, &validation)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => TokenRefusal::expired(),
                ErrorKind::InvalidIssuer => TokenRefusal::invalid("another issuer"),
                ErrorKind::InvalidSignature => TokenRefusal::invalid("bad signature"),
                _ => TokenRefusal::invalid("unreadable claims"),
            })?
            .claims;
        let audience: Vec<String> = match claims.aud {
            Value::String(one) => vec![one],
            Value::Array(many) => many
                .into_iter()
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        let subject = claims.sub.unwrap_or_default();
        Ok(VerifiedToken::new(audience)
            .scopes(claims.scope.split_ascii_whitespace())
            .expires_at(UNIX_EPOCH + Duration::from_secs(claims.exp))
            .subject(subject.clone())
            .with(Principal { subject }))
    }
}

/// GETs `url` as JSON, trying for up to five seconds while the issuer starts.
async fn get_json(url: &str) -> Result<Value, String> {
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let uri: http::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let mut last = String::new();
    for _ in 0..50 {
        match client.get(uri.clone()).await {
            Ok(r) if r.status().is_success() => {
                let body = r.into_body().collect().await.map_err(|e| e.to_string())?;
                return serde_json::from_slice(&body.to_bytes()).map_err(|e| e.to_string());
            }
            Ok(r) => last = format!("{url}: {}", r.status()),
            Err(e) => last = format!("{url}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(last)
}

struct Options {
    addr: String,
    issuer: String,
    resource: Option<String>,
}

fn options() -> Option<Options> {
    let (mut addr, mut issuer, mut resource) = (None, None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next()?;
        match flag.as_str() {
            "--http" => addr = Some(value),
            "--issuer" => issuer = Some(value.trim_end_matches('/').to_owned()),
            "--resource" => resource = Some(value),
            _ => return None,
        }
    }
    Some(Options {
        addr: addr?,
        issuer: issuer?,
        resource,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let Some(o) = options() else {
        eprintln!("usage: oauth_weather --http ADDR --issuer URL [--resource URL]");
        return ExitCode::from(2);
    };
    let resource = o
        .resource
        .unwrap_or_else(|| format!("http://{}/mcp", o.addr));
    let discovery = format!("{}/.well-known/openid-configuration", o.issuer);
    let keys = match get_json(&discovery).await.and_then(|conf| {
        conf["jwks_uri"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{discovery} names no jwks_uri"))
    }) {
        Ok(jwks_uri) => get_json(&jwks_uri).await,
        Err(e) => Err(e),
    };
    let keys: JwkSet = match keys.and_then(|k| serde_json::from_value(k).map_err(|e| e.to_string()))
    {
        Ok(keys) => keys,
        Err(e) => {
            eprintln!("oauth_weather: cannot read the issuer's keys: {e}");
            return ExitCode::FAILURE;
        }
    };
    let verifier = Arc::new(Verifier {
        issuer: o.issuer.clone(),
        keys,
    });
    let protected =
        ResourceServer::builder(resource.clone(), move |token: BearerToken, _resource| {
            let verifier = verifier.clone();
            async move { verifier.verify(&token) }
        })
        .authorization_server(o.issuer.clone())
        .scopes_supported(["weather:read", "weather:alerts"])
        .challenge_scope(["weather:read"])
        .resource_name("BeamMCP weather (protected)")
        .scopes_needed(|access| {
            let needs = match (access.method(), access.name()) {
                ("tools/call", Some("get_alerts")) => "weather:alerts",
                _ => "weather:read",
            };
            vec![needs.to_owned()]
        })
        .build();
    let protected = match protected {
        Ok(p) => p,
        Err(e) => {
            eprintln!("oauth_weather: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = match Server::new(ServerConfig::new(catalog())) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("oauth_weather: {e}");
            return ExitCode::FAILURE;
        }
    };
    let service = HttpService::new(
        server,
        |_: &http::request::Parts| Ok(()),
        AllowedOrigins::list(["http://localhost", "http://127.0.0.1"]),
    )
    .path("/mcp")
    .resource_server(protected);
    let listener = match tokio::net::TcpListener::bind(&o.addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("oauth_weather: cannot bind {}: {e}", o.addr);
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(%resource, issuer = %o.issuer, "listening");
    tokio::select! {
        never = serve(listener, service) => match never {},
        Ok(()) = tokio::signal::ctrl_c() => ExitCode::SUCCESS,
    }
}

//! The OAuth 2.1 resource-server mode of the HTTP transport, as the MCP authorization
//! specification (2025-11-25, kept by 2026-07-28) makes an MCP server one.
//!
//! The crate does the protocol around a token: it publishes the Protected Resource Metadata
//! of RFC 9728 (at the well-known location for the endpoint's path, and at the root form
//! clients fall back to), reads the bearer token from `Authorization` and nowhere else,
//! answers a missing or refused token 401 with the `WWW-Authenticate: Bearer` challenge
//! clients start their login from, a token without a needed scope 403 `insufficient_scope`,
//! and checks that the token was issued for this resource and has not expired. The host
//! does the rest through its [`TokenVerifier`]: checking a signature or introspecting a
//! token, which the crate never does (it links no cryptography), and which scope a request
//! needs ([`ResourceServerBuilder::scopes_needed`]).
//!
//! ```
//! use beam_mcp::transport::http::oauth::{BearerToken, ResourceServer, TokenRefusal, VerifiedToken};
//! use beam_mcp::transport::http::{AllowedOrigins, HttpService};
//! use beam_mcp::{Catalog, Server, ServerConfig};
//! use std::sync::Arc;
//!
//! // A real verifier checks a JWT's signature against the authorization server's keys, or
//! // introspects the token; this one knows a single token.
//! async fn verify(token: BearerToken, resource: Arc<str>) -> Result<VerifiedToken, TokenRefusal> {
//!     match token.secret() {
//!         "let-me-in" => Ok(VerifiedToken::new([resource.to_string()]).scopes(["weather:read"])),
//!         _ => Err(TokenRefusal::invalid("unknown token")),
//!     }
//! }
//!
//! let protected = ResourceServer::builder("https://mcp.example.com/mcp", verify)
//! .authorization_server("https://auth.example.com")
//! .scopes_supported(["weather:read"])
//! .build()
//! .unwrap();
//! let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
//! let service = HttpService::new(server, |_| Ok(()), AllowedOrigins::list(["https://app.example.com"]))
//!     .allowed_hosts(["mcp.example.com"])
//!     .path("/mcp")
//!     .resource_server(protected);
//! # let _ = service;
//! ```

mod challenge;
mod resource;
mod token;

pub use resource::{ResourceFault, ResourceServerError};
pub use token::{BearerToken, Grant, TokenRefusal, TokenVerifier, VerifiedToken};

pub(crate) use challenge::{
    credentials, is_scope_token, query_carries_token, Challenge, ChallengeError, Credentials,
};
pub(crate) use token::RefusalKind;

use crate::dispatch::Extensions;
use bytes::Bytes;
use http::HeaderValue;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How long clients and caches may keep the metadata document by default: one hour.
pub const DEFAULT_METADATA_MAX_AGE: Duration = Duration::from_secs(3600);

/// The request a scope policy decides on ([`ResourceServerBuilder::scopes_needed`]).
#[derive(Debug)]
pub struct Access<'a> {
    pub(crate) method: &'a str,
    pub(crate) name: Option<&'a str>,
    pub(crate) grant: &'a Grant,
    pub(crate) extensions: &'a Extensions,
}

impl Access<'_> {
    /// The JSON-RPC method (`tools/call`, `resources/read`, …).
    pub fn method(&self) -> &str {
        self.method
    }

    /// What the request names: the tool of `tools/call`, the prompt of `prompts/get`, the
    /// URI of `resources/read`.
    pub fn name(&self) -> Option<&str> {
        self.name
    }

    /// What the caller's token granted.
    pub fn grant(&self) -> &Grant {
        self.grant
    }

    /// The caller's context: the verifier's principal and the `authorize_async` hook's.
    pub fn extensions(&self) -> &Extensions {
        self.extensions
    }
}

/// The scopes a request needs, by the host's policy.
type ScopePolicy = dyn Fn(&Access<'_>) -> Vec<String> + Send + Sync;

/// A resource server's configuration, checked: what [`crate::transport::http::HttpService::resource_server`]
/// takes. Cheap to clone.
#[derive(Clone)]
pub struct ResourceServer {
    inner: Arc<Prepared>,
}

/// What each request reads, computed once.
struct Prepared {
    resource: Arc<str>,
    /// The path form of the metadata's location (`/.well-known/oauth-protected-resource/mcp`).
    metadata_path: String,
    /// Its absolute URL, the challenge's `resource_metadata`.
    metadata_url: String,
    document: Bytes,
    cache_control: HeaderValue,
    challenge_scope: Option<String>,
    verifier: Arc<dyn TokenVerifier>,
    policy: Option<Arc<ScopePolicy>>,
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.inner.resource)
            .field("metadata_url", &self.inner.metadata_url)
            .field("challenge_scope", &self.inner.challenge_scope)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// A builder for the resource `resource` (its canonical URI: the endpoint's URL, as
    /// clients name it and tokens' audiences carry it), whose tokens `verifier` checks.
    pub fn builder<V: TokenVerifier>(
        resource: impl Into<String>,
        verifier: V,
    ) -> ResourceServerBuilder {
        ResourceServerBuilder {
            resource: resource.into(),
            verifier: Arc::new(verifier),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            challenge_scope: None,
            resource_name: None,
            resource_documentation: None,
            max_age: DEFAULT_METADATA_MAX_AGE,
            policy: None,
        }
    }

    /// The canonical resource URI, in the normal form the metadata publishes and audiences
    /// are compared with.
    pub fn resource(&self) -> &str {
        &self.inner.resource
    }

    /// The metadata document's URL (the path form), as challenges name it.
    pub fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// The paths the metadata is served at: the path form for the resource's path, then the
    /// root form. A host that mounts the service under a prefix in its own router routes these
    /// two paths to the service too (`docs/oauth.md`, "Mounted in a router").
    pub fn metadata_paths(&self) -> [&str; 2] {
        [&self.inner.metadata_path, challenge::WELL_KNOWN]
    }

    pub(crate) fn resource_arc(&self) -> Arc<str> {
        self.inner.resource.clone()
    }

    pub(crate) fn verifier(&self) -> &Arc<dyn TokenVerifier> {
        &self.inner.verifier
    }

    /// Whether `path` is where the metadata is published: the path form, or the root form.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        path == self.inner.metadata_path || path == challenge::WELL_KNOWN
    }

    pub(crate) fn document(&self) -> &Bytes {
        &self.inner.document
    }

    pub(crate) fn cache_control(&self) -> &HeaderValue {
        &self.inner.cache_control
    }

    /// The challenge for a refusal of `error` (none for a request without a token), naming
    /// `scope` or, by default, the scope a client should first ask for.
    pub(crate) fn challenge(
        &self,
        error: Option<(ChallengeError, &'static str)>,
        scope: Option<&str>,
    ) -> HeaderValue {
        Challenge {
            error,
            resource_metadata: Some(&self.inner.metadata_url),
            scope: scope.or(self.inner.challenge_scope.as_deref()),
        }
        .header_value()
    }

    /// The scopes `access` needs that its grant lacks, by the host's policy; `None` when it
    /// lacks none (or there is no policy).
    ///
    /// # Errors
    ///
    /// [`PolicyFault`] when the policy panics or names a scope that is not a scope-token: the
    /// host's bug, which no challenge could let a client repair.
    pub(crate) fn missing_scopes(
        &self,
        access: &Access<'_>,
    ) -> Result<Option<Vec<String>>, PolicyFault> {
        let Some(policy) = self.inner.policy.as_ref() else {
            return Ok(None);
        };
        let needed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| policy(access)))
            .map_err(|_| PolicyFault::Panicked)?;
        if let Some(bad) = needed.iter().find(|s| !challenge::is_scope_token(s)) {
            return Err(PolicyFault::NotAScope(bad.clone()));
        }
        let mut missing: Vec<String> = Vec::new();
        for scope in needed {
            if !access.grant.has_scope(&scope) && !missing.contains(&scope) {
                missing.push(scope);
            }
        }
        Ok((!missing.is_empty()).then_some(missing))
    }
}

/// Why the host's scope policy gave no usable answer.
#[derive(Debug)]
pub(crate) enum PolicyFault {
    Panicked,
    NotAScope(String),
}

/// Builds a [`ResourceServer`]; [`ResourceServerBuilder::build`] checks it.
pub struct ResourceServerBuilder {
    resource: String,
    verifier: Arc<dyn TokenVerifier>,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    challenge_scope: Option<Vec<String>>,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    max_age: Duration,
    policy: Option<Arc<ScopePolicy>>,
}

impl fmt::Debug for ResourceServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServerBuilder")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes_supported", &self.scopes_supported)
            .finish_non_exhaustive()
    }
}

impl ResourceServerBuilder {
    /// An authorization server whose tokens this resource accepts (its issuer URL), listed
    /// in the metadata's `authorization_servers`. At least one is required; clients use the
    /// first.
    #[must_use]
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes this resource understands (`scopes_supported` in the metadata). Unless
    /// [`ResourceServerBuilder::challenge_scope`] says otherwise, a 401 asks for all of them.
    #[must_use]
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes a 401 asks a client to request (its `scope` parameter): the least a
    /// client needs to begin. A request that needs more is answered 403 when it comes.
    #[must_use]
    pub fn challenge_scope<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.challenge_scope = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// A name for people, the metadata's `resource_name`.
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page for developers, the metadata's `resource_documentation`.
    #[must_use]
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// How long the metadata may be cached (`Cache-Control: public, max-age=…`; default
    /// [`DEFAULT_METADATA_MAX_AGE`]).
    #[must_use]
    pub fn metadata_max_age(mut self, max_age: Duration) -> Self {
        self.max_age = max_age;
        self
    }

    /// The host's scope policy: the scopes a request needs, given its method, what it names
    /// and the caller's grant. A request whose grant lacks one is answered 403
    /// `insufficient_scope` before anything runs, naming the scopes granted and those
    /// missing (so that a client stepping up keeps what it had). The crate decides nothing:
    /// without a policy, every valid token may do everything.
    ///
    /// ```
    /// # use beam_mcp::transport::http::oauth::{ResourceServer, TokenRefusal};
    /// # let builder = ResourceServer::builder("https://mcp.example.com/mcp",
    /// #     |_, _| async { Err(TokenRefusal::invalid("none")) });
    /// let builder = builder.scopes_needed(|access| match (access.method(), access.name()) {
    ///     ("tools/call", Some("get_alerts")) => vec!["weather:alerts".to_string()],
    ///     _ => vec!["weather:read".to_string()],
    /// });
    /// # let _ = builder;
    /// ```
    #[must_use]
    pub fn scopes_needed<F>(mut self, policy: F) -> Self
    where
        F: Fn(&Access<'_>) -> Vec<String> + Send + Sync + 'static,
    {
        self.policy = Some(Arc::new(policy));
        self
    }

    /// The resource server, checked.
    ///
    /// # Errors
    ///
    /// [`ResourceServerError`] when the resource is not an absolute `https` URI (or `http`
    /// on a loopback host) without query or fragment, an authorization server is not an
    /// absolute `http(s)` URI or none is given, a scope is not an RFC 6749 `scope-token`, or
    /// the documentation link is not an `http(s)` URI.
    pub fn build(self) -> Result<ResourceServer, ResourceServerError> {
        let (resource, path) = resource::check(&self.resource)?;
        if self.authorization_servers.is_empty() {
            return Err(ResourceServerError::NoAuthorizationServer);
        }
        for issuer in &self.authorization_servers {
            if !resource::is_web_uri(issuer) {
                return Err(ResourceServerError::AuthorizationServer {
                    uri: issuer.clone(),
                });
            }
        }
        if let Some(doc) = &self.resource_documentation {
            if !resource::is_web_uri(doc) {
                return Err(ResourceServerError::Documentation { uri: doc.clone() });
            }
        }
        let challenge = self
            .challenge_scope
            .clone()
            .unwrap_or_else(|| self.scopes_supported.clone());
        for scope in self.scopes_supported.iter().chain(&challenge) {
            if !challenge::is_scope_token(scope) {
                return Err(ResourceServerError::Scope {
                    scope: scope.clone(),
                });
            }
        }
        let metadata_path = challenge::metadata_path(&path);
        let origin_end = resource.len() - path.len();
        let metadata_url = format!("{}{metadata_path}", &resource[..origin_end]);
        let mut document = serde_json::Map::new();
        document.insert("resource".into(), resource.clone().into());
        document.insert(
            "authorization_servers".into(),
            self.authorization_servers.clone().into(),
        );
        if !self.scopes_supported.is_empty() {
            document.insert(
                "scopes_supported".into(),
                self.scopes_supported.clone().into(),
            );
        }
        document.insert("bearer_methods_supported".into(), vec!["header"].into());
        if let Some(name) = &self.resource_name {
            document.insert("resource_name".into(), name.clone().into());
        }
        if let Some(doc) = &self.resource_documentation {
            document.insert("resource_documentation".into(), doc.clone().into());
        }
        let document = serde_json::to_vec(&serde_json::Value::Object(document))
            .map(Bytes::from)
            .unwrap_or_default();
        let cache_control =
            HeaderValue::from_str(&format!("public, max-age={}", self.max_age.as_secs()))
                .unwrap_or(HeaderValue::from_static("no-cache"));
        Ok(ResourceServer {
            inner: Arc::new(Prepared {
                resource: resource.into(),
                metadata_path,
                metadata_url,
                document,
                cache_control,
                challenge_scope: (!challenge.is_empty()).then(|| challenge.join(" ")),
                verifier: self.verifier,
                policy: self.policy,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder(resource: &str) -> ResourceServerBuilder {
        ResourceServer::builder(resource, |_, _| async {
            Err(TokenRefusal::invalid("test"))
        })
        .authorization_server("https://auth.example.com")
    }

    #[test]
    fn the_metadata_lives_at_the_path_form_and_the_root_form() {
        let rs = builder("https://mcp.example.com/mcp").build().unwrap();
        assert_eq!(
            rs.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert!(rs.is_metadata_path("/.well-known/oauth-protected-resource/mcp"));
        assert!(rs.is_metadata_path("/.well-known/oauth-protected-resource"));
        assert!(!rs.is_metadata_path("/mcp"));
        let root = builder("http://127.0.0.1:4000").build().unwrap();
        assert_eq!(
            root.metadata_url(),
            "http://127.0.0.1:4000/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn the_resource_is_published_and_compared_in_its_normal_form() {
        for spelt in [
            "http://LOCALHOST/mcp",
            "http://localhost:80/mcp",
            "HTTP://localhost/mcp",
            "http://localhost:/a/../mcp",
            "http://localhost/%6dcp",
        ] {
            let rs = builder(spelt).build().unwrap();
            assert_eq!(rs.resource(), "http://localhost/mcp", "{spelt}");
            assert_eq!(
                rs.metadata_url(),
                "http://localhost/.well-known/oauth-protected-resource/mcp"
            );
        }
        let https = builder("https://MCP.example.com:443/mcp").build().unwrap();
        assert_eq!(https.resource(), "https://mcp.example.com/mcp");
        let port = builder("https://mcp.example.com:8443/mcp").build().unwrap();
        assert_eq!(port.resource(), "https://mcp.example.com:8443/mcp");
        assert_eq!(
            port.metadata_paths(),
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
    }

    #[test]
    fn unusable_configurations_are_refused_with_what_is_wrong() {
        let fault = |uri: &str| match builder(uri).build() {
            Err(ResourceServerError::Resource { fault, .. }) => Some(fault),
            _ => None,
        };
        assert_eq!(fault("mcp.example.com/mcp"), Some(ResourceFault::NotAUri));
        assert_eq!(
            fault("http://mcp.example.com/mcp"),
            Some(ResourceFault::Scheme)
        );
        assert_eq!(
            fault("https://mcp.example.com/mcp#x"),
            Some(ResourceFault::Fragment)
        );
        assert_eq!(
            fault("https://mcp.example.com/mcp?a=1"),
            Some(ResourceFault::Query)
        );
        assert_eq!(
            fault("https://u:p@mcp.example.com/mcp"),
            Some(ResourceFault::UserInfo)
        );
        assert_eq!(
            fault("https://mcp.example.com/mcp/"),
            Some(ResourceFault::TrailingSlash)
        );
        assert_eq!(fault("https://mcp.example.com/"), None);
        assert_eq!(fault("http://localhost:3000/mcp"), None);
        assert_eq!(fault("http://[::1]:3000/mcp"), None);
        let none = ResourceServer::builder("https://x/mcp", |_, _| async {
            Err(TokenRefusal::invalid("test"))
        });
        assert_eq!(
            none.build().unwrap_err(),
            ResourceServerError::NoAuthorizationServer
        );
        let bad_as = builder("https://x/mcp").authorization_server("not a uri");
        assert!(matches!(
            bad_as.build(),
            Err(ResourceServerError::AuthorizationServer { .. })
        ));
        let bad_scope = builder("https://x/mcp").scopes_supported(["a b"]);
        assert!(matches!(
            bad_scope.build(),
            Err(ResourceServerError::Scope { .. })
        ));
        let bad_challenge = builder("https://x/mcp").challenge_scope(["\"q\""]);
        assert!(matches!(
            bad_challenge.build(),
            Err(ResourceServerError::Scope { .. })
        ));
    }
}

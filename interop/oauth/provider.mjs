// A real OAuth 2.1 / OpenID provider for the OAuth interop run: `oidc-provider` (the pinned
// tree interop/node/oidc-provider-*/) on a loopback port, issuing JWT access tokens whose
// audience is the resource indicator (RFC 8707) the client asked for.
//
//   node provider.mjs --modules DIR/node_modules --ready FILE \
//        --resource URL [--resource URL ...] [--port N]
//
// Listens on 127.0.0.1 (port N, or a free one), issuer http://127.0.0.1:PORT, then writes the
// issuer to the --ready file (written whole, by rename) and prints `ready <issuer>` on stdout.
// Everything it serves is oidc-provider's own: discovery at /.well-known/openid-configuration,
// the JWKS, dynamic client registration (open: the SDK clients register themselves), the
// authorization endpoint with PKCE (S256, required for public clients), the token endpoint
// (authorization_code and refresh_token grants), and the development login and consent pages
// (`devInteractions`), which the interop scripts fill in as the user does (any login name is an
// account: the name becomes the token's `sub`).
//
// Each --resource is a resource server the provider knows: a token requested with
// `resource=<it>` is a JWT (RS256, from the key in this process's JWKS) with `aud` = that
// indicator, `scope` the granted subset of `weather:read weather:alerts`, lifetime 600 s. A
// request naming any other resource is refused (`invalid_target`). One client is pre-registered
// for the negative checks: `interop-short-lived` (public, redirect http://127.0.0.1/callback),
// whose access tokens live SHORT_TTL seconds, so the run can hold a token the provider really
// issued and watch it expire.
//
// Concessions to the loopback test setting: the issuer is http (an https issuer would need a
// certificate every client trusts; both SDKs accept http on loopback), the signing key and
// cookie keys are generated at start and live only in memory, and the account store accepts any
// login. One policy is set for a client: a dynamically registered client is registered for every
// scope the provider supports (see `extraClientMetadata` below), without which the TypeScript
// SDK cannot step up. Access tokens are RFC 9068 JWTs (`typ: at+jwt`).

import { generateKeyPairSync, randomBytes } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const SCOPES = "weather:read weather:alerts";
const ACCESS_TOKEN_TTL = 600; // seconds
const SHORT_TTL = 2; // seconds, for `interop-short-lived` only
const SHORT_LIVED = "interop-short-lived";
const ALL_SCOPES = ["openid", "offline_access", ...SCOPES.split(" ")];
const REGISTRATION_POLICY = "beam_interop_registration_policy"; // never sent; see extraClientMetadata

function parseArgs() {
  const out = { resource: [] };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.startsWith("--") ? argv[i].slice(2) : undefined;
    if (!key || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    if (key === "resource") out.resource.push(argv[i + 1]);
    else out[key] = argv[i + 1];
  }
  for (const k of ["modules", "ready"]) if (!out[k]) throw new Error(`--${k} is required`);
  if (out.resource.length === 0) throw new Error("at least one --resource is required");
  return out;
}

const a = parseArgs();
const { default: Provider, errors } = await import(
  pathToFileURL(path.join(path.resolve(a.modules), "oidc-provider", "lib", "index.js")).href
);

// The port first: the issuer names it.
const server = http.createServer();
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(Number(a.port ?? 0), "127.0.0.1", resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;
const resources = new Set(a.resource);

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: "jwk" }), kid: "interop-rs256", use: "sig", alg: "RS256" };

const provider = new Provider(issuer, {
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString("base64url")] },
  // weather:* are listed here as well as on the resource servers: dynamic registration accepts
  // a client's `scope` only from this list, and both SDKs register with the scope they are
  // about to request.
  scopes: ALL_SCOPES,
  responseTypes: ["code"],
  // Registration policy: a dynamically registered client is registered for every scope this
  // provider supports, whatever `scope` it asked for (RFC 7591 §3.2.1 lets the server replace
  // requested metadata). oidc-provider otherwise holds a client to the `scope` it registered
  // with, and the TypeScript SDK registers with the scope of the first challenge
  // (`weather:read`): its step-up to `weather:read weather:alerts` would be refused
  // `invalid_scope` by the provider before the user is asked. The hook is oidc-provider's
  // extra-metadata validator, which runs on the registration before the schema checks it.
  extraClientMetadata: {
    properties: [REGISTRATION_POLICY],
    validator(ctx, key, _value, metadata) {
      if (key === REGISTRATION_POLICY && ctx?.oidc?.route === "registration") {
        metadata.scope = ALL_SCOPES.join(" ");
      }
    },
  },
  clients: [
    {
      client_id: SHORT_LIVED,
      client_name: "BeamMCP interop: short-lived access tokens",
      token_endpoint_auth_method: "none",
      redirect_uris: ["http://127.0.0.1/callback"],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  async findAccount(_ctx, id) {
    return { accountId: id, async claims() { return { sub: id }; } };
  },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A client that names no resource gets none (an opaque token for userinfo only).
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      // A token request without `resource` gets the resource the authorization granted.
      useGrantedResource: async () => true,
      async getResourceServerInfo(_ctx, indicator, client) {
        if (!resources.has(indicator)) throw new errors.InvalidTarget();
        return {
          scope: SCOPES,
          audience: indicator,
          accessTokenFormat: "jwt",
          accessTokenTTL: client?.clientId === SHORT_LIVED ? SHORT_TTL : ACCESS_TOKEN_TTL,
          jwt: { sign: { alg: "RS256" } },
        };
      },
    },
  },
  // PKCE: S256 only (the library's only method), required for public clients (its default).
  // Refresh tokens: when `offline_access` was granted (the library's default rule).
  ttl: {
    AccessToken: (_ctx, token, client) =>
      token.resourceServer?.accessTokenTTL ?? (client?.clientId === SHORT_LIVED ? SHORT_TTL : ACCESS_TOKEN_TTL),
  },
});
// Quiet: oidc-provider reports client errors as events; the run records what clients saw.
provider.on("server_error", (_ctx, err) => console.error(`provider: server_error: ${err.stack ?? err}`));

server.on("request", provider.callback());

const shutdown = () => server.close(() => process.exit(0));
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);

writeFileSync(`${a.ready}.tmp`, issuer + "\n");
renameSync(`${a.ready}.tmp`, a.ready);
console.log(`ready ${issuer}`);

// The resource server's refusals on the wire, with real tokens from the real provider: what
// the server answers (status, WWW-Authenticate, Cache-Control, body) to each request below.
//
//   node oauth_raw.mjs --url URL --issuer ISSUER --other-resource URL --tokens-out FILE --out FILE
//
// Tokens (each by authorization code + PKCE, the user played; oauth_user.mjs):
//   full       for the server's resource, weather:read weather:alerts (login raw-alice)
//   read-only  for the server's resource, weather:read only
//   foreign    for --other-resource, both scopes
//   short      for the server's resource from the pre-registered `interop-short-lived` client,
//              whose tokens live 2 s: used at once (accepted), then sent again every 0.5 s until
//              the server refuses it (bounded by EXPIRY_WAIT_S; a verifier's clock leeway
//              lengthens the wait)
// Requests: the metadata document at its path form and at the root form; `initialize` with no
// token, a garbage token, the foreign token, the expired token, the full token in the query
// string (no header); with the read-only token `get_weather` and `get_alerts`; with the full
// token `whoami`. Every token is written to --tokens-out: the foreign and expired ones for the
// SDK clients' scenarios, all of them for the judge's look through the server's log.
//
// Records one JSON object per line: {"check": ..., "status", "www_authenticate", ...};
// tools/oauth_judge.py holds the expectations.

import { writeFileSync } from "node:fs";
import { emitter } from "../node_ops.mjs";
import { mintToken } from "./oauth_user.mjs";

const TIMEOUT_MS = 10000;
const EXPIRY_WAIT_S = 90;
const PROTOCOL = "2025-11-25";

const a = {};
for (let i = 2; i < process.argv.length; i += 2) a[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
for (const k of ["url", "issuer", "other-resource", "tokens-out", "out"]) if (!a[k]) throw new Error(`--${k} is required`);
const emit = emitter(a.out);
const origin = new URL(a.url).origin;

/** One MCP POST; the answer's status, challenge and JSON-RPC message (JSON or one SSE event). */
async function post(message, { token, session, query } = {}) {
  const url = new URL(a.url);
  if (query) for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (session) headers["mcp-session-id"] = session;
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  let body = null;
  const data = text.match(/^data: ?(.*)$/m);
  try {
    body = JSON.parse(data ? data[1] : text);
  } catch {
    body = text.length ? { unparsed: text.slice(0, 300) } : null;
  }
  const challenge = response.headers.get("www-authenticate");
  const sent = token ?? query?.access_token;
  return {
    status: response.status,
    www_authenticate: challenge,
    session: response.headers.get("mcp-session-id"),
    body,
    // Whether the answer repeats the token it was given (it must not).
    ...(sent ? { echoes_token: text.includes(sent) || (challenge ?? "").includes(sent) } : {}),
  };
}

const initialize = (id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "beam-mcp-interop-raw", version: "1" } },
});

/** initialize + notifications/initialized, then the request; the request's answer. */
async function inSession(token, message) {
  const init = await post(initialize(), { token });
  if (init.status !== 200) return { ...init, note: "initialize refused" };
  const session = init.session ?? undefined;
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { token, session });
  return post(message, { token, session });
}

const call = (name, args) => ({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } });

function record(check, observed) {
  const { session: _ignored, ...rest } = observed;
  emit({ check, ...rest });
}

async function guarded(check, fn) {
  try {
    await fn();
  } catch (err) {
    emit({ check, outcome: "exception", message: String(err?.message ?? err) });
  }
}

emit({ header: { url: a.url, issuer: a.issuer, other_resource: a["other-resource"], login: "raw-alice" } });

// The short-lived token first, so it expires while the other checks run.
const resource = a.url;
const short = await mintToken({ issuer: a.issuer, resource, scope: "weather:read", login: "raw-alice", clientId: "interop-short-lived" });
const shortFirst = await post(initialize(), { token: short.access_token });
const [full, readOnly, foreign] = await Promise.all([
  mintToken({ issuer: a.issuer, resource, scope: "weather:read weather:alerts", login: "raw-alice" }),
  mintToken({ issuer: a.issuer, resource, scope: "weather:read", login: "raw-alice" }),
  mintToken({ issuer: a.issuer, resource: a["other-resource"], scope: "weather:read weather:alerts", login: "raw-alice" }),
]);

for (const [check, path] of [
  ["metadata at the path form", "/.well-known/oauth-protected-resource/mcp"],
  ["metadata at the root form", "/.well-known/oauth-protected-resource"],
]) {
  await guarded(check, async () => {
    const response = await fetch(origin + path, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await response.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = { unparsed: text.slice(0, 300) };
    }
    record(check, {
      url: origin + path,
      status: response.status,
      content_type: response.headers.get("content-type"),
      cache_control: response.headers.get("cache-control"),
      body,
    });
  });
}

await guarded("no token", async () => record("no token", await post(initialize())));
await guarded("garbage token", async () => record("garbage token", await post(initialize(), { token: "not-a-token" })));
await guarded("token for another audience", async () =>
  record("token for another audience", await post(initialize(), { token: foreign.access_token })));
await guarded("token in the query string", async () =>
  record("token in the query string", await post(initialize(), { query: { access_token: full.access_token } })));
await guarded("read-only token: get_weather", async () =>
  record("read-only token: get_weather", await inSession(readOnly.access_token, call("get_weather", { place: "Oslo" }))));
await guarded("read-only token: get_alerts", async () =>
  record("read-only token: get_alerts", await inSession(readOnly.access_token, call("get_alerts", { place: "Oslo" }))));
await guarded("full token: whoami", async () =>
  record("full token: whoami", await inSession(full.access_token, call("whoami", {}))));

await guarded("expired token", async () => {
  const started = Date.now();
  let last;
  while (Date.now() - started < EXPIRY_WAIT_S * 1000) {
    last = await post(initialize(), { token: short.access_token });
    if (last.status !== 200) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  record("expired token", {
    ...last,
    accepted_before_expiry: shortFirst.status === 200,
    expires_in: short.expires_in,
    waited_s: Math.round((Date.now() - started) / 100) / 10,
  });
});

writeFileSync(
  a["tokens-out"],
  JSON.stringify({
    foreign: foreign.access_token,
    expired: short.access_token,
    full: full.access_token,
    read_only: readOnly.access_token,
  }) + "\n",
);
process.exit(0);

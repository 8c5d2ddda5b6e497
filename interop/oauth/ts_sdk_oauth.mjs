// @modelcontextprotocol/sdk 1.x with its own OAuth support (StreamableHTTPClientTransport's
// `authProvider`) against the OAuth-protected example, the provider's user played over HTTP.
//
//   node ts_sdk_oauth.mjs --modules DIR/node_modules --url URL --tokens FILE --out FILE
//
// Three scenarios, each a fresh client that knows only the server URL:
//   fresh    no token: the first request is refused (401); the SDK finds the authorization
//            server from the challenge's resource_metadata, registers itself, sends the user to
//            authorize (PKCE S256), and `finishAuth` takes the code; the client reconnects, lists
//            the tools, calls get_weather and whoami, then get_alerts, which the token does not
//            cover: the SDK sees 403 insufficient_scope and asks for the scope the header names
//            (the user consents again), `finishAuth`, and the call is retried.
//   foreign  the stored access token was issued for another resource (--tokens `foreign`).
//   expired  the stored access token has expired (--tokens `expired`).
// In the last two the server's 401 invalid_token must send the SDK through the flow again.
//
// Records one JSON object per line (tools/oauth_judge.py judges them), each with its scenario:
//   {"event": "http", ...}       every request the SDK made (MCP and authorization server):
//                                method, url, status, WWW-Authenticate (never a token)
//   {"event": "authorize", ...}  the authorization request's parameters and the pages the
//                                user went through
//   {"op": ..., "outcome": "result" | "unauthorized" | "error" | "exception", ...}

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { emitter, failure, packageVersion, requireFrom } from "../node_ops.mjs";
import { CookieJar, playUser, REDIRECT_URI } from "./oauth_user.mjs";

const TIMEOUT_MS = 10000;

const a = {};
for (let i = 2; i < process.argv.length; i += 2) a[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
for (const k of ["modules", "url", "tokens", "out"]) if (!a[k]) throw new Error(`--${k} is required`);

const req = requireFrom(a.modules);
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = req("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { UnauthorizedError } = req("@modelcontextprotocol/sdk/client/auth.js");
const version = packageVersion(a.modules, "@modelcontextprotocol/sdk");
const stored = JSON.parse(readFileSync(a.tokens, "utf8"));
const emit0 = emitter(a.out);
const LOGIN = { fresh: "ts-alice", foreign: "ts-bob", expired: "ts-carol" };

/** The SDK's OAuthClientProvider, in memory, the user played by `playUser`. */
class InteropAuth {
  constructor(scenario, emit, tokens) {
    this.emit = emit;
    this.login = LOGIN[scenario];
    this.jar = new CookieJar(); // the user's browser: one session at the provider
    this._tokens = tokens;
    this._client = undefined;
    this._verifier = undefined;
    this._state = undefined;
    this.code = undefined;
  }

  get redirectUrl() {
    return REDIRECT_URI;
  }

  get clientMetadata() {
    return {
      client_name: "BeamMCP interop: TypeScript SDK",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state() {
    this._state = randomBytes(16).toString("base64url");
    return this._state;
  }

  clientInformation() {
    return this._client;
  }

  saveClientInformation(info) {
    this._client = info;
  }

  tokens() {
    return this._tokens;
  }

  saveTokens(tokens) {
    this._tokens = tokens;
  }

  saveCodeVerifier(v) {
    this._verifier = v;
  }

  codeVerifier() {
    return this._verifier;
  }

  /** The browser: the user logs in (first time) and consents; the code comes back. */
  async redirectToAuthorization(url) {
    const params = Object.fromEntries(url.searchParams);
    const back = await playUser(url.href, { login: this.login, jar: this.jar });
    this.emit({
      event: "authorize",
      endpoint: `${url.origin}${url.pathname}`,
      params: pick(params, ["response_type", "client_id", "redirect_uri", "scope", "resource", "code_challenge_method", "prompt"]),
      pkce: typeof params.code_challenge === "string" && params.code_challenge.length >= 43,
      pages: back.pages,
      state_matches: back.state === this._state,
      iss: back.iss,
    });
    if (back.state !== this._state) throw new Error("state mismatch on the redirect back");
    this.code = back.code;
  }
}

function pick(o, keys) {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** fetch for the transport and its auth: records every exchange (no bodies, no tokens). */
function recordingFetch(emit) {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET");
    try {
      const response = await fetch(input, init);
      emit({
        event: "http",
        method,
        url: url.split("?")[0],
        status: response.status,
        www_authenticate: response.headers.get("www-authenticate"),
      });
      return response;
    } catch (err) {
      emit({ event: "http", method, url: url.split("?")[0], error: String(err?.message ?? err) });
      throw err;
    }
  };
}

function connection(auth, emit) {
  const transport = new StreamableHTTPClientTransport(new URL(a.url), { authProvider: auth, fetch: recordingFetch(emit) });
  const client = new Client({ name: "beam-mcp-interop-oauth", version: "1" });
  return { transport, client };
}

/** Runs `call`; on UnauthorizedError plays finishAuth and, when `retry`, runs `call` again. */
async function step(emit, op, call, { onUnauthorized } = {}) {
  try {
    const result = await call();
    emit({ op, outcome: "result", result });
    return { ok: true, result };
  } catch (err) {
    if (err instanceof UnauthorizedError) {
      emit({ op, outcome: "unauthorized", message: String(err.message) });
      if (onUnauthorized) return onUnauthorized();
      return { ok: false, unauthorized: true };
    }
    emit(failure(op, err));
    return { ok: false };
  }
}

const o = { timeout: TIMEOUT_MS };
const callTool = (client, name, args) => client.callTool({ name, arguments: args }, undefined, o);

async function scenario(name, tokens) {
  const emit = (line) => emit0({ scenario: name, ...line });
  const auth = new InteropAuth(name, emit, tokens);
  let { transport, client } = connection(auth, emit);

  // Connect: refused until the flow has run; then the code is exchanged and a new
  // transport connects with the token (the SDK's documented pattern).
  const first = await step(emit, "connect", () => client.connect(transport, o).then(() => ({ sdk: version })));
  if (!first.ok) {
    if (!first.unauthorized || !auth.code) return;
    const fin = await step(emit, "finishAuth", () => transport.finishAuth(auth.code).then(() => ({})));
    if (!fin.ok) return;
    await client.close().catch(() => {});
    ({ transport, client } = connection(auth, emit));
    const again = await step(emit, "connect", () => client.connect(transport, o).then(() => ({ sdk: version })));
    if (!again.ok) return;
  }

  if (name === "fresh") {
    await step(emit, "tools/list", () => client.listTools({}, o));
    await step(emit, "tools/call get_weather", () => callTool(client, "get_weather", { place: "Oslo" }));
  }
  await step(emit, "tools/call whoami", () => callTool(client, "whoami", {}));
  if (name === "fresh") {
    // Step-up: the SDK's 403 handling asks for the header's scope; the user consents; the
    // application finishes the flow and calls again.
    const call = () => callTool(client, "get_alerts", { place: "Oslo" });
    await step(emit, "tools/call get_alerts", call, {
      onUnauthorized: async () => {
        if (!auth.code) return { ok: false };
        const fin = await step(emit, "finishAuth", () => transport.finishAuth(auth.code).then(() => ({})));
        if (!fin.ok) return fin;
        return step(emit, "tools/call get_alerts (after step-up)", call);
      },
    });
    await step(emit, "tools/call whoami (after step-up)", () => callTool(client, "whoami", {}));
  }
  await client.close().catch(() => {});
}

emit0({ header: { client: "@modelcontextprotocol/sdk", version, url: a.url, logins: LOGIN } });
for (const [name, tokens] of [
  ["fresh", undefined],
  ["foreign", { access_token: stored.foreign, token_type: "Bearer" }],
  ["expired", { access_token: stored.expired, token_type: "Bearer" }],
]) {
  try {
    await scenario(name, tokens);
  } catch (err) {
    emit0({ scenario: name, ...failure("scenario", err) });
  }
}
process.exit(0);

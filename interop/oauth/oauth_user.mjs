// The user at the provider's login and consent pages, played over HTTP, and a minimal OAuth
// client for the tokens the negative checks need. Used by ts_sdk_oauth.mjs and oauth_raw.mjs.
//
// `playUser(authorizationUrl, {redirectUri, login, jar})` follows the provider's redirects with
// a cookie jar, fills the development login form (any login name, any password) and submits
// the consent form, until the provider redirects to `redirectUri`; it returns the redirect's
// `code`, `state` and `iss` (RFC 9207) and the pages it went through. Nothing listens at the
// redirect URI: the Location header is the answer.
//
// `mintToken({issuer, resource, scope, login, clientId})` is an authorization-code + PKCE client
// of its own (registered dynamically unless `clientId` names a pre-registered public client),
// for tokens the SDK clients are not asked to fetch: another audience's, a short-lived one, one
// with fewer scopes.

import { createHash, randomBytes } from "node:crypto";

export const REDIRECT_URI = "http://127.0.0.1/callback";
const HOPS = 20;
const TIMEOUT_MS = 10000;

/** Cookies by name (the latest wins), sent on every request to the provider. */
export class CookieJar {
  constructor() {
    this.cookies = new Map();
  }

  take(response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

async function request(url, jar, init = {}) {
  const headers = new Headers(init.headers ?? {});
  if (jar.cookies.size) headers.set("cookie", jar.header());
  const response = await fetch(url, { ...init, headers, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
  jar.take(response);
  return response;
}

function attr(tag, name) {
  const m = tag.match(new RegExp(`\\b${name}="([^"]*)"`, "i"));
  return m ? m[1].replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'") : undefined;
}

/** The page's one POST form: its action and the fields a user submits. */
function formOf(html, base, login) {
  const form = html.match(/<form\b[^>]*>([\s\S]*?)<\/form>/i);
  if (!form) return undefined;
  const action = attr(form[0].match(/<form\b[^>]*>/i)[0], "action");
  const fields = new URLSearchParams();
  for (const input of form[1].match(/<input\b[^>]*>/gi) ?? []) {
    const name = attr(input, "name");
    if (!name) continue;
    const type = (attr(input, "type") ?? "text").toLowerCase();
    if (type === "hidden") fields.set(name, attr(input, "value") ?? "");
    else if (type === "password") fields.set(name, "any password");
    else if (name === "login") fields.set(name, login);
  }
  return { action: new URL(action, base).href, fields };
}

function isRedirectTo(location, redirectUri) {
  const a = new URL(location);
  const b = new URL(redirectUri);
  return a.origin === b.origin && a.pathname === b.pathname;
}

/** Plays the user from the authorization URL to the redirect back to the client. */
export async function playUser(authorizationUrl, { redirectUri = REDIRECT_URI, login = "alice", jar = new CookieJar() } = {}) {
  const pages = [];
  let response = await request(authorizationUrl, jar);
  let url = authorizationUrl;
  for (let hop = 0; hop < HOPS; hop++) {
    if (response.status >= 300 && response.status < 400) {
      const location = new URL(response.headers.get("location"), url).href;
      await response.body?.cancel();
      if (isRedirectTo(location, redirectUri)) {
        const q = new URL(location).searchParams;
        if (q.get("error")) {
          throw new Error(`the provider redirected with error=${q.get("error")} (${q.get("error_description")})`);
        }
        return { code: q.get("code"), state: q.get("state"), iss: q.get("iss"), pages };
      }
      url = location;
      response = await request(url, jar);
      continue;
    }
    const html = await response.text();
    const form = response.status === 200 ? formOf(html, url, login) : undefined;
    if (!form) {
      const text = html.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
      throw new Error(`the provider answered ${response.status} at ${url}: ${text.slice(0, 300)}`);
    }
    pages.push(form.fields.get("prompt") ?? "form");
    url = form.action;
    response = await request(url, jar, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.fields.toString(),
    });
  }
  throw new Error(`no redirect to ${redirectUri} after ${HOPS} hops`);
}

async function json(response, what) {
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${what}: ${response.status} ${text.slice(0, 300)}`);
  }
  if (!response.ok) throw new Error(`${what}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const b64url = (buf) => buf.toString("base64url");

/** A token from `issuer` for `resource`, by authorization code + PKCE, the user played. */
export async function mintToken({ issuer, resource, scope, login = "alice", clientId }) {
  const timeout = () => AbortSignal.timeout(TIMEOUT_MS);
  const meta = await json(await fetch(`${issuer}/.well-known/openid-configuration`, { signal: timeout() }), "discovery");
  if (!clientId) {
    const reg = await json(
      await fetch(meta.registration_endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "BeamMCP interop token minter",
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code"],
          response_types: ["code"],
        }),
        signal: timeout(),
      }),
      "registration",
    );
    clientId = reg.client_id;
  }
  const verifier = b64url(randomBytes(32));
  const state = b64url(randomBytes(16));
  const auth = new URL(meta.authorization_endpoint);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope,
    resource,
    state,
    code_challenge: b64url(createHash("sha256").update(verifier).digest()),
    code_challenge_method: "S256",
  })) auth.searchParams.set(k, v);
  const back = await playUser(auth.href, { login });
  if (back.state !== state) throw new Error("state mismatch");
  const tokens = await json(
    await fetch(meta.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        client_id: clientId,
        resource,
      }).toString(),
      signal: timeout(),
    }),
    "token",
  );
  return { ...tokens, client_id: clientId };
}

/** The JWT's payload, decoded (not verified: the resource server verifies). */
export function claimsOf(jwt) {
  try {
    return JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString("utf8"));
  } catch {
    return null;
  }
}

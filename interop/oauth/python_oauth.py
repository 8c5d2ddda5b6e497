"""The Python SDK `mcp` 2.x with its own OAuth client (`mcp.client.auth.OAuthClientProvider`,
an httpx2 auth) against the OAuth-protected example, the provider's user played over HTTP.

Usage (inside the interop venv):
  python python_oauth.py --mode client|session --url URL --tokens FILE --out FILE

--mode client    `mcp.Client(streamable_http_client(url, http_client=...))`, default mode="auto"
--mode session   `mcp.ClientSession.initialize()` over the same transport

Three scenarios, each a fresh client that knows only the server URL (what ts_sdk_oauth.mjs
does with the TypeScript SDK):
  fresh    no token: the first request is refused (401); the SDK finds the authorization
           server from the challenge's resource_metadata, registers itself, calls the
           redirect_handler (here: the user logs in and consents over HTTP) and the
           callback_handler (the code, state and iss of the redirect back), exchanges the code
           and retries, all inside the request; then tools/list, get_weather, whoami, and
           get_alerts, which the token does not cover: the SDK sees 403 insufficient_scope and
           re-authorizes with the union of the scopes, inside the call.
  foreign  the stored access token was issued for another resource (--tokens `foreign`).
  expired  the stored access token has expired (--tokens `expired`).

Records one JSON object per line, the shape ts_sdk_oauth.mjs writes; tools/oauth_judge.py
judges them.
"""

import argparse
import html
import json
import re
from contextlib import AsyncExitStack
from importlib.metadata import version
from urllib.parse import parse_qs, urljoin, urlsplit

import anyio
import httpx2
import mcp
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp.shared.exceptions import MCPError

TIMEOUT_S = 10.0
REDIRECT_URI = "http://127.0.0.1/callback"
LOGIN = {"fresh": "py-alice", "foreign": "py-bob", "expired": "py-carol"}
HOPS = 20


def dump(value):
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def failure(op, err):
    if isinstance(err, MCPError):
        return {"op": op, "outcome": "error", "code": err.code, "message": err.error.message,
                "data": err.error.data}
    # anyio task groups wrap what a request raised
    while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
        err = err.exceptions[0]
    return {"op": op, "outcome": "exception", "message": f"{type(err).__name__}: {err}"}


class MemoryStorage:
    """The SDK's TokenStorage, in memory."""

    def __init__(self, tokens=None):
        self.tokens = tokens
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull):
        self.client_info = client_info


def form_of(page, base, login):
    """The page's one POST form: its action and the fields a user submits."""
    form = re.search(r"<form\b([^>]*)>(.*?)</form>", page, re.S | re.I)
    if not form:
        return None
    action = re.search(r'\baction="([^"]*)"', form.group(1))
    fields = {}
    for tag in re.findall(r"<input\b[^>]*>", form.group(2), re.I):
        name = re.search(r'\bname="([^"]*)"', tag)
        if not name:
            continue
        kind = (re.search(r'\btype="([^"]*)"', tag) or [None, "text"])[1].lower()
        value = re.search(r'\bvalue="([^"]*)"', tag)
        if kind == "hidden":
            fields[name.group(1)] = html.unescape(value.group(1)) if value else ""
        elif kind == "password":
            fields[name.group(1)] = "any password"
        elif name.group(1) == "login":
            fields[name.group(1)] = login
    return urljoin(base, html.unescape(action.group(1))), fields


async def play_user(browser, url, login):
    """From the authorization URL to the redirect back: the redirect's query and the pages."""
    pages = []
    response = await browser.get(url)
    for _ in range(HOPS):
        if 300 <= response.status_code < 400:
            location = urljoin(url, response.headers["location"])
            if location.split("?")[0] == REDIRECT_URI:
                query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
                if "error" in query:
                    raise RuntimeError(f"the provider redirected with error={query['error']} "
                                       f"({query.get('error_description')})")
                return query, pages
            url = location
            response = await browser.get(url)
            continue
        found = form_of(response.text, url, login) if response.status_code == 200 else None
        if found is None:
            text = re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", response.text)).strip()
            raise RuntimeError(f"the provider answered {response.status_code} at {url}: {text[:300]}")
        url, fields = found
        pages.append(fields.get("prompt", "form"))
        response = await browser.post(url, data=fields)
    raise RuntimeError(f"no redirect to {REDIRECT_URI} after {HOPS} hops")


class SessionOps:
    """ClientSession's methods under mcp.Client's names."""

    def __init__(self, session):
        self.s = session

    def list_tools(self):
        return self.s.list_tools()

    def call_tool(self, name, arguments):
        return self.s.call_tool(name, arguments)


async def scenario(name, stored, a, emit0):
    def emit(line):
        emit0({"scenario": name, **line})

    login = LOGIN[name]
    redirect = {}

    async def redirect_handler(authorization_url):
        params = {k: v[0] for k, v in parse_qs(urlsplit(authorization_url).query).items()}
        # The user's browser: one session at the provider for the whole scenario.
        query, pages = await play_user(browser, authorization_url, login)
        emit({"event": "authorize",
              "endpoint": authorization_url.split("?")[0],
              "params": {k: params[k] for k in ("response_type", "client_id", "redirect_uri", "scope",
                                                "resource", "code_challenge_method", "prompt")
                         if k in params},
              "pkce": len(params.get("code_challenge", "")) >= 43,
              "pages": pages,
              "state_matches": query.get("state") == params.get("state"),
              "iss": query.get("iss")})
        redirect["query"] = query

    async def callback_handler():
        query = redirect.pop("query")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    async def on_response(response):
        emit({"event": "http", "method": response.request.method,
              "url": str(response.request.url).split("?")[0], "status": response.status_code,
              "www_authenticate": response.headers.get("www-authenticate")})

    auth = OAuthClientProvider(
        server_url=a.url,
        client_metadata=OAuthClientMetadata(
            client_name="BeamMCP interop: Python SDK",
            redirect_uris=[REDIRECT_URI],
            token_endpoint_auth_method="none",
        ),
        storage=MemoryStorage(OAuthToken(access_token=stored) if stored else None),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with AsyncExitStack() as stack:
        browser = await stack.enter_async_context(
            httpx2.AsyncClient(follow_redirects=False, timeout=TIMEOUT_S))
        http = await stack.enter_async_context(
            httpx2.AsyncClient(auth=auth, timeout=TIMEOUT_S, event_hooks={"response": [on_response]}))
        streams = streamable_http_client(a.url, http_client=http)
        try:
            if a.mode == "client":
                target = await stack.enter_async_context(mcp.Client(streams, read_timeout_seconds=TIMEOUT_S))
                info = {"protocolVersion": target.protocol_version}
            else:
                read, write = await stack.enter_async_context(streams)
                session = await stack.enter_async_context(
                    mcp.ClientSession(read, write, read_timeout_seconds=TIMEOUT_S))
                result = await session.initialize()
                target, info = SessionOps(session), {"protocolVersion": result.protocol_version}
        except Exception as err:  # noqa: BLE001 - every failure is a recorded outcome
            emit(failure("connect", err))
            return
        info["sdk"] = version("mcp")
        emit({"op": "connect", "outcome": "result", "result": info})
        ops = [("tools/call whoami", lambda: target.call_tool("whoami", {}))]
        if name == "fresh":
            ops = [
                ("tools/list", lambda: target.list_tools()),
                ("tools/call get_weather", lambda: target.call_tool("get_weather", {"place": "Oslo"})),
                *ops,
                # The step-up happens inside this call (the SDK's httpx2 auth flow).
                ("tools/call get_alerts", lambda: target.call_tool("get_alerts", {"place": "Oslo"})),
                ("tools/call whoami (after step-up)", lambda: target.call_tool("whoami", {})),
            ]
        for op, call in ops:
            try:
                with anyio.fail_after(TIMEOUT_S * 2):
                    result = await call()
                emit({"op": op, "outcome": "result", "result": dump(result)})
            except Exception as err:  # noqa: BLE001
                emit(failure(op, err))


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["client", "session"], required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--tokens", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    with open(a.tokens, encoding="utf-8") as f:
        stored = json.load(f)
    with open(a.out, "a", encoding="utf-8") as out:
        def emit(line):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()

        emit({"header": {"client": "mcp", "version": version("mcp"), "mode": a.mode, "url": a.url,
                         "logins": LOGIN}})
        for name, token in [("fresh", None), ("foreign", stored["foreign"]), ("expired", stored["expired"])]:
            try:
                await scenario(name, token, a, emit)
            except Exception as err:  # noqa: BLE001
                emit({"scenario": name, **failure("scenario", err)})


if __name__ == "__main__":
    anyio.run(main)

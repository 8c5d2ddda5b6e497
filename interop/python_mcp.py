"""The Python SDK `mcp` 2.x, in two default openers, driving the eleven interop operations.

--mode client    `mcp.Client(target)`: its default `mode="auto"` probes `server/discover`
                 first and falls back to `initialize` on a legacy server.
--mode session   `mcp.ClientSession` over the transport's stream pair, opened by
                 `ClientSession.initialize()` (the 2025-era handshake).

Usage (inside the interop venv):
  python python_mcp.py --mode client|session --transport stdio --server BIN --out FILE
  python python_mcp.py --mode client|session --transport http --url URL --out FILE

Records what the client surfaced, one JSON object per line (the shape node_ops.mjs writes);
tools/interop_table.py judges it.
"""

import argparse
import json
from contextlib import AsyncExitStack
from importlib.metadata import version

import anyio
import mcp
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

TIMEOUT_S = 10.0


def dump(value):
    """A pydantic result as the JSON the server sent (aliases; members the client's model
    defaults, never received, left out)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def failure(op, err):
    """The outcome line for a raised error: a JSON-RPC error when the client surfaced a code."""
    if isinstance(err, MCPError):
        return {"op": op, "outcome": "error", "code": err.code, "message": err.error.message,
                "data": err.error.data}
    return {"op": op, "outcome": "exception", "message": f"{type(err).__name__}: {err}"}


def operations(c):
    """The ten operations after connect, as (name, coroutine factory) pairs."""
    return [
        ("tools/list", lambda: c.list_tools()),
        ("tools/call", lambda: c.call_tool("get_weather", {"place": "Oslo"})),
        ("resources/list", lambda: c.list_resources()),
        ("resources/templates/list", lambda: c.list_resource_templates()),
        ("resources/read places", lambda: c.read_resource("weather://places")),
        ("resources/read place/Lima", lambda: c.read_resource("weather://place/Lima")),
        ("prompts/list", lambda: c.list_prompts()),
        ("prompts/get forecast", lambda: c.get_prompt("forecast", {"place": "Oslo"})),
        ("tools/call unknown tool", lambda: c.call_tool("no_such_tool", {})),
        ("tools/call wrong argument type", lambda: c.call_tool("get_weather", {"place": 42})),
    ]


async def connect_client(stack, a):
    """`mcp.Client` with its defaults; returns (operations target, connect payload)."""
    target = mcp.StdioServerParameters(command=a.server) if a.transport == "stdio" else a.url
    client = await stack.enter_async_context(mcp.Client(target, read_timeout_seconds=TIMEOUT_S))
    return client, {"protocolVersion": client.protocol_version,
                    "serverInfo": dump(client.server_info)}


async def connect_session(stack, a):
    """`ClientSession(read, write)` then `initialize()`; returns (target, connect payload)."""
    if a.transport == "stdio":
        streams = stdio_client(mcp.StdioServerParameters(command=a.server))
    else:
        streams = streamable_http_client(a.url)
    read, write = await stack.enter_async_context(streams)
    session = await stack.enter_async_context(
        mcp.ClientSession(read, write, read_timeout_seconds=TIMEOUT_S))
    result = await session.initialize()
    return SessionOps(session), {"protocolVersion": result.protocol_version,
                                 "serverInfo": dump(result.server_info)}


class SessionOps:
    """ClientSession's own methods under the names `operations` calls."""

    def __init__(self, session):
        self.s = session

    def list_tools(self):
        return self.s.list_tools()

    def call_tool(self, name, arguments):
        return self.s.call_tool(name, arguments)

    def list_resources(self):
        return self.s.list_resources()

    def list_resource_templates(self):
        return self.s.list_resource_templates()

    def read_resource(self, uri):
        return self.s.read_resource(uri)

    def list_prompts(self):
        return self.s.list_prompts()

    def get_prompt(self, name, arguments):
        return self.s.get_prompt(name, arguments)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["client", "session"], required=True)
    p.add_argument("--transport", choices=["stdio", "http"], required=True)
    p.add_argument("--server")
    p.add_argument("--url")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    with open(a.out, "a", encoding="utf-8") as out:
        def emit(line):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()

        async with AsyncExitStack() as stack:
            connect = connect_client if a.mode == "client" else connect_session
            # No deadline scope around connect: the contexts it enters outlive it (anyio
            # refuses a cancel scope left before them). Its requests carry read_timeout_seconds,
            # and tools/interop.sh bounds the whole process.
            try:
                target, info = await connect(stack, a)
            except Exception as err:  # noqa: BLE001 - every failure is a recorded outcome
                emit(failure("connect", err))
                return
            info["sdk"] = version("mcp")
            emit({"op": "connect", "outcome": "result", "result": info})
            for op, call in operations(target):
                try:
                    with anyio.fail_after(TIMEOUT_S):
                        result = await call()
                    emit({"op": op, "outcome": "result", "result": dump(result)})
                except Exception as err:  # noqa: BLE001
                    emit(failure(op, err))


if __name__ == "__main__":
    anyio.run(main)

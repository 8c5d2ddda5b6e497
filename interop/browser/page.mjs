// The browser page's script: @modelcontextprotocol/sdk 1.x's Client over
// StreamableHTTPClientTransport, bundled for the browser by esbuild (interop/browser_interop.mjs),
// run in Chromium from a page whose origin differs from the MCP server's (another port), so
// every request is cross-origin and goes through CORS.
//
// The page is loaded as /?mcp=URL. It connects (the SDK opens with `initialize`), lists the
// tools, calls get_weather for Oslo, and hands each step's outcome to the driver through
// window.report (a function the driver exposes), once, whatever happened.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

async function run() {
  const url = new URL(new URL(location.href).searchParams.get("mcp"));
  const steps = [];
  const transport = new StreamableHTTPClientTransport(url);
  // 1.x keeps the negotiated revision private; the transport is told it.
  let negotiated = null;
  const forward = transport.setProtocolVersion.bind(transport);
  transport.setProtocolVersion = (v) => {
    negotiated = v;
    forward(v);
  };
  const client = new Client({ name: "beam-mcp-browser-interop", version: "1" });
  let step = "connect";
  try {
    await client.connect(transport, { timeout: 10000 });
    steps.push({ step, ok: true, protocolVersion: negotiated, serverInfo: client.getServerVersion() ?? null });
    step = "tools/list";
    const listed = await client.listTools();
    steps.push({ step, ok: true, tools: listed.tools.map((t) => t.name) });
    step = "tools/call";
    const result = await client.callTool({ name: "get_weather", arguments: { place: "Oslo" } });
    steps.push({
      step,
      ok: result.isError !== true,
      structuredContent: result.structuredContent ?? null,
      text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text),
    });
  } catch (e) {
    steps.push({ step, ok: false, error: `${e?.name ?? "Error"}: ${e?.message ?? e}` });
  }
  await client.close().catch(() => {});
  await window.report({ origin: location.origin, sdk: "1.32.2", steps });
}

run().catch((e) => window.report({ origin: location.origin, steps: [{ step: "page", ok: false, error: String(e) }] }));

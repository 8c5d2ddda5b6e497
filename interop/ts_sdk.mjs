// @modelcontextprotocol/sdk 1.x in its default mode: `Client.connect` opens with `initialize`
// (1.x has no other opener), over StdioClientTransport or StreamableHTTPClientTransport.
//
//   node ts_sdk.mjs --modules DIR/node_modules --transport stdio --server BIN --out FILE
//   node ts_sdk.mjs --modules DIR/node_modules --transport http --url URL --out FILE

import { args, emitter, packageVersion, requireFrom, run } from "./node_ops.mjs";

const a = args();
const req = requireFrom(a.modules);
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const version = packageVersion(a.modules, "@modelcontextprotocol/sdk");

let transport;
if (a.transport === "stdio") {
  const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");
  transport = new StdioClientTransport({ command: a.server, args: [], stderr: "inherit" });
} else {
  const { StreamableHTTPClientTransport } = req("@modelcontextprotocol/sdk/client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(a.url));
}

// 1.x keeps the negotiated revision private; the transport is told it through
// setProtocolVersion (HTTP has one, stdio does not), so record it on the way through.
let negotiated;
const forward = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => {
  negotiated = v;
  if (forward) forward(v);
};

const client = new Client({ name: "beam-mcp-interop", version: "1" });
const emit = emitter(a.out);
await run(
  emit,
  async () => {
    await client.connect(transport, { timeout: 10000 });
    return { protocolVersion: negotiated ?? null, serverInfo: client.getServerVersion() ?? null, sdk: version };
  },
  client,
  (params, options) => client.callTool(params, undefined, options),
);
await client.close().catch(() => {});
process.exit(0);

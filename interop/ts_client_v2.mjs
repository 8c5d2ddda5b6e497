// @modelcontextprotocol/client 2.x in its default mode (`versionNegotiation` absent, which the
// package documents as 'legacy': `connect()` opens with `initialize`), over its
// StdioClientTransport or StreamableHTTPClientTransport.
//
//   node ts_client_v2.mjs --modules DIR/node_modules --transport stdio --server BIN --out FILE
//   node ts_client_v2.mjs --modules DIR/node_modules --transport http --url URL --out FILE

import { args, emitter, packageVersion, requireFrom, run } from "./node_ops.mjs";

const a = args();
const req = requireFrom(a.modules);
const { Client, StreamableHTTPClientTransport } = req("@modelcontextprotocol/client");
const version = packageVersion(a.modules, "@modelcontextprotocol/client");

let transport;
if (a.transport === "stdio") {
  const { StdioClientTransport } = req("@modelcontextprotocol/client/stdio");
  transport = new StdioClientTransport({ command: a.server, args: [], stderr: "inherit" });
} else {
  transport = new StreamableHTTPClientTransport(new URL(a.url));
}

const client = new Client({ name: "beam-mcp-interop", version: "1" });
const emit = emitter(a.out);
await run(
  emit,
  async () => {
    await client.connect(transport, { timeout: 10000 });
    return {
      protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
      serverInfo: client.getServerVersion() ?? null,
      sdk: version,
    };
  },
  client,
  (params, options) => client.callTool(params, options),
);
await client.close().catch(() => {});
process.exit(0);

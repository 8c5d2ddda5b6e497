// The MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.x, `mcp-inspector --cli`) in its
// default mode for an ad-hoc target: `--protocol-era legacy`, so every invocation opens with
// `initialize` (the client package it bundles, at its latest handshake revision 2025-11-25).
// The CLI runs one method per process, so each operation is its own connection; the first
// (tools/list) doubles as the connect check.
//
//   node inspector_cli.mjs --modules DIR/node_modules --transport stdio --server BIN --out FILE
//   node inspector_cli.mjs --modules DIR/node_modules --transport http --url URL --out FILE
//
// The CLI's --format json prints {"result": ...} on success and {"error": {"code", "message"}}
// (its own codes, not JSON-RPC's) on failure; both are recorded as surfaced.

import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { args, emitter, packageVersion } from "./node_ops.mjs";

const a = args();
const pkg = path.join(a.modules, "@modelcontextprotocol/inspector");
const cli = path.join(pkg, "clients/launcher/build/index.js");
const version = packageVersion(a.modules, "@modelcontextprotocol/inspector");
// The Inspector keeps a catalog and a secrets file under $HOME/.mcp-inspector: give it one
// inside the cache, never the caller's.
const home = path.join(path.dirname(path.resolve(a.modules)), "home");
mkdirSync(home, { recursive: true });
const target = a.transport === "stdio" ? [a.server] : ["--transport", "http", "--server-url", a.url];

function invoke(method, extra) {
  const r = spawnSync(process.execPath, [cli, "--cli", ...target, "--method", method, ...extra, "--format", "json", "--connect-timeout", "10000"], {
    env: { ...process.env, HOME: home },
    encoding: "utf8",
    timeout: 30000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // The JSON envelope is on stdout for a result and on stderr for an error.
  for (const text of [r.stdout, r.stderr]) {
    for (const line of (text || "").split("\n").reverse()) {
      try {
        const v = JSON.parse(line);
        if (v && (v.result !== undefined || v.error !== undefined)) return { ...v, status: r.status };
      } catch {
        // not the envelope line
      }
    }
  }
  return { error: { code: "no-envelope", message: `exit ${r.status}${r.error ? `, ${r.error.message}` : ""}: ${(r.stderr || "").slice(-400)}` }, status: r.status };
}

function outcome(op, v) {
  if (v.result !== undefined) return { op, outcome: "result", result: v.result };
  const code = typeof v.error.code === "number" ? v.error.code : null;
  return { op, outcome: "error", code, client_code: v.error.code, message: String(v.error.message), data: null, client_exit: v.status };
}

const ops = [
  ["tools/list", "tools/list", []],
  ["tools/call", "tools/call", ["--tool-name", "get_weather", "--tool-args-json", '{"place":"Oslo"}']],
  ["resources/list", "resources/list", []],
  ["resources/templates/list", "resources/templates/list", []],
  ["resources/read places", "resources/read", ["--uri", "weather://places"]],
  ["resources/read place/Lima", "resources/read", ["--uri", "weather://place/Lima"]],
  ["prompts/list", "prompts/list", []],
  ["prompts/get forecast", "prompts/get", ["--prompt-name", "forecast", "--prompt-args", "place=Oslo"]],
  ["tools/call unknown tool", "tools/call", ["--tool-name", "no_such_tool", "--tool-args-json", "{}"]],
  ["tools/call wrong argument type", "tools/call", ["--tool-name", "get_weather", "--tool-args-json", '{"place":42}']],
];

const emit = emitter(a.out);
const first = invoke(ops[0][1], ops[0][2]);
if (first.result === undefined) {
  emit({ ...outcome("connect", first) });
  process.exit(0);
}
// The CLI prints no handshake result; the revision is the one its legacy era's `initialize`
// asks for and this server answers with, recorded as inferred.
emit({ op: "connect", outcome: "result", result: { protocolVersion: "2025-11-25", inferred: true, sdk: version } });
emit(outcome(ops[0][0], first));
for (const [op, method, extra] of ops.slice(1)) emit(outcome(op, invoke(method, extra)));

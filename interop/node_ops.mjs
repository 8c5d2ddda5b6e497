// The eleven interop operations, driven through a TypeScript MCP client object whose API is the
// one `@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/client` 2.x share (listTools,
// callTool, listResources, listResourceTemplates, readResource, listPrompts, getPrompt).
//
// This file only records what the client surfaced; tools/interop_table.py judges it against
// what the negotiated revision prescribes. One JSON object per line, appended to the --out file:
//   {"op": "...", "outcome": "result", "result": {...}}
//   {"op": "...", "outcome": "error", "code": -32602, "message": "...", "data": ...}
//   {"op": "...", "outcome": "exception", "message": "..."}   (no JSON-RPC code surfaced)

import { appendFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** Parsed `--key value` pairs of process.argv. */
export function args() {
  const out = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
      throw new Error(`bad argument ${argv[i]}`);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of ["modules", "transport", "out"]) {
    if (!out[k]) throw new Error(`--${k} is required`);
  }
  if (out.transport === "stdio" && !out.server) throw new Error("--server is required for stdio");
  if (out.transport === "http" && !out.url) throw new Error("--url is required for http");
  return out;
}

/** `require` resolving from the pinned node_modules directory in the interop cache. */
export function requireFrom(modules) {
  return createRequire(path.join(path.resolve(modules), "interop-resolver.js"));
}

/** The version in the installed package.json of `name` (read directly: exports maps hide it). */
export function packageVersion(modules, name) {
  return JSON.parse(readFileSync(path.join(modules, name, "package.json"), "utf8")).version;
}

/** Writes one outcome line. */
export function emitter(out) {
  return (line) => appendFileSync(out, JSON.stringify(line) + "\n");
}

/** The outcome line for a thrown value: a JSON-RPC error when the client surfaced a code. */
export function failure(op, err) {
  if (err && typeof err.code === "number") {
    return { op, outcome: "error", code: err.code, message: String(err.message), data: err.data ?? null };
  }
  return { op, outcome: "exception", message: String(err && err.message ? err.message : err) };
}

const TIMEOUT_MS = 10000;

/**
 * The ten operations after connect, in order: [name, call]. `callTool(params, options)` adapts
 * the one signature that differs (1.x takes a result schema before the options).
 */
export function operations(client, callTool) {
  const o = { timeout: TIMEOUT_MS };
  return [
    ["tools/list", () => client.listTools({}, o)],
    ["tools/call", () => callTool({ name: "get_weather", arguments: { place: "Oslo" } }, o)],
    ["resources/list", () => client.listResources({}, o)],
    ["resources/templates/list", () => client.listResourceTemplates({}, o)],
    ["resources/read places", () => client.readResource({ uri: "weather://places" }, o)],
    ["resources/read place/Lima", () => client.readResource({ uri: "weather://place/Lima" }, o)],
    ["prompts/list", () => client.listPrompts({}, o)],
    ["prompts/get forecast", () => client.getPrompt({ name: "forecast", arguments: { place: "Oslo" } }, o)],
    ["tools/call unknown tool", () => callTool({ name: "no_such_tool", arguments: {} }, o)],
    ["tools/call wrong argument type", () => callTool({ name: "get_weather", arguments: { place: 42 } }, o)],
  ];
}

/** Connects (`connect` returns the connect result line's payload), then runs every operation. */
export async function run(emit, connect, client, callTool) {
  let info;
  try {
    info = await connect();
  } catch (err) {
    emit(failure("connect", err));
    return;
  }
  emit({ op: "connect", outcome: "result", result: info });
  for (const [op, call] of operations(client, callTool)) {
    try {
      emit({ op, outcome: "result", result: await call() });
    } catch (err) {
      emit(failure(op, err));
    }
  }
}

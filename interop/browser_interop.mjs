// The TypeScript SDK in a real browser against the `weather` example over HTTP, through CORS.
//
//   node browser_interop.mjs --modules DIR/node_modules --server BIN [--chromium PATH]
//                            [--out FILE] [--timeout-ms MS]
//
// 1. Bundles interop/browser/page.mjs (the SDK's Client and StreamableHTTPClientTransport) for
//    the browser with esbuild.
// 2. Serves interop/browser/index.html and the bundle from two static servers on 127.0.0.1,
//    each on a port of its own, so each is an origin of its own and neither is the server's.
// 3. Starts BIN (the `weather` example) with `--http 127.0.0.1:0 --cors <the first origin>`
//    and reads the address it bound from its log line.
// 4. Drives Chromium (playwright-core, the browser at --chromium, default /usr/bin/chromium,
//    headless): loads the page from the allowed origin, which connects, lists the tools and
//    calls get_weather for Oslo; then from the other origin, whose first request the browser
//    must block. Each page reports its steps through a function the driver exposes; every
//    console message and failed request is recorded.
// 5. Judges: the allowed page saw `initialize` answered at 2025-11-25, get_weather listed and
//    Oslo's weather as structured content, and no CORS error on its console; the other page
//    failed to connect with the browser's TypeError and its console names the CORS block of
//    its origin. Prints each page's record as a JSON line (and writes them to --out) and a
//    closing "browser: N passed, N failed" line; exits 0 only when both pass.
//
// Waits on events (the log line, the page's report), each bounded by --timeout-ms (default
// 30000); nothing sleeps.

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

function args() {
  const out = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || argv[i + 1] === undefined) {
      console.error(`browser_interop: bad arguments: ${argv.join(" ")}`);
      process.exit(2);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  for (const need of ["modules", "server"]) {
    if (!out[need]) {
      console.error(`browser_interop: --${need} is required`);
      process.exit(2);
    }
  }
  return out;
}

const a = args();
a.modules = resolve(a.modules);
const TIMEOUT = Number(a["timeout-ms"] ?? 30000);
const req = createRequire(join(a.modules, "noop.js"));
const esbuild = req("esbuild");
const { chromium } = req("playwright-core");

/** `promise`, or a rejection naming `what` once `TIMEOUT` passes: a bound, not a wait. */
function bounded(promise, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${TIMEOUT} ms`)), TIMEOUT);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

async function bundle() {
  const built = await esbuild.build({
    entryPoints: [join(HERE, "browser", "page.mjs")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "chrome120",
    nodePaths: [a.modules],
    write: false,
    logLevel: "warning",
  });
  return built.outputFiles[0].contents;
}

/** A static server of the page and its bundle on a free loopback port; resolves to its origin. */
function pageServer(html, script) {
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://page").pathname;
    if (path === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(html);
    } else if (path === "/page.js") {
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      response.end(script);
    } else {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, origin: `http://127.0.0.1:${server.address().port}` });
    });
  });
}

/** The weather example on a port the system picks, CORS on for `origin`; resolves once it logs
 * the address it bound. */
function startServer(origin) {
  const child = spawn(a.server, ["--http", "127.0.0.1:0", "--cors", origin], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const log = [];
  const bound = new Promise((resolve, reject) => {
    let pending = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        log.push(line);
        const m = /serving MCP over HTTP at \/mcp addr=(\S+)/.exec(line);
        if (m) resolve(m[1]);
      }
    });
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${log.join("\n")}`)),
    );
  });
  return { child, log, bound };
}

async function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  // Ctrl-C: the example stops its supervision tree in order.
  child.kill("SIGINT");
  try {
    await bounded(exited, "the server's stop");
  } catch {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Loads the page from `origin` in a fresh context; resolves to what it reported and what its
 * console said. */
async function visit(browser, origin, mcpUrl) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push({ type: m.type(), text: m.text() }));
  page.on("pageerror", (e) => consoleLines.push({ type: "pageerror", text: String(e) }));
  const failed = [];
  page.on("requestfailed", (r) =>
    failed.push({ method: r.method(), url: r.url(), failure: r.failure()?.errorText ?? null }),
  );
  let report;
  const reported = new Promise((resolve) => {
    report = resolve;
  });
  await page.exposeFunction("report", (r) => report(r));
  await page.goto(`${origin}/?mcp=${encodeURIComponent(mcpUrl)}`);
  const result = await bounded(reported, `the page from ${origin}`);
  await context.close();
  return { origin, ...result, console: consoleLines, failedRequests: failed };
}

function judgeAllowed(r) {
  const faults = [];
  const step = (name) => r.steps.find((s) => s.step === name);
  const connect = step("connect");
  if (!connect?.ok) faults.push(`connect failed: ${JSON.stringify(r.steps)}`);
  else if (connect.protocolVersion !== "2025-11-25") faults.push(`negotiated ${connect.protocolVersion}`);
  const list = step("tools/list");
  if (!list?.ok || !list.tools.includes("get_weather")) faults.push(`tools/list: ${JSON.stringify(list)}`);
  const call = step("tools/call");
  const want = { place: "Oslo", celsius: 12, conditions: "light rain" };
  const got = call?.structuredContent ?? {};
  const same = Object.keys(got).length === 3 && Object.entries(want).every(([k, v]) => got[k] === v);
  if (!call?.ok || !same) {
    faults.push(`tools/call: ${JSON.stringify(call)}`);
  }
  const cors = r.console.filter((m) => /CORS|Access-Control/i.test(m.text));
  if (cors.length) faults.push(`CORS errors on the allowed page: ${JSON.stringify(cors)}`);
  return faults;
}

function judgeRefused(r, mcpOrigin) {
  const faults = [];
  const connect = r.steps.find((s) => s.step === "connect");
  if (!connect || connect.ok) faults.push(`connected from an origin not allowed: ${JSON.stringify(r.steps)}`);
  else if (!/TypeError/.test(connect.error)) faults.push(`failed otherwise than by the browser: ${connect.error}`);
  if (r.steps.some((s) => s.step !== "connect")) faults.push(`went past connect: ${JSON.stringify(r.steps)}`);
  const blocked = r.console.filter(
    (m) =>
      m.type === "error" &&
      m.text.includes("blocked by CORS policy") &&
      m.text.includes(`from origin '${r.origin}'`) &&
      m.text.includes(mcpOrigin),
  );
  if (!blocked.length) faults.push(`no CORS error on the console: ${JSON.stringify(r.console)}`);
  return faults;
}

const html = readFileSync(join(HERE, "browser", "index.html"));
const script = await bundle();
const allowed = await pageServer(html, script);
const refused = await pageServer(html, script);
const { child, log, bound } = startServer(allowed.origin);
let browser;
const records = [];
let passed = 0;
let failedCount = 0;
try {
  const addr = await bounded(bound, "the server's address");
  const mcpOrigin = `http://${addr}`;
  const mcpUrl = `${mcpOrigin}/mcp`;
  browser = await bounded(
    chromium.launch({
      executablePath: a.chromium ?? "/usr/bin/chromium",
      headless: true,
      // Root in CI: Chromium's sandbox needs an unprivileged user.
      args: ["--no-sandbox"],
    }),
    "Chromium's launch",
  );
  const version = browser.version();
  for (const [kind, origin, judge] of [
    ["allowed", allowed.origin, (r) => judgeAllowed(r)],
    ["refused", refused.origin, (r) => judgeRefused(r, mcpOrigin)],
  ]) {
    const r = await visit(browser, origin, mcpUrl);
    const faults = judge(r);
    const record = { page: kind, browser: `Chromium ${version}`, server: mcpUrl, ...r, faults };
    records.push(record);
    console.log(JSON.stringify(record));
    if (faults.length) failedCount += 1;
    else passed += 1;
  }
} catch (e) {
  failedCount += 1;
  console.error(`browser_interop: ${e.stack ?? e}`);
  console.error(`browser_interop: the server's log:\n${log.join("\n")}`);
} finally {
  await browser?.close().catch(() => {});
  await stopServer(child);
  allowed.server.close();
  refused.server.close();
}
if (a.out) writeFileSync(a.out, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.log(`browser: ${passed} passed, ${failedCount} failed`);
process.exit(failedCount === 0 && passed === 2 ? 0 : 1);

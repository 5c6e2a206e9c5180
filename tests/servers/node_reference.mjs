// Node reference measurement of one MCP server, for cross-checking mcpcost's numbers in tests.
//
//   node node_reference.mjs [--era legacy|modern] [--timeout MS] --stdio -- COMMAND [ARG...]
//   node node_reference.mjs [--era legacy|modern] [--timeout MS] --url URL [--transport http|sse]
//
// It opens the server (legacy: initialize + notifications/initialized; modern: server/discover,
// with the 2026-07-28 _meta envelope on every request), follows tools/list nextCursor to the end,
// joins the pages and prints one JSON line on stdout:
//   {"sha256", "tokens", "toolCount", "pages", "chars", "protocolVersion", "serverInfo",
//    "instructions"}
// where sha256 is over the UTF-8 of JSON.stringify(tools) and tokens its o200k_base count with
// js-tiktoken (pinned in tests/servers/npm; null when not installed). Non-JSON stdout lines are
// skipped, server pings answered, other server requests answered -32601. Errors: one line on
// stderr, exit 1.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const MODERN = "2026-07-28";
const LEGACY = "2025-06-18";
const CLIENT_INFO = { name: "mcpcost-node-reference", version: "0.0.0" };

function parseArgs(argv) {
  const opts = { era: "legacy", timeout: 30000, transport: "http", url: null, command: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--era") opts.era = argv[++i];
    else if (a === "--timeout") opts.timeout = Number(argv[++i]);
    else if (a === "--url") opts.url = argv[++i];
    else if (a === "--transport") opts.transport = argv[++i];
    else if (a === "--stdio") {
      if (argv[i + 1] === "--") i++;
      opts.command = argv.slice(i + 1);
      break;
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!opts.url && !(opts.command && opts.command.length)) {
    throw new Error("give --stdio -- COMMAND... or --url URL");
  }
  return opts;
}

function loadEncoder() {
  const require = createRequire(new URL("./npm/package.json", import.meta.url));
  try {
    const { getEncoding } = require(process.env.JS_TIKTOKEN_DIR || "js-tiktoken");
    return getEncoding("o200k_base");
  } catch {
    return null;
  }
}

function meta() {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
  };
}

// ---- transports: each has request(method, params) -> result, notify(method, params), close()

class Pending {
  constructor() {
    this.nextId = 1;
    this.waiting = new Map();
  }
  add(timeoutMs, method) {
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`timeout waiting for ${method}`));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
    });
    return { id, promise };
  }
  settle(msg) {
    const entry = this.waiting.get(msg.id);
    if (!entry) return;
    this.waiting.delete(msg.id);
    clearTimeout(entry.timer);
    if (msg.error) {
      const err = new Error(`JSON-RPC error ${msg.error.code}: ${msg.error.message}`);
      err.rpc = msg.error;
      entry.reject(err);
    } else entry.resolve(msg.result);
  }
}

class StdioTransport {
  constructor(command, timeout) {
    this.timeout = timeout;
    this.pending = new Pending();
    this.child = spawn(command[0], command.slice(1), {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true,
    });
    this.child.on("error", (e) => this.failAll(e));
    const rl = createInterface({ input: this.child.stdout, crlfDelay: Infinity });
    rl.on("line", (line) => this.onLine(line));
    this.child.on("exit", (code) => this.failAll(new Error(`server exited with ${code}`)));
  }
  failAll(err) {
    for (const [id, entry] of this.pending.waiting) {
      clearTimeout(entry.timer);
      entry.reject(err);
      this.pending.waiting.delete(id);
    }
  }
  write(msg) {
    this.child.stdin.write(JSON.stringify(msg) + "\n");
  }
  onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return; // banner or log line on stdout
    }
    if (!msg || typeof msg !== "object") return;
    if (msg.method !== undefined && msg.id !== undefined) {
      if (msg.method === "ping") this.write({ jsonrpc: "2.0", id: msg.id, result: {} });
      else this.write({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
      return;
    }
    if (msg.id !== undefined) this.pending.settle(msg);
  }
  request(method, params) {
    const { id, promise } = this.pending.add(this.timeout, method);
    this.write({ jsonrpc: "2.0", id, method, params });
    return promise;
  }
  notify(method, params) {
    this.write({ jsonrpc: "2.0", method, params });
  }
  close() {
    try {
      this.child.stdin.end();
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

async function* sseEvents(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  let data = [];
  let event = "message";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let idx;
    while ((idx = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, idx);
      buffer = buffer.slice(idx + (buffer.startsWith("\r\n", idx) ? 2 : 1));
      if (line === "") {
        if (data.length) yield { event, data: data.join("\n") };
        data = [];
        event = "message";
      } else if (line.startsWith(":")) {
        continue;
      } else {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
      }
    }
  }
}

class HttpTransport {
  constructor(url, era, timeout) {
    this.url = url;
    this.era = era;
    this.timeout = timeout;
    this.nextId = 1;
    this.session = null;
    this.version = era === "modern" ? MODERN : null;
  }
  headers(method) {
    const h = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (this.session) h["Mcp-Session-Id"] = this.session;
    if (this.version) h["MCP-Protocol-Version"] = this.version;
    if (this.era === "modern" && method) h["Mcp-Method"] = method;
    return h;
  }
  async post(msg) {
    const res = await fetch(this.url, {
      method: "POST",
      headers: this.headers(msg.method),
      body: JSON.stringify(msg),
      signal: AbortSignal.timeout(this.timeout),
    });
    const sid = res.headers.get("mcp-session-id");
    if (sid) this.session = sid;
    return res;
  }
  async request(method, params) {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: "2.0", id, method, params });
    const type = res.headers.get("content-type") || "";
    if (res.status >= 400) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
    if (type.includes("text/event-stream")) {
      for await (const ev of sseEvents(res.body)) {
        if (ev.event !== "message") continue;
        const msg = JSON.parse(ev.data);
        if (msg.id === id && msg.method === undefined) return unwrap(msg);
      }
      throw new Error(`SSE stream ended without a response to ${method}`);
    }
    const text = await res.text();
    if (!type.includes("application/json")) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    return unwrap(JSON.parse(text));
  }
  async notify(method, params) {
    const res = await this.post({ jsonrpc: "2.0", method, params });
    await res.arrayBuffer();
  }
  close() {}
}

class LegacySseTransport {
  constructor(url, timeout) {
    this.url = url;
    this.timeout = timeout;
    this.pending = new Pending();
    this.controller = new AbortController();
  }
  async open() {
    const res = await fetch(this.url, {
      headers: { Accept: "text/event-stream" },
      signal: this.controller.signal,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status} opening SSE stream`);
    this.events = sseEvents(res.body);
    const first = await withTimeout(this.events.next(), this.timeout, "endpoint event");
    if (first.done || first.value.event !== "endpoint") throw new Error("no endpoint event");
    this.endpoint = new URL(first.value.data, this.url).toString();
    this.pump();
  }
  async pump() {
    try {
      for await (const ev of this.events) {
        if (ev.event !== "message") continue;
        const msg = JSON.parse(ev.data);
        if (msg.method === undefined && msg.id !== undefined) this.pending.settle(msg);
      }
    } catch {
      // aborted on close
    }
  }
  async send(msg) {
    const res = await fetch(this.endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(msg),
    });
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`HTTP ${res.status} posting ${msg.method}`);
  }
  async request(method, params) {
    const { id, promise } = this.pending.add(this.timeout, method);
    await this.send({ jsonrpc: "2.0", id, method, params });
    return promise;
  }
  notify(method, params) {
    return this.send({ jsonrpc: "2.0", method, params });
  }
  close() {
    this.controller.abort();
  }
}

function unwrap(msg) {
  if (msg.error) throw new Error(`JSON-RPC error ${msg.error.code}: ${msg.error.message}`);
  return msg.result;
}

function withTimeout(promise, ms, what) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout waiting for ${what}`)), ms);
  });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

// ---- session

async function measure(opts) {
  let transport;
  if (opts.command) transport = new StdioTransport(opts.command, opts.timeout);
  else if (opts.transport === "sse") {
    transport = new LegacySseTransport(opts.url, opts.timeout);
    await transport.open();
  } else transport = new HttpTransport(opts.url, opts.era, opts.timeout);
  try {
    let protocolVersion;
    let serverInfo;
    let instructions;
    const withMeta = (params) => (opts.era === "modern" ? { ...params, _meta: meta() } : params);
    if (opts.era === "modern") {
      const d = await transport.request("server/discover", withMeta({}));
      protocolVersion = (d.supportedVersions || []).includes(MODERN) ? MODERN : d.supportedVersions?.[0];
      serverInfo = d._meta?.["io.modelcontextprotocol/serverInfo"] ?? null;
      instructions = d.instructions ?? null;
    } else {
      const init = await transport.request("initialize", {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: CLIENT_INFO,
      });
      protocolVersion = init.protocolVersion;
      serverInfo = init.serverInfo ?? null;
      instructions = init.instructions ?? null;
      if (transport instanceof HttpTransport) transport.version = init.protocolVersion;
      await transport.notify("notifications/initialized");
    }
    const tools = [];
    let cursor;
    let pages = 0;
    const seen = new Set();
    do {
      const params = cursor === undefined ? {} : { cursor };
      const page = await transport.request("tools/list", withMeta(params));
      pages++;
      tools.push(...(page.tools || []));
      cursor = page.nextCursor ?? undefined;
      if (cursor !== undefined) {
        if (seen.has(cursor)) throw new Error(`repeated cursor ${cursor}`);
        seen.add(cursor);
      }
      if (pages > 100) throw new Error("more than 100 pages");
    } while (cursor !== undefined);
    const canonical = JSON.stringify(tools);
    const encoder = loadEncoder();
    return {
      sha256: createHash("sha256").update(canonical, "utf8").digest("hex"),
      tokens: encoder ? encoder.encode(canonical, [], []).length : null,
      toolCount: tools.length,
      pages,
      chars: canonical.length,
      protocolVersion,
      serverInfo,
      instructions,
    };
  } finally {
    transport.close();
  }
}

try {
  const result = await measure(parseArgs(process.argv.slice(2)));
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(0);
} catch (e) {
  process.stderr.write(`node_reference: ${e.message}\n`);
  process.exit(1);
}

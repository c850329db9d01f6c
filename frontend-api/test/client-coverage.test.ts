// Our client covers the whole contract: every operation of
// idl/merged/openapi.yaml, with each request body type it takes, has a
// client method, but for the few listed in NOT_FOR_THE_CLIENT. The check is
// by behaviour, not by names: a client whose fetch records the requests
// calls every method of every group with dummy arguments, and the requests
// (method, path template, content type) must be exactly the contract's.
// Adding an operation to the idl without a client method fails here. No
// server is needed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

import { PergolaClient } from "../src/index.js";

// dist/test/ -> the repository root.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Operations of the contract no client method is meant to call, each with the reason. */
const NOT_FOR_THE_CLIENT: Record<string, string> = {
  "GET /healthz": "the liveness probe of orchestrators and load balancers",
  "GET /readyz": "the readiness probe of orchestrators and load balancers",
  "GET /metrics": "Prometheus's scrape target (text exposition format)",
  "GET /openapi.yaml": "the contract itself, which this client is generated from",
  "POST /mcp": "the MCP Streamable HTTP transport, spoken by MCP clients (@modelcontextprotocol/sdk; test/mcp.test.ts)",
  "GET /mcp": "the MCP transport's server-to-client stream (as POST /mcp)",
  "DELETE /mcp": "the MCP transport's end of session (as POST /mcp)",
  "GET /.well-known/oauth-protected-resource/mcp":
    "RFC 9728 metadata that MCP clients read to learn how to authenticate to /mcp",
  "GET /.well-known/oauth-protected-resource": "the same metadata at the bare well-known path, for MCP clients",
  "GET /chat/assets/favicon.svg": "the icon the hosted web chat page links; browsers fetch it",
  "POST /v3/chat/retrieve":
    "the same operation as GET /v3/chat/retrieve (coze.chat.retrieve), routed because @coze/api sends POST",
  "GET /open_api/knowledge/document/list":
    "the same operation as POST /open_api/knowledge/document/list (coze.datasets.documents.list), routed because @coze/api's deprecated knowledge.documents.list sends GET",
};

/** The client's generic callers: any operation goes through them, so they prove nothing here. */
const GENERIC = new Set(["constructor", "call", "callWhole", "callPlain", "callOpenAI", "callText", "callStream"]);
/** Own properties of the client that are not resource groups. */
const NOT_GROUPS = new Set(["transport", "options", "lastMeta"]);
const METHODS = ["get", "put", "post", "delete", "patch"];

interface Operation {
  method: string;
  path: string;
  /** The request body types the operation takes ("-" for none). */
  types: string[];
}

function contract(): Operation[] {
  const doc = parse(readFileSync(resolve(repo, "idl/merged/openapi.yaml"), "utf8"));
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const m of METHODS.filter((m) => item[m])) {
      const content = Object.keys(item[m].requestBody?.content ?? {});
      ops.push({ method: m.toUpperCase(), path, types: content.length ? content : ["-"] });
    }
  }
  return ops;
}

interface Sent {
  method: string;
  /** The path as requested, path parameters filled. */
  path: string;
  type: string;
}

/** A fetch that records each request and answers an empty success in the shape asked for. */
function recorder(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const type = init?.body instanceof FormData ? "multipart/form-data" : (headers.get("Content-Type") ?? "-");
    sent.push({ method: init?.method ?? "GET", path: new URL(String(input)).pathname, type });
    if (headers.get("Accept") === "text/event-stream") {
      return new Response("", { headers: { "Content-Type": "text/event-stream" } });
    }
    return new Response(JSON.stringify({ code: 0, msg: "", data: {} }), {
      headers: { "Content-Type": "application/json" },
    });
  };
}

type Method = (...args: unknown[]) => unknown;

/** Every method of the client's groups (nested ones too) and its own, by dotted name. */
function methodsOf(client: PergolaClient): [string, Method][] {
  const out: [string, Method][] = [];
  const walk = (name: string, v: unknown) => {
    if (typeof v === "function") out.push([name, v as Method]);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(`${name}.${k}`, x);
  };
  for (const [k, v] of Object.entries(client)) if (!NOT_GROUPS.has(k)) walk(k, v);
  const proto = Object.getPrototypeOf(client) as object;
  for (const k of Object.getOwnPropertyNames(proto)) {
    const value = Object.getOwnPropertyDescriptor(proto, k)?.value;
    if (!GENERIC.has(k) && k !== "withToken" && typeof value === "function") out.push([k, value.bind(client)]);
  }
  return out;
}

/**
 * Calls fn with dummy arguments and waits for its request: a Blob serves as
 * any argument (an id or name becomes a non-empty path segment, a body or
 * query an empty object, a file a file). Streams are drained.
 */
async function callWithDummies(fn: Method): Promise<void> {
  const dummy = () => new Blob(["x"]);
  const result = fn(dummy(), dummy(), dummy(), dummy(), dummy(), dummy());
  if (result && typeof result === "object" && Symbol.asyncIterator in result) {
    for await (const _ of result as AsyncIterable<unknown>) void _;
  } else {
    await result;
  }
}

/** The operation a request was for: the matching template with the most fixed text, as a router picks. */
function templateOf(ops: Operation[], s: Sent): string {
  const fixed = (p: string) => p.replace(/\{[^}]+\}/g, "").length;
  const matching = ops
    .filter((o) => o.method === s.method)
    .filter((o) => new RegExp(`^${o.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(s.path))
    .sort((a, b) => fixed(b.path) - fixed(a.path));
  return matching[0] ? `${s.method} ${matching[0].path}` : `${s.method} ${s.path} (no operation of the contract)`;
}

describe("client coverage: a method for every operation of idl/merged/openapi.yaml", () => {
  const ops = contract();
  const sent: Sent[] = [];
  const calledBy = new Map<string, string[]>();
  const client = new PergolaClient({ baseURL: "http://pergola.invalid", token: "pat_x", fetch: recorder(sent) });

  it("every method of the client sends a request", async () => {
    const silent: string[] = [];
    for (const [name, fn] of methodsOf(client)) {
      const before = sent.length;
      await callWithDummies(fn).catch((err: unknown) => assert.fail(`${name} threw: ${String(err)}`));
      if (sent.length === before) silent.push(name);
      for (const s of sent.slice(before)) {
        const key = `${templateOf(ops, s)} ${s.type}`;
        calledBy.set(key, [...(calledBy.get(key) ?? []), name]);
      }
    }
    assert.deepEqual(silent, [], "methods that sent no request");
    assert.ok(calledBy.size > 100, `only ${calledBy.size} operations called`);
  });

  it("the requests are exactly the contract's operations and body types, less those not for the client", () => {
    const want = ops
      .filter((o) => !(`${o.method} ${o.path}` in NOT_FOR_THE_CLIENT))
      .flatMap((o) => o.types.map((t) => `${o.method} ${o.path} ${t}`))
      .sort();
    const got = [...calledBy.keys()].sort();
    const missing = want.filter((k) => !calledBy.has(k));
    const extra = got.filter((k) => !want.includes(k)).map((k) => `${k} (by ${calledBy.get(k)?.join(", ")})`);
    assert.deepEqual(missing, [], "operations of the contract without a client method");
    assert.deepEqual(extra, [], "requests that are no operation of the contract (or of another body type)");
  });

  it("each operation not meant for the client is still in the contract", () => {
    const all = new Set(ops.map((o) => `${o.method} ${o.path}`));
    for (const op of Object.keys(NOT_FOR_THE_CLIENT)) assert.ok(all.has(op), `${op} is no longer in the contract`);
  });
});

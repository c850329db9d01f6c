// The client's stream and error reading with a stubbed fetch (no server):
// Server-Sent Events split across chunks, CRLF, comments and multi-line
// data; OpenAIError from an OpenAI error body and from a body that is not
// one; a per-call token or none.
import { describe, it } from "node:test";
import assert from "node:assert/strict";

import { OpenAIError, PergolaClient, PergolaError, readSSE, type SSEEvent } from "../src/index.js";

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(ctrl) {
      for (const c of chunks) ctrl.enqueue(enc.encode(c));
      ctrl.close();
    },
  });
}

async function all(it: AsyncIterable<SSEEvent>): Promise<SSEEvent[]> {
  const out: SSEEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe("SSE and error shapes (stubbed fetch)", () => {
  it("readSSE joins events split across chunks, CRLF lines, multi-line data; skips comments", async () => {
    const events = await all(
      readSSE(
        body([
          "event:conversation.message.delta\r\nda",
          'ta:{"a":1}\r\n\r\n: keep-alive\n\n',
          "id: 7\nevent: Done\ndata: x\ndata: y\n\n",
          "data: [DONE]",
        ]),
      ),
    );
    assert.deepEqual(events, [
      { event: "conversation.message.delta", data: '{"a":1}' },
      { event: "Done", data: "x\ny", id: "7" },
      { event: "message", data: "[DONE]" },
    ]);
  });

  it("an OpenAI route's error body is OpenAIError {type, code, param}; a non-JSON one keeps its text", async () => {
    const answers: Record<string, Response> = {
      "/v1/models/a": Response.json(
        { error: { message: "no model a", type: "invalid_request_error", code: "model_not_found", param: "model" } },
        { status: 404 },
      ),
      "/v1/models/b": new Response("<html>bad gateway</html>", { status: 502 }),
    };
    const c = new PergolaClient({ baseURL: "http://x", fetch: async (u) => answers[new URL(String(u)).pathname]! });
    const a = await c.openai.models.retrieve("a").catch((e: unknown) => e);
    assert.ok(a instanceof OpenAIError);
    assert.deepEqual([a.status, a.type, a.code, a.param], [404, "invalid_request_error", "model_not_found", "model"]);
    const b = await c.openai.models.retrieve("b").catch((e: unknown) => e);
    assert.ok(b instanceof OpenAIError);
    assert.deepEqual([b.status, b.type, b.code], [502, "", null]);
    assert.match(b.message, /bad gateway/);
  });

  it("a stream answered with an envelope error throws PergolaError; auth false sends no token, a string that one", async () => {
    const seen: (string | null)[] = [];
    const c = new PergolaClient({
      baseURL: "http://x",
      token: "pat_mine",
      fetch: async (_u, init) => {
        seen.push(new Headers(init?.headers).get("Authorization"));
        return Response.json({ code: 4100, msg: "token: expired" }, { status: 401 });
      },
    });
    const err = await all(c.webchat.send("5", "eu_token", { text: "hi" })).catch((e: unknown) => e);
    assert.ok(err instanceof PergolaError);
    assert.deepEqual([err.status, err.code, err.msg], [401, 4100, "token: expired"]);
    await c.webchat.config("5").catch(() => undefined);
    await c.me().catch(() => undefined);
    assert.deepEqual(seen, ["Bearer eu_token", null, "Bearer pat_mine"]);
  });
});

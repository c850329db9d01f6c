// The official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json), UNCHANGED, against Pergola's MCP server at /mcp over the
// streamable HTTP transport, authenticated with a PAT sent as
// `Authorization: Bearer`. Published bots are `chat_<name>` tools,
// published workflows `wf_<name>` tools. The bots' model is `pergola
// fakellm` (PERGOLA_FAKE_LLM_URL), which answers "echo: <last user text>".
//
// Resources describe the tools (pergola://bots/{id}, pergola://workflows/{id})
// and hold a conversation's messages; prompts are the bots' prompts.
//
// Other test files make bots and workflows in the same workspace at the
// same time, so a test finds its tools by their unique descriptions.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";

import type { WorkflowDefinition } from "../src/index.js";
import { env, unique } from "./env.js";
import { Fixture } from "./fixtures.js";

/** Connects a client with token; answer, when given, answers elicitations. */
async function connect(
  token: string,
  answer?: (message: string) => Record<string, string> | undefined,
): Promise<Client> {
  const client = new Client({ name: "pergola-frontend-test", version: "1.0.0" }, { capabilities: answer ? { elicitation: {} } : {} });
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const content = answer(req.params.message);
      return content ? { action: "accept", content } : { action: "decline" };
    });
  }
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.baseURL}/mcp`), { requestInit: { headers } }));
  return client;
}

/** The tool described as description (made unique by the test). */
async function toolDescribed(client: Client, description: string): Promise<Tool> {
  const { tools } = await client.listTools();
  const found = tools.filter((t) => t.description === description);
  assert.equal(found.length, 1, `one tool described ${description} among ${tools.map((t) => t.name).join(", ")}`);
  return found[0]!;
}

function text(res: CallToolResult): string {
  return res.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** The name part of an MCP tool name: lower case, runs of other characters as one "_" (cut at 48). */
function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}

const weather: WorkflowDefinition = {
  nodes: [
    { id: "start", type: "start", outputs: [{ name: "city", type: "string", required: true, description: "the city" }] },
    { id: "end", type: "end", inputs: { city: { ref: { node: "start", path: "city" } }, temp: { value: 21 } } },
  ],
  edges: [{ from: "start", to: "end" }],
};

/** start (name) → free question → option question (S, M, L) → end {name, said, size}. */
const asking: WorkflowDefinition = {
  nodes: [
    { id: "start", type: "start", outputs: [{ name: "name", type: "string", required: true }] },
    { id: "ask", type: "question", title: "Ask", config: { question: "Hi {{n}}, who are you?" }, inputs: { n: { ref: { node: "start", path: "name" } } } },
    { id: "size", type: "question", title: "Size", config: { question: "Pick a size", answer_type: "option", options: ["S", "M", "L"] } },
    {
      id: "end",
      type: "end",
      inputs: {
        name: { ref: { node: "start", path: "name" } },
        said: { ref: { node: "ask", path: "answer" } },
        size: { ref: { node: "size", path: "answer" } },
      },
    },
  ],
  edges: [
    { from: "start", to: "ask" },
    { from: "ask", to: "size" },
    { from: "size", to: "end" },
  ],
};

describe("MCP TypeScript SDK against /mcp", () => {
  const fx = new Fixture();
  let client: Client;

  before(async () => {
    await fx.setup();
    client = await connect(env.token);
  });
  after(async () => {
    await client?.close();
    await fx.cleanup();
  });

  it("lists a published bot as chat_<name> and continues its conversation by conversation_id", async () => {
    const description = unique("Answers shop questions");
    const bot = await fx.bot({ description });
    const tool = await toolDescribed(client, description);
    assert.equal(tool.name, `chat_${slug(bot.config.name ?? "").slice(0, 48).replace(/_+$/, "")}`);
    assert.deepEqual(tool.inputSchema.required, ["message"]);

    const first = (await client.callTool({ name: tool.name, arguments: { message: "hello over mcp" } })) as CallToolResult;
    assert.equal(first.isError ?? false, false, text(first));
    assert.equal(text(first), "echo: hello over mcp");
    const conv = (first.structuredContent as { conversation_id?: string }).conversation_id;
    assert.match(conv ?? "", /^[0-9]+$/);

    const second = (await client.callTool({ name: tool.name, arguments: { message: "again", conversation_id: conv } })) as CallToolResult;
    assert.equal(text(second), "echo: again");
    assert.equal((second.structuredContent as { conversation_id?: string }).conversation_id, conv);
  });

  it("runs a published workflow with its start node's parameters, reporting progress per node", async () => {
    const description = unique("Tells the weather");
    await fx.workflow(weather, { description });
    const tool = await toolDescribed(client, description);
    assert.match(tool.name, /^wf_fe_wf_/);
    assert.deepEqual(tool.inputSchema.required, ["city"]);
    assert.equal((tool.inputSchema.properties?.["city"] as { type?: string }).type, "string");

    const progress: string[] = [];
    const res = (await client.callTool({ name: tool.name, arguments: { city: "Paris" } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ""),
    })) as CallToolResult;
    assert.equal(res.isError ?? false, false, text(res));
    const out = res.structuredContent as { city?: string; temp?: number };
    assert.equal(out.city, "Paris");
    assert.equal(out.temp, 21);
    assert.ok(progress.some((m) => m.includes("node end")), `progress: ${progress.join(" | ")}`);
  });

  it("lists each tool as a resource and each bot's prompt as a prompt, and reads a conversation it started", async () => {
    const description = unique("Knows the catalogue");
    const prompt = unique("You answer catalogue questions in one line.");
    const bot = await fx.bot({ description, prompt });
    const tool = await toolDescribed(client, description);

    const { resources } = await client.listResources();
    const listed = resources.find((r) => r.uri === `pergola://bots/${bot.id}`);
    assert.ok(listed, `pergola://bots/${bot.id} among ${resources.map((r) => r.uri).join(", ")}`);
    assert.equal(listed.name, tool.name);
    assert.equal(listed.mimeType, "application/json");
    const read = await client.readResource({ uri: listed.uri });
    const doc = JSON.parse((read.contents[0] as { text: string }).text) as { kind?: string; tool?: string; input_schema?: unknown };
    assert.deepEqual([doc.kind, doc.tool], ["bot", tool.name]);
    assert.deepEqual(doc.input_schema, tool.inputSchema);

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === "pergola://conversations/{conversation_id}/messages"));

    const { prompts } = await client.listPrompts();
    assert.ok(prompts.some((p) => p.name === tool.name), `prompt ${tool.name} among ${prompts.map((p) => p.name).join(", ")}`);
    const got = await client.getPrompt({ name: tool.name });
    assert.equal(got.messages.length, 1);
    assert.equal(got.messages[0]!.role, "user");
    assert.deepEqual(got.messages[0]!.content, { type: "text", text: prompt });

    const answer = (await client.callTool({ name: tool.name, arguments: { message: "what is on page 3?" } })) as CallToolResult;
    const conv = (answer.structuredContent as { conversation_id?: string }).conversation_id;
    const messages = await client.readResource({ uri: `pergola://conversations/${conv}/messages` });
    const said = JSON.parse((messages.contents[0] as { text: string }).text) as { messages: { role: string; content: string }[] };
    assert.deepEqual(
      said.messages.filter((m) => m.content !== "").map((m) => [m.role, m.content]),
      [["user", "what is on page 3?"], ["assistant", "echo: what is on page 3?"]],
    );
    await assert.rejects(client.readResource({ uri: "pergola://conversations/1/messages" }), /not found/i);
  });

  it("answers wrong arguments with a tool error naming the argument, and an unknown tool with an error", async () => {
    const description = unique("Weather, strictly");
    await fx.workflow(weather, { description });
    const tool = await toolDescribed(client, description);
    const missing = (await client.callTool({ name: tool.name, arguments: {} })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match(text(missing), /argument "city"/);
    const extra = (await client.callTool({ name: tool.name, arguments: { city: "Oslo", days: 2 } })) as CallToolResult;
    assert.equal(extra.isError, true);
    assert.match(text(extra), /argument "days"/);
    await assert.rejects(client.callTool({ name: "wf_no_such_workflow", arguments: {} }), /unknown tool/);
  });

  it("asks a workflow's questions through elicitation and returns the finished run", async () => {
    const description = unique("Asks two questions");
    await fx.workflow(asking, { description });
    const asked: string[] = [];
    const answering = await connect(env.token, (message) => {
      asked.push(message);
      return { answer: message.includes("size") ? "L" : "a tester" };
    });
    try {
      const tool = await toolDescribed(answering, description);
      const res = (await answering.callTool({ name: tool.name, arguments: { name: "bo" } })) as CallToolResult;
      assert.equal(res.isError ?? false, false, text(res));
      assert.deepEqual(asked, ["Hi bo, who are you?", "Pick a size"]);
      const out = res.structuredContent as { name?: string; said?: string; size?: string };
      assert.deepEqual([out.name, out.said, out.size], ["bo", "a tester", "L"]);
    } finally {
      await answering.close();
    }
    // A client without elicitation learns what is asked and how to resume.
    const tool = await toolDescribed(client, description);
    const res = (await client.callTool({ name: tool.name, arguments: { name: "cy" } })) as CallToolResult;
    assert.equal(res.isError, true);
    assert.match(text(res), /Hi cy, who are you\?.*cannot answer questions.*stream_resume/s);
  });

  it("refuses a missing or unknown token with 401", async () => {
    for (const token of ["", "pat_not_a_real_token"]) {
      await assert.rejects(connect(token), (err: Error & { code?: number }) => {
        assert.ok(err.code === 401 || /401/.test(err.message), `${token || "no token"}: ${err.message}`);
        return true;
      });
      const res = await fetch(`${env.baseURL}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
    }
  });
});

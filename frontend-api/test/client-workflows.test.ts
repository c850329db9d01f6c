// Our client's workflow calls against a live server: runs through the
// Coze routes (client.coze.workflows), the runs list with filters,
// cancelling an interrupted run, importing a Coze Studio canvas; each with
// bad input answered 4xx with the envelope's code and a message.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { ErrorCode, eventJSON, type SSEEvent, type WorkflowDefinition } from "../src/index.js";
import { pergolaError } from "./assertions.js";
import { NUMERIC_ID, unique } from "./env.js";
import { Fixture } from "./fixtures.js";

// dist/test/ -> the repository root.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const echo: WorkflowDefinition = {
  nodes: [
    { id: "start", type: "start", outputs: [{ name: "name", type: "string", required: true }] },
    { id: "end", type: "end", inputs: { hello: { ref: { node: "start", path: "name" } } } },
  ],
  edges: [{ from: "start", to: "end" }],
};

const asking: WorkflowDefinition = {
  nodes: [
    { id: "start", type: "start", outputs: [] },
    { id: "ask", type: "question", title: "Ask", config: { question: "Who are you?" } },
    { id: "end", type: "end", inputs: { said: { ref: { node: "ask", path: "answer" } } } },
  ],
  edges: [
    { from: "start", to: "ask" },
    { from: "ask", to: "end" },
  ],
};

async function drain(events: AsyncIterable<SSEEvent>): Promise<SSEEvent[]> {
  const out: SSEEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe("client: workflow runs, runs list, cancel, import", () => {
  const fx = new Fixture();
  const c = fx.admin;

  before(() => fx.setup());
  after(() => fx.cleanup());

  it("coze.workflows.runs.create and .stream run the published version; runs lists them by mode", async () => {
    const w = await fx.workflow(echo);
    const run = await c.coze.workflows.runs.create({ workflow_id: w.id, parameters: { name: "Ada" } });
    assert.equal(run.code, 0);
    assert.deepEqual(JSON.parse(run.data ?? ""), { hello: "Ada" });
    assert.match(run.execute_id ?? "", NUMERIC_ID);
    const events = await drain(c.coze.workflows.runs.stream({ workflow_id: w.id, parameters: { name: "Bo" } }));
    assert.deepEqual(
      events.map((e) => e.event),
      ["Message", "Done"],
    );
    assert.deepEqual(JSON.parse(eventJSON<{ content: string }>(events[0]!)?.content ?? ""), { hello: "Bo" });
    const history = await c.coze.workflows.runs.history(w.id, run.execute_id!);
    assert.equal(history[0]?.execute_status, "Success");

    const all = await c.workflows.runs(w.id);
    assert.equal(all.total, 2);
    const sync = await c.workflows.runs(w.id, { mode: "sync" });
    assert.deepEqual(
      sync.items.map((r) => r.execute_id),
      [run.execute_id],
    );
    await assert.rejects(
      c.workflows.runs(w.id, { status: "sleeping" as never }),
      pergolaError(400, ErrorCode.Invalid, /status/),
    );
    await assert.rejects(
      c.coze.workflows.runs.create({ workflow_id: w.id, parameters: {} }),
      pergolaError(400, ErrorCode.Invalid, /name/),
    );
  });

  it("cancelRun: an interrupted run is cancelled; cancelling it again is 409, an unknown run 404", async () => {
    const w = await fx.workflow(asking);
    const events = await drain(c.coze.workflows.runs.stream({ workflow_id: w.id, parameters: {} }));
    const interrupt = events.find((e) => e.event === "Interrupt");
    assert.ok(interrupt, JSON.stringify(events));
    const interrupted = await c.workflows.runs(w.id, { status: "interrupted" });
    assert.equal(interrupted.items.length, 1);
    const executeId = interrupted.items[0]!.execute_id;
    await c.workflows.cancelRun(w.id, executeId);
    const cancelled = await c.workflows.runs(w.id, { status: "cancelled" });
    assert.deepEqual(
      cancelled.items.map((r) => r.execute_id),
      [executeId],
    );
    await assert.rejects(
      c.workflows.cancelRun(w.id, executeId),
      pergolaError(409, ErrorCode.Conflict, /ended|cancel/i),
    );
    await assert.rejects(c.workflows.cancelRun(w.id, "123456789"), pergolaError(404, ErrorCode.NotFound, /run/));
  });

  it("workflows.import converts a Coze Studio canvas into a workflow; a canvas that is not one is 400", async () => {
    const canvas = JSON.parse(await readFile(resolve(repo, "workflow/cozeimport/testdata/simple.json"), "utf8"));
    const imported = await c.workflows.import({
      workspace_id: fx.workspaceId,
      name: unique("fe_imported").replace(/-/g, "_"),
      canvas,
      mappings: { default_model_id: fx.modelId },
      allow_partial: true,
    });
    const id = imported.workflow?.id ?? "";
    fx.workflows.push(id);
    assert.match(id, NUMERIC_ID);
    const got = await c.workflows.get(id);
    const nodes = (got.definition?.nodes ?? []) as { type: string }[];
    assert.ok(
      nodes.some((n) => n.type === "start"),
      JSON.stringify(got.definition),
    );
    await assert.rejects(
      c.workflows.import({ workspace_id: fx.workspaceId, canvas: { nodes: "no" } }),
      pergolaError(400, ErrorCode.Invalid, /canvas|nodes/),
    );
  });
});

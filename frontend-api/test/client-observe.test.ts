// Our client against a live server for what runs leave behind and for Coze
// canvases in apps: traces of a chat turn and of a workflow run
// (client.traces), a tiny Coze canvas imported into an app as JSON and as
// an uploaded file (workflows.import, workflows.importFile), and the end
// user's app variable values its runs store, read and reset
// (apps.values); each with bad input answered 4xx.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";

import {
  ErrorCode,
  eventJSON,
  PergolaClient,
  PergolaError,
  type Span,
  type Trace,
  type WorkflowDefinition,
} from "../src/index.js";
import { pergolaError } from "./assertions.js";
import { NUMERIC_ID, unique } from "./env.js";
import { collect, Fixture } from "./fixtures.js";

const echo: WorkflowDefinition = {
  nodes: [
    { id: "start", type: "start", outputs: [{ name: "name", type: "string", required: true }] },
    { id: "end", type: "end", inputs: { hello: { ref: { node: "start", path: "name" } } } },
  ],
  edges: [{ from: "start", to: "end" }],
};

// ---- a Coze Studio canvas, as its editor saves one -----------------------------

type Cz = Record<string, unknown>;

const appTheme: Cz = {
  type: "string",
  value: { type: "ref", content: { source: "global_variable_app", path: ["theme"] } },
};

function czRef(node: string, name: string, type: string): Cz {
  return { type, value: { type: "ref", content: { source: "block-output", blockID: node, name } } };
}

function czNode(id: string, type: string, title: string, inputs: Cz, outputs?: Cz[]): Cz {
  const data: Cz = { nodeMeta: { title }, inputs, ...(outputs ? { outputs } : {}) };
  return { id, type, meta: { position: { x: 0, y: 0 } }, data };
}

/** Start (theme) -> assign the app variable theme (type 40) -> end (ok). */
const setterCanvas: Cz = {
  nodes: [
    czNode("100001", "1", "Start", {}, [{ name: "theme", type: "string" }]),
    czNode(
      "200",
      "40",
      "Set theme",
      { inputParameters: [{ left: appTheme, right: czRef("100001", "theme", "string") }] },
      [{ name: "isSuccess", type: "boolean" }],
    ),
    czNode("900001", "2", "End", {
      terminatePlan: "returnVariables",
      inputParameters: [{ name: "ok", input: czRef("200", "isSuccess", "boolean") }],
    }),
  ],
  edges: [
    { sourceNodeID: "100001", targetNodeID: "200" },
    { sourceNodeID: "200", targetNodeID: "900001" },
  ],
};

/** Start -> end (theme: the app variable). */
const readerCanvas: Cz = {
  nodes: [
    czNode("100001", "1", "Start", {}, []),
    czNode("900001", "2", "End", {
      terminatePlan: "returnVariables",
      inputParameters: [{ name: "theme", input: appTheme }],
    }),
  ],
  edges: [{ sourceNodeID: "100001", targetNodeID: "900001" }],
};

// ---- helpers ----------------------------------------------------------------------

/**
 * GET /api/traces/{id} until the trace is stored: it is written in the
 * background a moment after the run ends, a 404 until then.
 */
async function waitTrace(c: PergolaClient, id: string, timeoutMs = 15_000): Promise<Trace> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await c.traces.get(id);
    } catch (err) {
      const notYet = err instanceof PergolaError && err.status === 404;
      if (!notYet || Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function spans(root: Span): Span[] {
  return [root, ...root.children.flatMap(spans)];
}

const name = (prefix: string) => unique(prefix).replace(/-/g, "_");

describe("client: traces, Coze canvases in apps, app values", () => {
  const fx = new Fixture();
  const c = fx.admin;
  const apps: string[] = [];

  before(() => fx.setup());
  after(async () => {
    for (const id of apps) await c.apps.remove(id).catch(() => undefined);
    await fx.cleanup();
  });

  it("traces.get: a chat turn: a chat span, the model's call under it; unknown ids 404, bad ones 400", async () => {
    const bot = await fx.bot();
    const hello = { role: "user" as const, content: "hello trace", content_type: "text" as const };
    const events = await collect(
      c.coze.chat.stream({}, { bot_id: bot.id, user_id: "u1", additional_messages: [hello] }),
    );
    const chatId = eventJSON<{ id: string }>(events.find((e) => e.event === "conversation.chat.created")!)?.id ?? "";
    assert.match(chatId, NUMERIC_ID, JSON.stringify(events.map((e) => e.event)));

    const trace = await waitTrace(c, chatId);
    assert.equal(trace.trace_id, chatId);
    assert.equal(trace.kind, "chat");
    assert.equal(trace.workspace_id, fx.workspaceId);
    assert.equal(trace.runs.length, 1);
    const root = trace.runs[0]!.root;
    assert.equal(root.kind, "chat");
    assert.equal(root.status, "ok", JSON.stringify(root));
    const model = root.children.find((s) => s.kind === "model");
    assert.ok(model, `no model span under the turn: ${JSON.stringify(root.children.map((s) => s.name))}`);
    assert.equal(model.status, "ok");
    assert.ok(Number(model.attributes["gen_ai.usage.output_tokens"]) > 0, JSON.stringify(model.attributes));

    await assert.rejects(c.traces.get("123456789"), pergolaError(404, ErrorCode.NotFound, /trace 123456789 not found/));
    await assert.rejects(c.traces.get("abc"), pergolaError(400, ErrorCode.Invalid, /id/));
  });

  it("traces.get: a workflow run is a workflow span with a span per node", async () => {
    const w = await fx.workflow(echo);
    const run = await c.coze.workflows.runs.create({ workflow_id: w.id, parameters: { name: "Ada" } });
    const trace = await waitTrace(c, run.execute_id ?? "");
    assert.equal(trace.kind, "workflow");
    const root = trace.runs[0]!.root;
    assert.equal(root.kind, "workflow");
    assert.equal(root.status, "ok", JSON.stringify(root));
    const nodes = spans(root)
      .filter((s) => s.kind === "node")
      .map((s) => s.attributes["pergola.node.id"]);
    assert.deepEqual(nodes.sort(), ["end", "start"], JSON.stringify(spans(root).map((s) => s.name)));
  });

  it("workflows.import and importFile bring Coze canvases into an app; apps.values reads, resets", async () => {
    const app = await c.apps.create({
      workspace_id: fx.workspaceId,
      name: name("fe_app"),
      variables: [{ name: "visits", type: "integer", default: 0 }],
    });
    apps.push(app.id);
    const setter = await c.workflows.import({
      workspace_id: fx.workspaceId,
      name: name("fe_setter"),
      canvas: setterCanvas,
      app_id: app.id,
    });
    fx.workflows.push(setter.workflow!.id);
    assert.deepEqual(setter.app_variables_added, ["theme"], "the import declared the variable the app lacked");
    const file = new Blob([JSON.stringify(readerCanvas)], { type: "application/json" });
    const reader = await c.workflows.importFile(file, "reader.json", {
      workspace_id: fx.workspaceId,
      name: name("fe_reader"),
      app_id: app.id,
    });
    fx.workflows.push(reader.workflow!.id);
    assert.deepEqual(reader.app_variables, ["theme"]);
    assert.deepEqual(
      reader.report?.converted.map((n) => n.id).sort(),
      ["100001", "900001"],
      JSON.stringify(reader.report),
    );
    for (const w of [setter, reader]) await c.workflows.publish(w.workflow!.id);

    const run = (workflowId: string, parameters: Record<string, unknown>) =>
      c.coze.workflows.runs.create({ workflow_id: workflowId, app_id: app.id, parameters, ext: { user_id: "ann" } });
    await run(setter.workflow!.id, { theme: "dark" });
    assert.deepEqual(JSON.parse((await run(reader.workflow!.id, {})).data ?? ""), { theme: "dark" });

    const values = await c.apps.values.get(app.id, { user_id: "ann" });
    assert.equal(values.user_id, "ann");
    assert.equal(values.connector_id, "1024");
    assert.deepEqual(
      values.values.map((v) => [v.name, v.value, v.is_default]),
      [
        ["visits", 0, true],
        ["theme", "dark", false],
      ],
    );
    await c.apps.values.reset(app.id, { user_id: "ann", names: ["theme"] });
    const reset = await c.apps.values.get(app.id, { user_id: "ann" });
    assert.equal(reset.values.find((v) => v.name === "theme")?.is_default, true, JSON.stringify(reset));
  });

  it("apps.values and importFile: bad input is 400 naming what to fix, an unknown app 404", async () => {
    const app = await c.apps.create({ workspace_id: fx.workspaceId, name: name("fe_app") });
    apps.push(app.id);
    await assert.rejects(
      c.apps.values.get(app.id, {} as never),
      pergolaError(400, ErrorCode.Invalid, /user_id: is required/),
    );
    await assert.rejects(
      c.apps.values.reset(app.id, { user_id: "ann", names: ["nope"] }),
      pergolaError(400, ErrorCode.Invalid, /declares no variable "nope"/),
    );
    await assert.rejects(
      c.apps.values.get("123456789", { user_id: "ann" }),
      pergolaError(404, ErrorCode.NotFound, /not found/),
    );
    await assert.rejects(
      c.workflows.importFile(new Blob(["not a canvas"]), "broken.json", { workspace_id: fx.workspaceId }),
      pergolaError(400, ErrorCode.Invalid, /canvas|file/),
    );
  });
});

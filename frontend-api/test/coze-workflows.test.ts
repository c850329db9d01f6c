// Coze's official JS SDK, @coze/api 1.3.9, UNCHANGED (only `token` and
// `baseURL`), against Pergola's workflows; our console client makes and
// publishes them. The llm nodes use `pergola fakellm`
// (PERGOLA_FAKE_LLM_URL), which answers "echo: <last user text>" in small
// chunks. Every test makes its own workflow, so they do not depend on each
// other.
//
// What the SDK sends and reads (node_modules/@coze/api/dist/esm/index.mjs):
// - workflows.runs.create: POST /v1/workflow/run with the params as given
//   (extra fields such as `workflow_version` pass through); resolves to the
//   whole answer {code, msg, execute_id, data (a JSON string), debug_url,
//   token, cost, usage}. A non-zero code (any HTTP status) rejects with
//   APIError.generate(status, body): 400/4000 BadRequestError, 404/4200
//   NotFoundError; the body is `rawError` (a failed run's execute_id).
// - workflows.runs.stream / runs.resume: POST /v1/workflow/stream_run and
//   /v1/workflow/stream_resume; each SSE event with a `data:` line becomes
//   a WorkflowEvent {id: Number(id), event, data: JSON.parse(data)}, except
//   Done, whose data the SDK drops (so Pergola's Done {debug_url,
//   execute_id} never reaches the caller). A non-2xx answer makes axios
//   throw before the SDK reads the body: the error has the class and HTTP
//   status but no code or msg.
// - workflows.runs.history(workflowId, executeId): GET
//   /v1/workflows/:workflow_id/run_histories/:execute_id, resolves to
//   `data` (an array). 1.3.9 has no `runs.histories.retrieve` (coze-go's
//   name) and no `workflows.list`: the list is reached with the SDK's own
//   `get` (APIClient.get, public), which resolves to the whole answer.
// - workflows.chat.stream: POST /v1/workflows/chat, chat events; the SDK
//   replaces `done`'s data with "[DONE]", so debug_url is read by hand.
//
// POST /v1/workflow/stream_resume (question nodes), `is_async: true` and
// POST /v1/workflows/chat are recent: their tests find out whether the
// server offers them (the route's answer to an empty body; is_async's
// answer) and skip, saying why, when it does not (a route served but
// missing from GET /openapi.yaml is noted as a diagnostic).
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import {
  APIError,
  BadRequestError,
  ChatEventType,
  CozeAPI,
  NotFoundError,
  RoleType,
  WorkflowEventType,
  type ChatV3Message,
  type CreateChatData,
  type RunWorkflowData,
  type StreamChatData,
  type WorkflowEvent,
  type WorkflowEventError,
  type WorkflowEventInterrupt,
  type WorkflowEventMessage,
  type WorkflowExecuteHistory,
} from "@coze/api";

import { ErrorCode, PergolaError, type WorkflowDefinition } from "../src/index.js";
import { env, NUMERIC_ID, unique } from "./env.js";
import { collect, cozeFetch, Fixture, sdkError } from "./fixtures.js";

const W = WorkflowEventType;

/**
 * start (name) → code "Shout" (JavaScript: upper-cases it, counts its
 * letters) → llm "Greet" on the fake model (prompt "Hello {{who}}") → end
 * returning the variables upper, len and answer.
 */
function greeter(modelId: string): WorkflowDefinition {
  return {
    nodes: [
      { id: "start", type: "start", outputs: [{ name: "name", type: "string", required: true }] },
      {
        id: "shout",
        type: "code",
        title: "Shout",
        config: {
          language: "javascript",
          code:
            "async function main({ params }) {\n" +
            "  if (params.name === 'boom') throw new Error('no booms here');\n" +
            "  return { upper: params.name.toUpperCase(), len: params.name.length };\n" +
            "}",
        },
        inputs: { name: { ref: { node: "start", path: "name" } } },
        outputs: [
          { name: "upper", type: "string" },
          { name: "len", type: "integer" },
        ],
      },
      {
        id: "greet",
        type: "llm",
        title: "Greet",
        config: { model_id: modelId, prompt: "Hello {{who}}" },
        inputs: { who: { ref: { node: "shout", path: "upper" } } },
      },
      {
        id: "end",
        type: "end",
        title: "End",
        inputs: {
          upper: { ref: { node: "shout", path: "upper" } },
          len: { ref: { node: "shout", path: "len" } },
          answer: { ref: { node: "greet", path: "output" } },
        },
      },
    ],
    edges: [
      { from: "start", to: "shout" },
      { from: "shout", to: "greet" },
      { from: "greet", to: "end" },
    ],
  };
}

/** What greeter returns for a name. */
function greeting(name: string) {
  return { upper: name.toUpperCase(), len: name.length, answer: `echo: Hello ${name.toUpperCase()}` };
}

/** greeter with an end node returning text ("Answer: <the llm's reply>"), streamed as the model writes. */
function textGreeter(modelId: string): WorkflowDefinition {
  const def = greeter(modelId) as { nodes: Array<Record<string, unknown>>; edges: unknown[] };
  def.nodes[3] = {
    id: "end",
    type: "end",
    title: "End",
    config: { mode: "text", template: "Answer: {{a}}" },
    inputs: { a: { ref: { node: "greet", path: "output" } } },
  };
  return def;
}

/** The event names, e.g. "Message,Message,Done". */
function names(events: WorkflowEvent[]): string {
  return events.map((e) => e.event).join(",");
}

function messagesOf(events: WorkflowEvent[]): WorkflowEventMessage[] {
  return events.filter((e) => e.event === W.MESSAGE).map((e) => e.data as WorkflowEventMessage);
}

/** Asserts the ids are 0, 1, 2, ... as Pergola numbers them. */
function consecutiveIds(events: WorkflowEvent[]): void {
  assert.deepEqual(
    events.map((e) => e.id),
    events.map((_, i) => i),
    "event ids count from 0",
  );
}

/** The paths GET /openapi.yaml lists (the server's own contract). */
let documented: Promise<Set<string>> | undefined;
function documentedPaths(): Promise<Set<string>> {
  documented ??= (async () => {
    const res = await fetch(`${env.baseURL}/openapi.yaml`);
    assert.equal(res.status, 200, "GET /openapi.yaml");
    const text = await res.text();
    return new Set([...text.matchAll(/^\s+(\/[^\s:]*):\s*$/gm)].map((m) => m[1] as string));
  })();
  return documented;
}

/**
 * Whether the server routes POST path (an empty body answers anything but
 * Pergola's "no route" 404); skips the test, saying why, when it does not.
 * A route that is served but missing from GET /openapi.yaml is noted.
 */
async function needsRoute(t: TestContext, path: string): Promise<boolean> {
  const { status, body } = await cozeFetch("POST", path, { body: {} });
  if (status === 404 && /^no route/.test(String(body?.msg))) {
    t.skip(`POST ${path} is not served yet (${status} ${body.msg})`);
    return false;
  }
  if (!(await documentedPaths()).has(path)) t.diagnostic(`POST ${path} is served but not in GET /openapi.yaml`);
  return true;
}

/** Polls runs.history every 100 ms until the run leaves Running. */
async function settled(sdk: CozeAPI, workflowId: string, executeId: string, timeoutMs = 20_000): Promise<WorkflowExecuteHistory> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [h] = await sdk.workflows.runs.history(workflowId, executeId);
    assert.ok(h, "history answers one record");
    if (h.execute_status !== "Running") return h;
    assert.ok(Date.now() < deadline, `run ${executeId} still Running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type ListAnswer = {
  code: number;
  msg: string;
  data: {
    items: Array<{ workflow_id: string; workflow_name: string; description: string; icon_url: string; app_id: string }>;
    has_more: boolean;
  };
};

describe("@coze/api: workflows", { timeout: 120_000 }, () => {
  const fx = new Fixture();
  const sdk = new CozeAPI({ token: env.token, baseURL: env.baseURL });

  before(() => fx.setup());
  after(() => fx.cleanup());

  it("console: workflows create/get/validate/testRun/update/publish/versions/version/list", async () => {
    const def = greeter(fx.modelId);
    const w = await fx.workflow(def, { publish: false, description: "first" });
    assert.match(w.id, NUMERIC_ID);
    assert.equal(w.workspace_id, fx.workspaceId);
    assert.equal(w.published_version, 0);
    assert.equal(w.draft_revision, 1);

    const got = await fx.admin.workflows.get(w.id);
    assert.equal(got.name, w.name);
    assert.equal(got.description, "first");
    assert.deepEqual(
      (got.definition as { nodes: Array<{ id: string }> }).nodes.map((n) => n.id),
      ["start", "shout", "greet", "end"],
    );

    // Problems name the node and field; nothing is saved.
    const broken = structuredClone(def) as { nodes: Array<{ config?: Record<string, unknown> }> };
    delete broken.nodes[2]!.config!["model_id"];
    const verdict = await fx.admin.workflows.validate({ definition: broken });
    assert.equal(verdict.valid, false);
    assert.ok(
      verdict.problems.some((p) => p.field === "nodes[greet].config.model_id"),
      JSON.stringify(verdict.problems),
    );
    assert.deepEqual(await fx.admin.workflows.validate({ definition: def }), { valid: true, problems: [] });
    await assert.rejects(fx.admin.workflows.update(w.id, { definition: broken }), (err: unknown) => {
      assert.ok(err instanceof PergolaError, String(err));
      assert.equal(err.status, 400);
      assert.equal(err.code, ErrorCode.Invalid);
      assert.match(err.msg, /nodes\[greet\]\.config\.model_id/);
      return true;
    });

    // A test run of the draft, with every node's record.
    const test = await fx.admin.workflows.testRun(w.id, { parameters: { name: "ada" } });
    assert.equal(test.status, "success", JSON.stringify(test.error));
    assert.deepEqual(test.output, greeting("ada"));
    assert.deepEqual(test.nodes.map((n) => `${n.node_id}:${n.status}`).sort(), [
      "end:success",
      "greet:success",
      "shout:success",
      "start:success",
    ]);

    // Publish, change the draft, publish again.
    const v1 = await fx.admin.workflows.publish(w.id, {});
    assert.equal(v1.version, 1);
    assert.equal(v1.workflow_id, w.id);
    assert.equal(v1.description, "first", "the description defaults to the workflow's");
    const updated = await fx.admin.workflows.update(w.id, { description: "second" });
    assert.equal(updated.draft_revision, 2);
    assert.equal(updated.published_version, 1);
    const v2 = await fx.admin.workflows.publish(w.id, { description: "v2" });
    assert.equal(v2.version, 2);
    const versions = await fx.admin.workflows.versions(w.id);
    assert.equal(versions.total, 2);
    assert.deepEqual(
      versions.items.map((v) => [v.version, v.description]),
      [
        [2, "v2"],
        [1, "first"],
      ],
    );
    const one = await fx.admin.workflows.version(w.id, 1);
    assert.ok(one.definition, "a version has its definition");

    const listed = await fx.admin.workflows.list({ workspace_id: fx.workspaceId, status: "published", page_size: 100 });
    const item = listed.items.find((x) => x.id === w.id);
    assert.ok(item, "the published workflow is listed");
    assert.equal(item.published_version, 2);
    assert.equal(item.definition, undefined, "lists leave definitions out");

    // Names are identifiers; an unknown workflow is 404/4200.
    await assert.rejects(
      fx.admin.workflows.create({ workspace_id: fx.workspaceId, name: "no spaces here" }),
      (err: unknown) => err instanceof PergolaError && err.status === 400 && err.code === ErrorCode.Invalid,
    );
    await assert.rejects(
      fx.admin.workflows.get("999999999999"),
      (err: unknown) => err instanceof PergolaError && err.status === 404 && err.code === ErrorCode.NotFound,
    );
  });

  it("runs.create: data is a JSON string of the end node's variables, with execute_id and usage", async () => {
    const w = await fx.workflow(greeter(fx.modelId));
    const run: RunWorkflowData = await sdk.workflows.runs.create({ workflow_id: w.id, parameters: { name: "ada" } });
    assert.equal(typeof run.data, "string", "data is a JSON string, as in Coze");
    assert.deepEqual(JSON.parse(run.data), greeting("ada"));
    assert.match(run.execute_id, NUMERIC_ID);
    assert.equal(run.msg, "");
    assert.equal(typeof run.debug_url, "string");
    assert.equal(run.cost, "0");
    const usage = (run as RunWorkflowData & { usage?: { token_count: number; input_count: number; output_count: number } })
      .usage;
    assert.ok(usage, "the answer has usage");
    assert.ok(usage.token_count > 0, "the llm node's tokens are counted");
    assert.equal(usage.token_count, usage.input_count + usage.output_count);
    assert.equal(run.token, usage.token_count);

    // The history of that run: Success, its output, every node.
    const [h, ...more] = await sdk.workflows.runs.history(w.id, run.execute_id);
    assert.equal(more.length, 0, "history answers a one-element array");
    assert.ok(h);
    assert.equal(h.execute_id, run.execute_id);
    assert.equal(h.execute_status, "Success");
    assert.equal(h.run_mode, 0, "a synchronous run");
    assert.equal(h.error_code, "0");
    assert.equal(h.error_message, "");
    assert.equal(h.connector_id, "1024");
    assert.deepEqual(JSON.parse(h.output), greeting("ada"));
    assert.equal(typeof h.create_time, "number");
    assert.ok(h.update_time >= h.create_time);
    const nodes = (h as WorkflowExecuteHistory & { node_execute_status: Record<string, { is_finish: boolean }> })
      .node_execute_status;
    assert.deepEqual(Object.keys(nodes).sort(), ["end", "greet", "shout", "start"]);
    assert.ok(Object.values(nodes).every((n) => n.is_finish));
  });

  it("runs.create: workflow_version picks a published version; the latest by default", async () => {
    const w = await fx.workflow(greeter(fx.modelId));
    await fx.admin.workflows.update(w.id, { definition: textGreeter(fx.modelId) });
    await fx.admin.workflows.publish(w.id, {});
    const latest = await sdk.workflows.runs.create({ workflow_id: w.id, parameters: { name: "bo" } });
    assert.deepEqual(
      JSON.parse(latest.data),
      { content_type: 1, data: "Answer: echo: Hello BO", type_for_model: 2 },
      "a text end node answers Coze's answer object",
    );
    // Not in 1.3.9's RunWorkflowReq type, but sent as given (coze-go has it).
    type RunReq = Parameters<typeof sdk.workflows.runs.create>[0];
    const first = await sdk.workflows.runs.create({
      workflow_id: w.id,
      parameters: { name: "bo" },
      workflow_version: "1",
    } as RunReq);
    assert.deepEqual(JSON.parse(first.data), greeting("bo"));
  });

  it("runs.stream: one Message with the end node's variables, then Done", async () => {
    const w = await fx.workflow(greeter(fx.modelId));
    const events = await collect(sdk.workflows.runs.stream({ workflow_id: w.id, parameters: { name: "lin" } }));
    assert.equal(names(events), "Message,Done");
    consecutiveIds(events);
    const [m] = messagesOf(events);
    assert.ok(m);
    assert.deepEqual(JSON.parse(m.content), greeting("lin"));
    assert.equal(m.node_title, "End");
    assert.equal(m.node_seq_id, "0");
    assert.equal(m.node_is_finish, true);
    assert.deepEqual(m.ext, {});
    assert.equal(events.at(-1)?.data, undefined, "the SDK drops Done's data");
  });

  it("runs.stream: a text end node streams the llm's reply in pieces, the last one finished", async () => {
    const w = await fx.workflow(textGreeter(fx.modelId));
    const events = await collect(sdk.workflows.runs.stream({ workflow_id: w.id, parameters: { name: "grace" } }));
    assert.match(names(events), /^(Message,){3,}Done$/, names(events));
    consecutiveIds(events);
    const ms = messagesOf(events);
    assert.equal(ms.map((m) => m.content).join(""), "Answer: echo: Hello GRACE");
    assert.deepEqual(
      ms.map((m) => m.node_seq_id),
      ms.map((_, i) => String(i)),
      "node_seq_id counts the node's pieces, as strings",
    );
    assert.deepEqual(
      ms.map((m) => m.node_is_finish),
      ms.map((_, i) => i === ms.length - 1),
      "only the last piece is finished",
    );
    assert.ok(ms.every((m) => m.node_title === "End"));
    const usage = (ms.at(-1) as WorkflowEventMessage & { usage?: { token_count: number } }).usage;
    assert.ok(usage && usage.token_count > 0, "the last piece carries the run's usage");
  });

  it("a failing node: runs.create rejects with 4000 and the execute_id; history Fail; runs.stream gives Error then Done", async () => {
    const w = await fx.workflow(greeter(fx.modelId));
    let executeId = "";
    await assert.rejects(sdk.workflows.runs.create({ workflow_id: w.id, parameters: { name: "boom" } }), (err: unknown) => {
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /node shout \(Shout\) failed: .*no booms here/)(err);
      const raw = (err as APIError).rawError as { execute_id?: string } | undefined;
      assert.match(raw?.execute_id ?? "", NUMERIC_ID, "the failure names the run");
      executeId = raw!.execute_id!;
      return true;
    });
    const [h] = await sdk.workflows.runs.history(w.id, executeId);
    assert.ok(h);
    assert.equal(h.execute_status, "Fail");
    assert.match(h.error_message, /no booms here/);
    assert.notEqual(h.error_code, "0");

    const events = await collect(sdk.workflows.runs.stream({ workflow_id: w.id, parameters: { name: "boom" } }));
    assert.equal(names(events), "Error,Done");
    const e = events[0]!.data as WorkflowEventError;
    assert.equal(e.error_code, ErrorCode.Invalid);
    assert.match(e.error_message, /node shout \(Shout\) failed: .*no booms here/);
  });

  it("GET /v1/workflows (the SDK's get; 1.3.9 has no workflows.list): the workspace's workflows, paged, published_online", async (t) => {
    // A workspace of its own, so that paging sees only these two.
    const team = await fx.admin.workspaces.create({ name: unique("fe-wf-team") });
    const made: string[] = [];
    t.after(async () => {
      for (const id of made) await fx.admin.workflows.remove(id).catch(() => undefined);
      await fx.admin.workspaces.remove(team.id).catch(() => undefined);
    });
    const a = await fx.workflow(greeter(fx.modelId), { description: "listed", workspaceId: team.id });
    made.push(a.id);
    const draft = await fx.workflow(greeter(fx.modelId), { publish: false, workspaceId: team.id });
    made.push(draft.id);
    const all = await sdk.get<unknown, ListAnswer>("/v1/workflows", { workspace_id: team.id, page_num: 1, page_size: 100 });
    assert.equal(all.code, 0);
    const item = all.data.items.find((x) => x.workflow_id === a.id);
    assert.ok(item, "the workflow is listed");
    assert.equal(item.workflow_name, a.name);
    assert.equal(item.description, "listed");
    assert.equal(typeof item.icon_url, "string");
    assert.equal(typeof item.app_id, "string");
    assert.deepEqual(
      all.data.items.map((x) => x.workflow_id),
      [draft.id, a.id],
      "newest first, drafts too",
    );
    assert.equal(all.data.has_more, false);

    const online = await sdk.get<unknown, ListAnswer>("/v1/workflows", {
      workspace_id: team.id,
      publish_status: "published_online",
      page_size: 100,
    });
    assert.deepEqual(
      online.data.items.map((x) => x.workflow_id),
      [a.id],
      "published_online leaves drafts out",
    );

    // One per page.
    const p1 = await sdk.get<unknown, ListAnswer>("/v1/workflows", { workspace_id: team.id, page_num: 1, page_size: 1 });
    assert.deepEqual(
      p1.data.items.map((x) => x.workflow_id),
      [draft.id],
    );
    assert.equal(p1.data.has_more, true);
    const p2 = await sdk.get<unknown, ListAnswer>("/v1/workflows", { workspace_id: team.id, page_num: 2, page_size: 1 });
    assert.deepEqual(
      p2.data.items.map((x) => x.workflow_id),
      [a.id],
    );
    assert.equal(p2.data.has_more, false);
  });

  it("errors: an unknown workflow is NotFoundError 4200, wrong parameters BadRequestError 4000", async () => {
    const unknown = "999999999999";
    await assert.rejects(
      sdk.workflows.runs.create({ workflow_id: unknown, parameters: { name: "x" } }),
      sdkError(NotFoundError, 404, ErrorCode.NotFound, /workflow 999999999999 not found/),
    );
    const w = await fx.workflow(greeter(fx.modelId));
    await assert.rejects(
      sdk.workflows.runs.history(w.id, unknown),
      sdkError(NotFoundError, 404, ErrorCode.NotFound, /not found/),
    );
    await assert.rejects(
      sdk.workflows.runs.history(unknown, unknown),
      sdkError(NotFoundError, 404, ErrorCode.NotFound, /not found/),
    );

    await assert.rejects(
      sdk.workflows.runs.create({ workflow_id: w.id }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /^parameters\.name: is required/),
    );
    await assert.rejects(
      sdk.workflows.runs.create({ workflow_id: w.id, parameters: { name: 5 } }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /^parameters\.name: want string/),
    );
    await assert.rejects(
      sdk.workflows.runs.create({ workflow_id: "" }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /workflow_id/),
    );
    const draft = await fx.workflow(greeter(fx.modelId), { publish: false });
    await assert.rejects(
      sdk.workflows.runs.create({ workflow_id: draft.id, parameters: { name: "x" } }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /not published/),
    );
    await assert.rejects(
      sdk.get("/v1/workflows", {}),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /workspace_id/),
    );

    // Streaming: a Coze SDK's streamed call that fails before the stream is
    // answered 200 with the envelope (axios would throw on another status
    // before the SDK reads the body): the SDK yields it as an "error" event
    // whose data has code and msg.
    for (const [params, code] of [
      [{ workflow_id: unknown, parameters: { name: "x" } }, ErrorCode.NotFound],
      [{ workflow_id: w.id, parameters: {} }, ErrorCode.Invalid],
    ] as const) {
      const events = await collect(sdk.workflows.runs.stream(params));
      assert.equal(events.length, 1, JSON.stringify(events));
      assert.equal(events[0]?.event, "error");
      const data = events[0]?.data as unknown as { code: number; msg: string };
      assert.equal(data.code, code, JSON.stringify(data));
      assert.ok(data.msg.length > 0);
    }
  });

  it("runs.stream → Interrupt (question node) → runs.resume with the answer → Interrupt (option) → runs.resume → Done", async (t) => {
    if (!(await needsRoute(t, "/v1/workflow/stream_resume"))) return;
    const w = await fx.workflow(questionWorkflow());

    const first = await collect(sdk.workflows.runs.stream({ workflow_id: w.id, parameters: { name: "ada" } }));
    const ask = interruptOf(first);
    assert.equal(ask.node_title, "Ask");

    // The answer to the free question; then the option question interrupts.
    const second = await collect(
      sdk.workflows.runs.resume({
        workflow_id: w.id,
        event_id: ask.interrupt_data.event_id,
        resume_data: "Grace",
        interrupt_type: ask.interrupt_data.type,
      }),
    );
    const size = interruptOf(second);
    assert.equal(size.node_title, "Size");
    assert.notEqual(size.interrupt_data.event_id, ask.interrupt_data.event_id);

    // Options are picked by number (from 1) or by text.
    const last = await collect(
      sdk.workflows.runs.resume({
        workflow_id: w.id,
        event_id: size.interrupt_data.event_id,
        resume_data: "2",
        interrupt_type: size.interrupt_data.type,
      }),
    );
    assert.match(names(last), /^(Message,)+Done$/, names(last));
    consecutiveIds(last);
    const out = messagesOf(last).at(-1)!;
    assert.equal(out.node_is_finish, true);
    assert.deepEqual(JSON.parse(out.content), { name: "ada", said: "Grace", size: "M", index: 1 });

    // An answered event cannot be answered again: an "error" event with
    // code 4300.
    const again = await collect(
      sdk.workflows.runs.resume({
        workflow_id: w.id,
        event_id: ask.interrupt_data.event_id,
        resume_data: "again",
        interrupt_type: ask.interrupt_data.type,
      }),
    );
    assert.equal(again[0]?.event, "error", JSON.stringify(again));
    assert.equal((again[0]?.data as unknown as { code: number }).code, 4300);
  });

  it("runs.create of a workflow that asks: interrupt_data instead of data; history Interrupted; resumed to Success", async (t) => {
    if (!(await needsRoute(t, "/v1/workflow/stream_resume"))) return;
    const w = await fx.workflow(questionWorkflow());
    const run = (await sdk.workflows.runs.create({ workflow_id: w.id, parameters: { name: "bo" } })) as RunWorkflowData & {
      interrupt_data?: { event_id: string; type: number; node_title?: string; question?: string };
    };
    assert.match(run.execute_id, NUMERIC_ID);
    assert.equal(run.data, undefined, "an interrupted run has no data (RunWorkflowData types it as a string)");
    const ask = run.interrupt_data;
    assert.ok(ask, "the answer says what the run waits for");
    assert.equal(ask.node_title, "Ask");
    assert.equal(ask.question, "Hi bo, who are you?");
    const [waiting] = await sdk.workflows.runs.history(w.id, run.execute_id);
    assert.equal(waiting?.execute_status as string, "Interrupted", "not one of the SDK's Success | Running | Fail");

    const size = interruptOf(
      await collect(
        sdk.workflows.runs.resume({ workflow_id: w.id, event_id: ask.event_id, resume_data: "Lin", interrupt_type: ask.type }),
      ),
    );
    const last = await collect(
      sdk.workflows.runs.resume({
        workflow_id: w.id,
        event_id: size.interrupt_data.event_id,
        resume_data: "L",
        interrupt_type: size.interrupt_data.type,
      }),
    );
    assert.equal(names(last), "Message,Done");
    const [h] = await sdk.workflows.runs.history(w.id, run.execute_id);
    assert.ok(h);
    assert.equal(h.execute_status, "Success", h.error_message);
    assert.deepEqual(JSON.parse(h.output), { name: "bo", said: "Lin", size: "L", index: 2 });
  });

  it("runs.create({is_async: true}) answers an execute_id; runs.history reaches Success with the output", async (t) => {
    const w = await fx.workflow(greeter(fx.modelId));
    let started: RunWorkflowData;
    try {
      started = await sdk.workflows.runs.create({ workflow_id: w.id, parameters: { name: "async" }, is_async: true });
    } catch (err) {
      // Refused as not available yet (400 on is_async), or 503/5030 while
      // the server runs without a work queue.
      const refused = err instanceof BadRequestError && /is_async/.test(err.msg ?? "");
      if (refused || (err instanceof APIError && err.code === ErrorCode.Unavailable)) {
        t.skip(`is_async is not available: ${(err as APIError).msg}`);
        return;
      }
      throw err;
    }
    assert.match(started.execute_id, NUMERIC_ID);
    assert.ok(!started.data, "an async run answers no data");
    const h = await settled(sdk, w.id, started.execute_id);
    assert.equal(h.execute_status, "Success", h.error_message);
    assert.equal(h.run_mode, 2, "an async run");
    assert.deepEqual(JSON.parse(h.output), greeting("async"));
  });

  it("workflows.chat.stream: a chatflow's answer as chat events, kept in the conversation; done with debug_url", async (t) => {
    if (!(await needsRoute(t, "/v1/workflows/chat"))) return;
    const w = await fx.workflow(chatflow(fx.modelId));
    const E = ChatEventType;
    const turn = async (text: string, conversationId?: string) => {
      const events: StreamChatData[] = await collect(
        sdk.workflows.chat.stream({
          workflow_id: w.id,
          additional_messages: [{ role: RoleType.User, content: text, content_type: "text" }],
          ...(conversationId ? { conversation_id: conversationId } : {}),
        }),
      );
      const kinds = events.map((e) => e.event);
      const short = kinds.map((k) => k.replace(/^conversation\./, "")).join(",");
      assert.match(short, /^chat\.created,chat\.in_progress,(message\.delta,)+message\.completed,chat\.completed,done$/, short);
      const deltas = events.filter((e) => e.event === E.CONVERSATION_MESSAGE_DELTA).map((e) => e.data as ChatV3Message);
      const [answer] = events.filter((e) => e.event === E.CONVERSATION_MESSAGE_COMPLETED).map((e) => e.data as ChatV3Message);
      assert.ok(answer);
      assert.equal(answer.role, "assistant");
      assert.equal(answer.type, "answer");
      assert.equal(answer.content, `echo: ${text}`);
      assert.equal(deltas.map((d) => d.content).join(""), answer.content);
      assert.ok(deltas.every((d) => d.id === answer.id && d.chat_id === answer.chat_id), "deltas belong to the answer");
      const chat = events.at(-2)!.data as CreateChatData;
      assert.equal(chat.status, "completed");
      assert.match(chat.id, NUMERIC_ID);
      assert.equal(answer.chat_id, chat.id);
      assert.match(chat.conversation_id, NUMERIC_ID);
      assert.ok(chat.usage && chat.usage.token_count > 0, "chat.completed has usage");
      assert.equal(events.at(-1)!.data, "[DONE]", "the SDK replaces done's data");
      return chat;
    };
    const first = await turn(`hi ${unique("chatflow")}`);
    const second = await turn("and again", first.conversation_id);
    assert.equal(second.conversation_id, first.conversation_id);
    const history = await sdk.conversations.messages.list(first.conversation_id, { order: "asc" });
    assert.deepEqual(
      history.data.map((m) => [m.role, m.content]).slice(-2),
      [
        ["user", "and again"],
        ["assistant", "echo: and again"],
      ],
      "both turns are kept in the conversation",
    );
    assert.equal(history.data.length, 4);

    // The SDK replaces done's data with "[DONE]"; coze-go's examples read
    // debug_url from it, so it must be a JSON object.
    const res = await fetch(`${env.baseURL}/v1/workflows/chat`, {
      method: "POST",
      headers: { Authorization: `Bearer ${env.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ workflow_id: w.id, additional_messages: [{ role: "user", content: "raw", content_type: "text" }] }),
    });
    const raw = await res.text();
    const done = /event: ?done\r?\ndata: ?(.*)\r?\n/.exec(raw);
    assert.ok(done, raw);
    assert.equal(typeof (JSON.parse(done[1]!) as { debug_url?: unknown }).debug_url, "string", raw);

    // Errors before the run: 200 with the envelope for the SDK, which
    // yields an "error" event with code and msg.
    const unknownChat = await collect(
      sdk.workflows.chat.stream({ workflow_id: "999999999999", additional_messages: [{ role: RoleType.User, content: "x" }] }),
    );
    assert.equal(unknownChat[0]?.event, "error");
    assert.equal((unknownChat[0]?.data as unknown as { code: number }).code, ErrorCode.NotFound);
    const emptyChat = await collect(sdk.workflows.chat.stream({ workflow_id: w.id, additional_messages: [] }));
    assert.equal((emptyChat[0]?.data as unknown as { code: number; msg: string }).code, ErrorCode.Invalid);
  });
});

/**
 * start (name) → question "Ask" (free text: "Hi {{n}}, who are you?") →
 * question "Size" (an option of S, M, L) → end returning {name, said,
 * size, index}.
 */
function questionWorkflow(): WorkflowDefinition {
  return {
    nodes: [
      { id: "start", type: "start", outputs: [{ name: "name", type: "string", required: true }] },
      {
        id: "ask",
        type: "question",
        title: "Ask",
        config: { question: "Hi {{n}}, who are you?" },
        inputs: { n: { ref: { node: "start", path: "name" } } },
      },
      {
        id: "size",
        type: "question",
        title: "Size",
        config: { question: "Pick a size", answer_type: "option", options: ["S", "M", "L"] },
      },
      {
        id: "end",
        type: "end",
        inputs: {
          name: { ref: { node: "start", path: "name" } },
          said: { ref: { node: "ask", path: "answer" } },
          size: { ref: { node: "size", path: "answer" } },
          index: { ref: { node: "size", path: "option_index" } },
        },
      },
    ],
    edges: [
      { from: "start", to: "ask" },
      { from: "ask", to: "size" },
      { from: "size", to: "end" },
    ],
  };
}

/**
 * The Interrupt of a stream that stopped to ask: (Message,)* Interrupt,
 * Done, ids from 0, and an event_id to resume with.
 */
function interruptOf(events: WorkflowEvent[]): WorkflowEventInterrupt {
  assert.match(names(events), /^(Message,)*Interrupt,Done$/, names(events));
  consecutiveIds(events);
  const it = events.find((e) => e.event === W.INTERRUPT)!.data as WorkflowEventInterrupt;
  assert.equal(typeof it.interrupt_data.event_id, "string");
  assert.ok(it.interrupt_data.event_id, "the Interrupt names the event to resume");
  assert.equal(typeof it.interrupt_data.type, "number");
  return it;
}

/** A chatflow: the user's message (USER_INPUT, as in Coze) to the fake model, its reply as the answer. */
function chatflow(modelId: string): WorkflowDefinition {
  return {
    nodes: [
      { id: "start", type: "start", outputs: [{ name: "USER_INPUT", type: "string", required: true }] },
      {
        id: "reply",
        type: "llm",
        config: { model_id: modelId, prompt: "{{q}}" },
        inputs: { q: { ref: { node: "start", path: "USER_INPUT" } } },
      },
      {
        id: "end",
        type: "end",
        config: { mode: "text", template: "{{a}}" },
        inputs: { a: { ref: { node: "reply", path: "output" } } },
      },
    ],
    edges: [
      { from: "start", to: "reply" },
      { from: "reply", to: "end" },
    ],
  };
}

// Shared set-up of the chat tests: a model on the fake LLM, bots that use
// it, and plain-HTTP helpers for what the official SDKs cannot do (or do
// differently from the server; each use says why).
import assert from "node:assert/strict";
import { APIError, type CreateChatData } from "@coze/api";

import { PergolaClient, type Bot, type Body, type Workflow, type WorkflowDefinition } from "../src/index.js";
import { env, LOG_ID, unique } from "./env.js";

/** Our console client with the bootstrap admin's PAT. */
export function adminClient(): PergolaClient {
  return new PergolaClient({ baseURL: env.baseURL, token: env.token });
}

/**
 * The resources one test file makes, removed by cleanup(): bots and
 * workflows first, then the models they use.
 */
export class Fixture {
  readonly admin = adminClient();
  readonly bots: string[] = [];
  readonly workflows: string[] = [];
  readonly models: string[] = [];
  /** The model on the fake LLM every bot uses unless told otherwise. */
  modelId = "";
  workspaceId = "";

  /**
   * Registers a model on the fake LLM (`pergola fakellm`, tools on) and finds
   * the admin's personal workspace.
   */
  async setup(): Promise<this> {
    this.modelId = await this.model(env.fakeLLMURL);
    const personal = (await this.admin.workspaces.list({ page_size: 100 })).items.find((w) => w.kind === "personal");
    assert.ok(personal, "the admin has a personal workspace");
    this.workspaceId = personal.id;
    return this;
  }

  /** Registers an OpenAI-compatible model at baseURL (tools on); answers its id. */
  async model(baseURL: string): Promise<string> {
    const id = unique("fe-model");
    await this.admin.admin.models.create({
      id,
      provider: "openai",
      base_url: baseURL,
      api_key: "sk-fake",
      model: "fake",
      capabilities: { tools: true, vision: false, json: false },
    });
    this.models.push(id);
    return id;
  }

  async cleanup(): Promise<void> {
    for (const id of this.bots.splice(0)) await this.admin.bots.remove(id).catch(() => undefined);
    for (const id of this.workflows.splice(0)) await this.admin.workflows.remove(id).catch(() => undefined);
    for (const id of this.models.splice(0)) await this.admin.admin.models.remove(id).catch(() => undefined);
  }

  /**
   * A published bot whose model cannot be reached (nothing listens on
   * 127.0.0.1:9), so that its runs fail.
   */
  async deadBot(): Promise<Bot> {
    const model = await this.model("http://127.0.0.1:9/v1");
    return this.bot({ model: { model_id: model } });
  }

  /**
   * Creates a bot on the fake model through the console (name and prompt
   * given, other fields as in `config`), publishes it unless told not to,
   * and returns it as GET /api/bots/{id} answers after that.
   */
  async bot(
    config: Partial<Omit<Body<"/api/bots", "post">, "workspace_id">> = {},
    opts: { publish?: boolean } = {},
  ): Promise<Bot> {
    const b = await this.admin.bots.create({
      workspace_id: this.workspaceId,
      name: unique("fe-bot"),
      prompt: "You are a test bot.",
      ...config,
      model: { model_id: this.modelId, ...config.model },
    });
    this.bots.push(b.id);
    if (opts.publish !== false) await this.admin.bots.publish(b.id, { connector_ids: ["1024"] });
    return this.admin.bots.get(b.id);
  }

  /**
   * Creates a workflow through the console, in the admin's personal
   * workspace unless told otherwise (a fresh name: letters, digits and `_`),
   * publishes it as version 1 unless told not to, and returns it as POST
   * /api/workflows answered.
   */
  async workflow(
    definition: WorkflowDefinition,
    opts: { publish?: boolean; description?: string; workspaceId?: string } = {},
  ): Promise<Workflow> {
    const w = await this.admin.workflows.create({
      workspace_id: opts.workspaceId ?? this.workspaceId,
      name: unique("fe_wf").replace(/-/g, "_"),
      description: opts.description ?? "made by the frontend tests",
      definition,
    });
    this.workflows.push(w.id);
    if (opts.publish !== false) await this.admin.workflows.publish(w.id, {});
    return w;
  }

  /** Remembers a bot made elsewhere (e.g. with the SDK) for cleanup. */
  track(botId: string): string {
    this.bots.push(botId);
    return botId;
  }
}

/** A plain request with the admin's PAT; answers the status and the parsed JSON body. */
export async function cozeFetch(
  method: string,
  path: string,
  opts: { query?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const qs = opts.query ? `?${new URLSearchParams(opts.query)}` : "";
  const res = await fetch(env.baseURL + path + qs, {
    method,
    headers: {
      Authorization: `Bearer ${env.token}`,
      ...(opts.body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

const RUNNING = new Set(["created", "in_progress"]);

/**
 * Polls GET /v3/chat/retrieve (as coze-go and Coze's docs do) every 50 ms
 * until the chat leaves created/in_progress. @coze/api's own
 * chat.retrieve (and so createAndPoll) sends POST, which Pergola routes too.
 */
export async function pollChat(conversationId: string, chatId: string, timeoutMs = 10_000): Promise<CreateChatData> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await cozeFetch("GET", "/v3/chat/retrieve", {
      query: { conversation_id: conversationId, chat_id: chatId },
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.code, 0, JSON.stringify(body));
    const chat = body.data as CreateChatData;
    if (!RUNNING.has(chat.status)) return chat;
    assert.ok(Date.now() < deadline, `chat ${chatId} still ${chat.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Drains an async iterable into an array. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/**
 * Asserts err is @coze/api's APIError of this class, HTTP status and code
 * (and msg pattern), with the log id the SDK reads from X-Tt-Logid.
 */
export function sdkError(cls: typeof APIError, status: number, code: number | undefined, msg?: RegExp) {
  return (err: unknown): true => {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    assert.ok(err instanceof APIError);
    assert.equal(err.status, status, err.message);
    assert.equal(err.code, code, err.message);
    assert.match(err.logid ?? "", LOG_ID, "the SDK reads X-Tt-Logid into err.logid");
    if (msg) assert.match(err.msg ?? "", msg);
    return true;
  };
}

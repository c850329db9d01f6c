// PergolaClient: every surface of Pergola's HTTP contract, typed by the idl.
// Console methods resolve to the envelope's `data` and reject with
// PergolaError; `coze` answers as Coze's API, `openai` as OpenAI's (rejecting
// with OpenAIError); streams yield Server-Sent Events. To add a resource:
// describe it in idl/*.yaml, run `npm run gen`, and add a group in
// src/groups/ whose methods are one `c.call(...)` each; the types follow.
import type { Caller, Opts, Rest } from "./caller.js";
import type { ErrorStyle } from "./errors.js";
import { admin } from "./groups/admin.js";
import { bots } from "./groups/bots.js";
import { apps, plugins, tables } from "./groups/builder.js";
import { knowledge } from "./groups/knowledge.js";
import { triggers } from "./groups/triggers.js";
import { members, models, tokens, workspaces } from "./groups/console.js";
import { coze } from "./groups/coze.js";
import { traces, usage } from "./groups/observe.js";
import { openai } from "./groups/openai.js";
import { inbound, webchat } from "./groups/webchat.js";
import { workflows } from "./groups/workflows.js";
import type { Answer, Data, MethodOf, Path, Schema } from "./ops.js";
import type { SSEEvent } from "./sse.js";
import { Transport, type Meta, type RawRequest, type TransportOptions } from "./transport.js";

export type ClientOptions = TransportOptions;

export type { ID } from "./caller.js";
export type { NewToken } from "./groups/console.js";
export type { ImportFileFields } from "./groups/workflows.js";

export type User = Schema<"User">;
export type Token = Schema<"Token">;
export type Workspace = Schema<"Workspace">;
export type Member = Schema<"Member">;
export type Model = Schema<"Model">;
/** A model as builders see it in GET /api/models (no endpoint or key details). */
export type ModelChoice = Data<"/api/models", "get">["items"][number];
export type Bot = Schema<"Bot">;
export type BotConfig = Schema<"BotConfig">;
export type BotSummary = Schema<"BotSummary">;
export type BotVersion = Schema<"BotVersion">;
export type BotClientTool = Schema<"BotClientTool">;
export type BotVariableDefinition = Schema<"BotVariableDefinition">;
export type Workflow = Schema<"Workflow">;
export type WorkflowVersion = Schema<"WorkflowVersion">;
/** A workflow definition (idl/workflow-dsl.schema.json): nodes and edges. */
export type WorkflowDefinition = Schema<"WorkflowDefinition">;
export type WorkflowTestRun = Schema<"WorkflowTestRun">;
export type Role = Schema<"Role">;
export type Scope = Schema<"Scope">;
export type Session = Data<"/api/auth/login", "post">;
/** A list answer: one page of items and the total across pages. */
export type Page<T> = { items: T[]; total: number };

export type Plugin = Schema<"Plugin">;
export type Table = Schema<"Table">;
export type TableRow = Schema<"TableRow">;
export type App = Schema<"App">;
export type Channel = Schema<"Channel">;
export type Delivery = Schema<"Delivery">;
export type UsageReport = Schema<"UsageReport">;
/** The span tree of a chat turn or workflow run: one root span per run. */
export type Trace = Schema<"Trace">;
export type Span = Schema<"Span">;
/** An end user's values of an app's variables. */
export type AppValues = Data<"/api/apps/{id}/values", "get">;
/** What POST /api/workflows/import answers: the workflow(s) and the conversion report. */
export type CozeImportResult = Schema<"CozeImportResult">;
export type WorkflowRunSummary = Schema<"WorkflowRunSummary">;
export type OpenAIModel = Schema<"OpenAIModel">;
export type OpenAIResponse = Schema<"OpenAIResponse">;
export type ChatCompletion = Schema<"ChatCompletion">;
export type ChatCompletionChunk = Schema<"ChatCompletionChunk">;
export type Chat = Schema<"Chat">;

export class PergolaClient implements Caller {
  readonly transport: Transport;
  /** Metadata (status, log id) of the last answer this client received. */
  lastMeta: Meta | undefined;

  private readonly options: ClientOptions;

  constructor(opts: ClientOptions) {
    this.options = { ...opts };
    this.transport = new Transport(opts);
  }

  get baseURL(): string {
    return this.transport.baseURL;
  }

  /** The token sent as `Authorization: Bearer`; login() sets it to the session. */
  get token(): ClientOptions["token"] {
    return this.transport.token;
  }
  set token(t: ClientOptions["token"]) {
    this.transport.token = t;
  }

  /** A client for the same server and options with another token. */
  withToken(token: ClientOptions["token"]): PergolaClient {
    return new PergolaClient({ ...this.options, token });
  }

  // ---- calls: any operation of the contract, typed by path and method --------

  /**
   * Calls an operation that answers an envelope and resolves to its `data`:
   * `client.call("get", "/api/workspaces/{id}", { path: { id } })`.
   */
  async call<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<Data<P, M>> {
    const { data, meta } = await this.transport.request<Data<P, M>>(raw(method, path, opts));
    this.lastMeta = meta;
    return data;
  }

  /** Calls an operation that answers an envelope and resolves to the whole answer. */
  async callWhole<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<Answer<P, M>> {
    const { body, meta } = await this.transport.requestWhole<Answer<P, M>>(raw(method, path, opts));
    this.lastMeta = meta;
    return body;
  }

  /** Calls an operation that answers plain JSON, failing with an envelope. */
  async callPlain<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<Answer<P, M>> {
    const { body, meta } = await this.transport.requestPlain<Answer<P, M>>(raw(method, path, opts));
    this.lastMeta = meta;
    return body;
  }

  /** Calls an OpenAI route: plain JSON, OpenAIError on failure. */
  async callOpenAI<P extends Path, M extends MethodOf<P>>(
    method: M,
    path: P,
    opts?: Opts<P, M>,
  ): Promise<Answer<P, M>> {
    const { body, meta } = await this.transport.requestOpenAI<Answer<P, M>>(raw(method, path, opts));
    this.lastMeta = meta;
    return body;
  }

  /** Calls an operation that answers text (CSV, HTML, JavaScript). */
  async callText<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<string> {
    const { text, meta } = await this.transport.requestText(raw(method, path, opts));
    this.lastMeta = meta;
    return text;
  }

  /** Calls an operation that answers Server-Sent Events and yields them. */
  callStream<P extends Path, M extends MethodOf<P>>(
    method: M,
    path: P,
    opts?: Opts<P, M>,
    style?: ErrorStyle,
  ): AsyncGenerator<SSEEvent, void, undefined> {
    return this.transport.stream(raw(method, path, opts), style);
  }

  // ---- sign-in and the caller ------------------------------------------------

  /**
   * Signs in with e-mail and password. The client then uses the session
   * token for its calls (pass { keepToken: true } to leave it unchanged).
   */
  async login(
    email: string,
    password: string,
    opts: Rest<"/api/auth/login", "post"> & { keepToken?: boolean } = {},
  ): Promise<Session> {
    const { keepToken, ...rest } = opts;
    const s = await this.call("post", "/api/auth/login", { body: { email, password }, ...rest });
    if (!keepToken) this.token = s.token;
    return s;
  }

  /** Ends the console session the client signs in with, and forgets it. */
  async logout(opts?: Rest<"/api/auth/logout", "post">): Promise<void> {
    await this.call("post", "/api/auth/logout", opts);
    this.token = undefined;
  }

  /** The user the token belongs to. */
  me(opts?: Rest<"/api/me", "get">) {
    return this.call("get", "/api/me", opts);
  }

  // ---- resources, by surface --------------------------------------------------

  /** The caller's personal access tokens. */
  readonly tokens = tokens(this);
  /** Workspaces the caller belongs to. */
  readonly workspaces = workspaces(this);
  /** Members of a workspace. */
  readonly members = members(this);
  /** The enabled models bots can use. */
  readonly models = models(this);
  /** Bots: drafts, versions, variables, feedback, debug chat, channels. */
  readonly bots = bots(this);
  /** Workflows: drafts, versions, test runs, runs, imports. */
  readonly workflows = workflows(this);
  /** Plugins: OpenAPI and MCP tools. */
  readonly plugins = plugins(this);
  /** Tables: rows, SQL, CSV. */
  readonly tables = tables(this);
  /** Knowledge bases: documents, chunks, indexing progress, retrieval tests. */
  readonly knowledge = knowledge(this);
  /** Triggers: schedules and webhooks that run published workflows. */
  readonly triggers = triggers(this);
  /** Apps. */
  readonly apps = apps(this);
  /** Usage by workspace, bot, model and day. */
  readonly usage = usage(this);
  /** The span trees of chat turns and workflow runs. */
  readonly traces = traces(this);
  /** The admin API; the caller must be a platform administrator. */
  readonly admin = admin(this);
  /** The hosted web chat of `web` channels, with end-user tokens. */
  readonly webchat = webchat(this);
  /** Inbound events of `webhook` channels, signed with the channel secret. */
  readonly channels = inbound(this);
  /** The Coze-compatible API (/v1, /v3). */
  readonly coze = coze(this);
  /** The OpenAI-compatible API (/v1/models, /v1/chat/completions, /v1/responses). */
  readonly openai = openai(this);
}

function raw(method: string, path: string, opts: object | undefined): RawRequest {
  const o = (opts ?? {}) as Omit<RawRequest, "method" | "path" | "pathParams"> & {
    path?: Record<string, string | number>;
  };
  return { ...o, method, path, pathParams: o.path };
}

/**
 * Walks every page of a paged list: `for await (const ws of paginate((q) =>
 * client.workspaces.list(q)))`. Stops after `total` items or an empty page.
 */
export async function* paginate<T>(
  list: (q: { page_num: number; page_size: number }) => Promise<Page<T>>,
  pageSize = 50,
): AsyncGenerator<T, void, undefined> {
  let seen = 0;
  for (let page = 1; ; page++) {
    const { items, total } = await list({ page_num: page, page_size: pageSize });
    for (const it of items) yield it;
    seen += items.length;
    if (items.length === 0 || seen >= total) return;
  }
}

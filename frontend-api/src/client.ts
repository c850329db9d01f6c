// PergolaClient: the console (/api) and admin (/api/admin) API, typed by the
// idl. Every method resolves to the envelope's `data` and rejects with
// PergolaError. To add a resource (bots, workflows, ...): describe it in
// idl/*.yaml, run `npm run gen`, and add a group below whose methods are one
// `this.call(...)` each; the types follow from the schema.
import type { Body, CallOptions, Data, MethodOf, Path, Query, Schema } from "./ops.js";
import { Transport, type Meta, type TransportOptions } from "./transport.js";

export type ClientOptions = TransportOptions;

/** A numeric id; the API sends strings and accepts numbers too. */
export type ID = string | number;

export type User = Schema<"User">;
export type Token = Schema<"Token">;
export type Workspace = Schema<"Workspace">;
export type Member = Schema<"Member">;
export type Model = Schema<"Model">;
/** A model as builders see it in GET /api/models (no endpoint or key details). */
export type ModelChoice = Data<"/api/models", "get">["items"][number];
/** A new personal access token: the answer of tokens.create, whose `token` is the secret. */
export type NewToken = Data<"/api/tokens", "post"> & { token: string };
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

type Rest<P extends Path, M extends MethodOf<P>> = Omit<CallOptions<P, M>, "path" | "query" | "body">;

export class PergolaClient {
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

  /**
   * Calls any operation of the contract, typed by path and method:
   * `client.call("get", "/api/workspaces/{id}", { path: { id } })`.
   */
  async call<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: CallOptions<P, M>): Promise<Data<P, M>> {
    const o = (opts ?? {}) as {
      path?: Record<string, string | number>;
      query?: Record<string, unknown>;
      body?: unknown;
      signal?: AbortSignal;
      headers?: Record<string, string>;
    };
    const { data, meta } = await this.transport.request<Data<P, M>>({
      method,
      path,
      pathParams: o.path,
      query: o.query,
      body: o.body,
      signal: o.signal,
      headers: o.headers,
    });
    this.lastMeta = meta;
    return data;
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

  // ---- resources ------------------------------------------------------------

  /** The caller's personal access tokens. */
  readonly tokens = {
    list: (opts?: Rest<"/api/tokens", "get">) => this.call("get", "/api/tokens", opts),
    /** The answer's `token` holds the secret, shown this once. */
    create: (body: Body<"/api/tokens", "post">, opts?: Rest<"/api/tokens", "post">) =>
      this.call("post", "/api/tokens", { body, ...opts }) as Promise<NewToken>,
    revoke: (id: ID, opts?: Rest<"/api/tokens/{id}", "delete">) =>
      this.call("delete", "/api/tokens/{id}", { path: { id: String(id) }, ...opts }),
  };

  /** Workspaces the caller belongs to. */
  readonly workspaces = {
    list: (query?: Query<"/api/workspaces", "get">, opts?: Rest<"/api/workspaces", "get">) =>
      this.call("get", "/api/workspaces", { query, ...opts }),
    create: (body: Body<"/api/workspaces", "post">, opts?: Rest<"/api/workspaces", "post">) =>
      this.call("post", "/api/workspaces", { body, ...opts }),
    get: (id: ID, opts?: Rest<"/api/workspaces/{id}", "get">) =>
      this.call("get", "/api/workspaces/{id}", { path: { id: String(id) }, ...opts }),
    update: (
      id: ID,
      body: Body<"/api/workspaces/{id}", "patch">,
      opts?: Rest<"/api/workspaces/{id}", "patch">,
    ) => this.call("patch", "/api/workspaces/{id}", { path: { id: String(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/workspaces/{id}", "delete">) =>
      this.call("delete", "/api/workspaces/{id}", { path: { id: String(id) }, ...opts }),
  };

  /** Members of a workspace. */
  readonly members = {
    list: (workspaceId: ID, opts?: Rest<"/api/workspaces/{id}/members", "get">) =>
      this.call("get", "/api/workspaces/{id}/members", { path: { id: String(workspaceId) }, ...opts }),
    add: (
      workspaceId: ID,
      body: Body<"/api/workspaces/{id}/members", "post">,
      opts?: Rest<"/api/workspaces/{id}/members", "post">,
    ) =>
      this.call("post", "/api/workspaces/{id}/members", { path: { id: String(workspaceId) }, body, ...opts }),
    update: (
      workspaceId: ID,
      userId: ID,
      body: Body<"/api/workspaces/{id}/members/{user_id}", "patch">,
      opts?: Rest<"/api/workspaces/{id}/members/{user_id}", "patch">,
    ) =>
      this.call("patch", "/api/workspaces/{id}/members/{user_id}", {
        path: { id: String(workspaceId), user_id: String(userId) },
        body,
        ...opts,
      }),
    remove: (workspaceId: ID, userId: ID, opts?: Rest<"/api/workspaces/{id}/members/{user_id}", "delete">) =>
      this.call("delete", "/api/workspaces/{id}/members/{user_id}", {
        path: { id: String(workspaceId), user_id: String(userId) },
        ...opts,
      }),
  };

  /** The enabled models bots can use. */
  readonly models = {
    list: (opts?: Rest<"/api/models", "get">) => this.call("get", "/api/models", opts),
  };

  /** Bots of the caller's workspaces: drafts, published versions, end users' variables. */
  readonly bots = {
    list: (query: Query<"/api/bots", "get">, opts?: Rest<"/api/bots", "get">) =>
      this.call("get", "/api/bots", { query, ...opts }),
    /** Creates a bot in `workspace_id` from a whole configuration. */
    create: (body: Body<"/api/bots", "post">, opts?: Rest<"/api/bots", "post">) =>
      this.call("post", "/api/bots", { body, ...opts }),
    /** The bot with its draft configuration (`config`). */
    get: (id: ID, opts?: Rest<"/api/bots/{id}", "get">) =>
      this.call("get", "/api/bots/{id}", { path: { id: String(id) }, ...opts }),
    /** Replaces the whole draft: absent fields take their defaults. */
    update: (id: ID, body: Body<"/api/bots/{id}", "put">, opts?: Rest<"/api/bots/{id}", "put">) =>
      this.call("put", "/api/bots/{id}", { path: { id: String(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/bots/{id}", "delete">) =>
      this.call("delete", "/api/bots/{id}", { path: { id: String(id) }, ...opts }),
    /** Publishes the draft as the next version (connectors default to ["1024"]). */
    publish: (
      id: ID,
      body: Body<"/api/bots/{id}/publish", "post"> = {},
      opts?: Rest<"/api/bots/{id}/publish", "post">,
    ) => this.call("post", "/api/bots/{id}/publish", { path: { id: String(id) }, body, ...opts }),
    versions: (id: ID, opts?: Rest<"/api/bots/{id}/versions", "get">) =>
      this.call("get", "/api/bots/{id}/versions", { path: { id: String(id) }, ...opts }),
    version: (id: ID, version: number, opts?: Rest<"/api/bots/{id}/versions/{version}", "get">) =>
      this.call("get", "/api/bots/{id}/versions/{version}", { path: { id: String(id), version }, ...opts }),
    /** An end user's variable values. */
    variables: {
      get: (
        id: ID,
        query: Query<"/api/bots/{id}/variables", "get">,
        opts?: Rest<"/api/bots/{id}/variables", "get">,
      ) => this.call("get", "/api/bots/{id}/variables", { path: { id: String(id) }, query, ...opts }),
      set: (
        id: ID,
        body: Body<"/api/bots/{id}/variables", "put">,
        opts?: Rest<"/api/bots/{id}/variables", "put">,
      ) => this.call("put", "/api/bots/{id}/variables", { path: { id: String(id) }, body, ...opts }),
      reset: (
        id: ID,
        query: Query<"/api/bots/{id}/variables", "delete">,
        opts?: Rest<"/api/bots/{id}/variables", "delete">,
      ) => this.call("delete", "/api/bots/{id}/variables", { path: { id: String(id) }, query, ...opts }),
    },
  };

  /** Workflows of the caller's workspaces: drafts, published versions, test runs. */
  readonly workflows = {
    list: (query: Query<"/api/workflows", "get">, opts?: Rest<"/api/workflows", "get">) =>
      this.call("get", "/api/workflows", { query, ...opts }),
    /** Creates a workflow in `workspace_id`; the definition is validated first. */
    create: (body: Body<"/api/workflows", "post">, opts?: Rest<"/api/workflows", "post">) =>
      this.call("post", "/api/workflows", { body, ...opts }),
    /** Every problem of a definition, without saving it. */
    validate: (body: Body<"/api/workflows/validate", "post">, opts?: Rest<"/api/workflows/validate", "post">) =>
      this.call("post", "/api/workflows/validate", { body, ...opts }),
    /** The workflow with its draft (`definition`). */
    get: (id: ID, opts?: Rest<"/api/workflows/{id}", "get">) =>
      this.call("get", "/api/workflows/{id}", { path: { id: String(id) }, ...opts }),
    /** Changes the fields present of the draft. */
    update: (id: ID, body: Body<"/api/workflows/{id}", "patch">, opts?: Rest<"/api/workflows/{id}", "patch">) =>
      this.call("patch", "/api/workflows/{id}", { path: { id: String(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/workflows/{id}", "delete">) =>
      this.call("delete", "/api/workflows/{id}", { path: { id: String(id) }, ...opts }),
    /** Runs the saved draft; a failed run is still an answer, with `status: fail`. */
    testRun: (
      id: ID,
      body: Body<"/api/workflows/{id}/test_run", "post"> = {},
      opts?: Rest<"/api/workflows/{id}/test_run", "post">,
    ) => this.call("post", "/api/workflows/{id}/test_run", { path: { id: String(id) }, body, ...opts }),
    /** Stores the draft as the next version, the one /v1/workflow/run runs. */
    publish: (
      id: ID,
      body: Body<"/api/workflows/{id}/publish", "post"> = {},
      opts?: Rest<"/api/workflows/{id}/publish", "post">,
    ) => this.call("post", "/api/workflows/{id}/publish", { path: { id: String(id) }, body, ...opts }),
    versions: (id: ID, opts?: Rest<"/api/workflows/{id}/versions", "get">) =>
      this.call("get", "/api/workflows/{id}/versions", { path: { id: String(id) }, ...opts }),
    version: (id: ID, version: number, opts?: Rest<"/api/workflows/{id}/versions/{version}", "get">) =>
      this.call("get", "/api/workflows/{id}/versions/{version}", { path: { id: String(id), version }, ...opts }),
    /** The node types, their config schemas, the engine's limits and the DSL's JSON Schema. */
    nodeTypes: (opts?: Rest<"/api/workflow-nodes", "get">) => this.call("get", "/api/workflow-nodes", opts),
  };

  /** The admin API; the caller must be a platform administrator. */
  readonly admin = {
    users: {
      list: (query?: Query<"/api/admin/users", "get">, opts?: Rest<"/api/admin/users", "get">) =>
        this.call("get", "/api/admin/users", { query, ...opts }),
      /** Creates the user and their personal workspace. */
      create: (body: Body<"/api/admin/users", "post">, opts?: Rest<"/api/admin/users", "post">) =>
        this.call("post", "/api/admin/users", { body, ...opts }),
      get: (id: ID, opts?: Rest<"/api/admin/users/{id}", "get">) =>
        this.call("get", "/api/admin/users/{id}", { path: { id: String(id) }, ...opts }),
      update: (
        id: ID,
        body: Body<"/api/admin/users/{id}", "patch">,
        opts?: Rest<"/api/admin/users/{id}", "patch">,
      ) => this.call("patch", "/api/admin/users/{id}", { path: { id: String(id) }, body, ...opts }),
    },
    workspaces: {
      list: (
        query?: Query<"/api/admin/workspaces", "get">,
        opts?: Rest<"/api/admin/workspaces", "get">,
      ) => this.call("get", "/api/admin/workspaces", { query, ...opts }),
    },
    models: {
      list: (opts?: Rest<"/api/admin/models", "get">) => this.call("get", "/api/admin/models", opts),
      create: (body: Body<"/api/admin/models", "post">, opts?: Rest<"/api/admin/models", "post">) =>
        this.call("post", "/api/admin/models", { body, ...opts }),
      get: (id: string, opts?: Rest<"/api/admin/models/{id}", "get">) =>
        this.call("get", "/api/admin/models/{id}", { path: { id }, ...opts }),
      update: (
        id: string,
        body: Body<"/api/admin/models/{id}", "patch">,
        opts?: Rest<"/api/admin/models/{id}", "patch">,
      ) => this.call("patch", "/api/admin/models/{id}", { path: { id }, body, ...opts }),
      remove: (id: string, opts?: Rest<"/api/admin/models/{id}", "delete">) =>
        this.call("delete", "/api/admin/models/{id}", { path: { id }, ...opts }),
      /** One short request to the model; a failing model is `ok: false`, not an error. */
      test: (id: string, opts?: Rest<"/api/admin/models/{id}/test", "post">) =>
        this.call("post", "/api/admin/models/{id}/test", { path: { id }, ...opts }),
    },
  };
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

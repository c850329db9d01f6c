// The admin API (/api/admin): users, workspaces, models, and every
// workspace's channels, plugins and table rows. The caller must be a
// platform administrator; changes are audited.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";

type Tool = "/api/admin/plugins/{id}/tools/{tool}";
type Rows = "/api/admin/tables/{id}/rows";
type Row = "/api/admin/tables/{id}/rows/{row_id}";
type Channel = "/api/admin/channels/{channel_id}";

function users(c: Caller) {
  return {
    list: (query?: Query<"/api/admin/users", "get">, opts?: Rest<"/api/admin/users", "get">) =>
      c.call("get", "/api/admin/users", { query, ...opts }),
    /** Creates the user and their personal workspace. */
    create: (body: Body<"/api/admin/users", "post">, opts?: Rest<"/api/admin/users", "post">) =>
      c.call("post", "/api/admin/users", { body, ...opts }),
    get: (id: ID, opts?: Rest<"/api/admin/users/{id}", "get">) =>
      c.call("get", "/api/admin/users/{id}", { path: { id: s(id) }, ...opts }),
    update: (id: ID, body: Body<"/api/admin/users/{id}", "patch">, opts?: Rest<"/api/admin/users/{id}", "patch">) =>
      c.call("patch", "/api/admin/users/{id}", { path: { id: s(id) }, body, ...opts }),
  };
}

function models(c: Caller) {
  return {
    list: (opts?: Rest<"/api/admin/models", "get">) => c.call("get", "/api/admin/models", opts),
    create: (body: Body<"/api/admin/models", "post">, opts?: Rest<"/api/admin/models", "post">) =>
      c.call("post", "/api/admin/models", { body, ...opts }),
    get: (id: string, opts?: Rest<"/api/admin/models/{id}", "get">) =>
      c.call("get", "/api/admin/models/{id}", { path: { id }, ...opts }),
    update: (
      id: string,
      body: Body<"/api/admin/models/{id}", "patch">,
      opts?: Rest<"/api/admin/models/{id}", "patch">,
    ) => c.call("patch", "/api/admin/models/{id}", { path: { id }, body, ...opts }),
    remove: (id: string, opts?: Rest<"/api/admin/models/{id}", "delete">) =>
      c.call("delete", "/api/admin/models/{id}", { path: { id }, ...opts }),
    /** One short request to the model; a failing model is `ok: false`, not an error. */
    test: (id: string, opts?: Rest<"/api/admin/models/{id}/test", "post">) =>
      c.call("post", "/api/admin/models/{id}/test", { path: { id }, ...opts }),
  };
}

function plugins(c: Caller) {
  return {
    list: (query?: Query<"/api/admin/plugins", "get">, opts?: Rest<"/api/admin/plugins", "get">) =>
      c.call("get", "/api/admin/plugins", { query, ...opts }),
    get: (id: ID, opts?: Rest<"/api/admin/plugins/{id}", "get">) =>
      c.call("get", "/api/admin/plugins/{id}", { path: { id: s(id) }, ...opts }),
    /** Enables or disables the plugin for every bot and workflow. */
    setEnabled: (
      id: ID,
      body: Body<"/api/admin/plugins/{id}", "patch">,
      opts?: Rest<"/api/admin/plugins/{id}", "patch">,
    ) => c.call("patch", "/api/admin/plugins/{id}", { path: { id: s(id) }, body, ...opts }),
    setToolEnabled: (id: ID, tool: string, body: Body<Tool, "patch">, opts?: Rest<Tool, "patch">) =>
      c.call("patch", "/api/admin/plugins/{id}/tools/{tool}", { path: { id: s(id), tool }, body, ...opts }),
    /** Deletes any workspace's plugin. */
    remove: (id: ID, opts?: Rest<"/api/admin/plugins/{id}", "delete">) =>
      c.call("delete", "/api/admin/plugins/{id}", { path: { id: s(id) }, ...opts }),
  };
}

function tables(c: Caller) {
  return {
    list: (query?: Query<"/api/admin/tables", "get">, opts?: Rest<"/api/admin/tables", "get">) =>
      c.call("get", "/api/admin/tables", { query, ...opts }),
    rows: {
      list: (id: ID, query?: Query<Rows, "get">, opts?: Rest<Rows, "get">) =>
        c.call("get", "/api/admin/tables/{id}/rows", { path: { id: s(id) }, query, ...opts }),
      add: (id: ID, body: Body<Rows, "post">, opts?: Rest<Rows, "post">) =>
        c.call("post", "/api/admin/tables/{id}/rows", { path: { id: s(id) }, body, ...opts }),
      update: (id: ID, rowId: ID, body: Body<Row, "patch">, opts?: Rest<Row, "patch">) =>
        c.call("patch", "/api/admin/tables/{id}/rows/{row_id}", {
          path: { id: s(id), row_id: s(rowId) },
          body,
          ...opts,
        }),
      remove: (id: ID, rowId: ID, opts?: Rest<Row, "delete">) =>
        c.call("delete", "/api/admin/tables/{id}/rows/{row_id}", { path: { id: s(id), row_id: s(rowId) }, ...opts }),
    },
  };
}

function channels(c: Caller) {
  return {
    list: (query?: Query<"/api/admin/channels", "get">, opts?: Rest<"/api/admin/channels", "get">) =>
      c.call("get", "/api/admin/channels", { query, ...opts }),
    /** Enables or disables any workspace's channel. */
    update: (channelId: ID, body: Body<Channel, "patch">, opts?: Rest<Channel, "patch">) =>
      c.call("patch", "/api/admin/channels/{channel_id}", { path: { channel_id: s(channelId) }, body, ...opts }),
  };
}

export function admin(c: Caller) {
  return {
    users: users(c),
    workspaces: {
      list: (query?: Query<"/api/admin/workspaces", "get">, opts?: Rest<"/api/admin/workspaces", "get">) =>
        c.call("get", "/api/admin/workspaces", { query, ...opts }),
    },
    models: models(c),
    plugins: plugins(c),
    tables: tables(c),
    channels: channels(c),
  };
}

// The builder's other resources: plugins (OpenAPI and MCP tools), tables
// (rows, SQL, CSV) and apps with their end users' variable values.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";

type PluginVersion = "/api/plugins/{id}/versions/{version}";
type Debug = "/api/plugins/{id}/tools/{tool}/debug";
type Row = "/api/tables/{id}/rows/{row_id}";
type Values = "/api/apps/{id}/values";
type Reset = "/api/apps/{id}/values/reset";

export function plugins(c: Caller) {
  return {
    list: (query: Query<"/api/plugins", "get">, opts?: Rest<"/api/plugins", "get">) =>
      c.call("get", "/api/plugins", { query, ...opts }),
    create: (body: Body<"/api/plugins", "post">, opts?: Rest<"/api/plugins", "post">) =>
      c.call("post", "/api/plugins", { body, ...opts }),
    get: (id: ID, opts?: Rest<"/api/plugins/{id}", "get">) =>
      c.call("get", "/api/plugins/{id}", { path: { id: s(id) }, ...opts }),
    update: (id: ID, body: Body<"/api/plugins/{id}", "patch">, opts?: Rest<"/api/plugins/{id}", "patch">) =>
      c.call("patch", "/api/plugins/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/plugins/{id}", "delete">) =>
      c.call("delete", "/api/plugins/{id}", { path: { id: s(id) }, ...opts }),
    publish: (id: ID, opts?: Rest<"/api/plugins/{id}/publish", "post">) =>
      c.call("post", "/api/plugins/{id}/publish", { path: { id: s(id) }, ...opts }),
    /** Reads the tools again from the plugin's spec or MCP server. */
    refresh: (id: ID, opts?: Rest<"/api/plugins/{id}/refresh", "post">) =>
      c.call("post", "/api/plugins/{id}/refresh", { path: { id: s(id) }, ...opts }),
    versions: (id: ID, opts?: Rest<"/api/plugins/{id}/versions", "get">) =>
      c.call("get", "/api/plugins/{id}/versions", { path: { id: s(id) }, ...opts }),
    version: (id: ID, version: number, opts?: Rest<PluginVersion, "get">) =>
      c.call("get", "/api/plugins/{id}/versions/{version}", { path: { id: s(id), version }, ...opts }),
    /** Calls one tool of the draft with these arguments. */
    debug: (id: ID, tool: string, body: Body<Debug, "post">, opts?: Rest<Debug, "post">) =>
      c.call("post", "/api/plugins/{id}/tools/{tool}/debug", { path: { id: s(id), tool }, body, ...opts }),
  };
}

export function tables(c: Caller) {
  return {
    list: (query: Query<"/api/tables", "get">, opts?: Rest<"/api/tables", "get">) =>
      c.call("get", "/api/tables", { query, ...opts }),
    create: (body: Body<"/api/tables", "post">, opts?: Rest<"/api/tables", "post">) =>
      c.call("post", "/api/tables", { body, ...opts }),
    get: (id: ID, opts?: Rest<"/api/tables/{id}", "get">) =>
      c.call("get", "/api/tables/{id}", { path: { id: s(id) }, ...opts }),
    update: (id: ID, body: Body<"/api/tables/{id}", "patch">, opts?: Rest<"/api/tables/{id}", "patch">) =>
      c.call("patch", "/api/tables/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/tables/{id}", "delete">) =>
      c.call("delete", "/api/tables/{id}", { path: { id: s(id) }, ...opts }),
    rows: {
      list: (id: ID, query?: Query<"/api/tables/{id}/rows", "get">, opts?: Rest<"/api/tables/{id}/rows", "get">) =>
        c.call("get", "/api/tables/{id}/rows", { path: { id: s(id) }, query, ...opts }),
      add: (id: ID, body: Body<"/api/tables/{id}/rows", "post">, opts?: Rest<"/api/tables/{id}/rows", "post">) =>
        c.call("post", "/api/tables/{id}/rows", { path: { id: s(id) }, body, ...opts }),
      update: (id: ID, rowId: ID, body: Body<Row, "patch">, opts?: Rest<Row, "patch">) =>
        c.call("patch", "/api/tables/{id}/rows/{row_id}", { path: { id: s(id), row_id: s(rowId) }, body, ...opts }),
      remove: (id: ID, rowId: ID, opts?: Rest<Row, "delete">) =>
        c.call("delete", "/api/tables/{id}/rows/{row_id}", { path: { id: s(id), row_id: s(rowId) }, ...opts }),
    },
    /** Runs one SQL statement on the table. */
    sql: (id: ID, body: Body<"/api/tables/{id}/sql", "post">, opts?: Rest<"/api/tables/{id}/sql", "post">) =>
      c.call("post", "/api/tables/{id}/sql", { path: { id: s(id) }, body, ...opts }),
    /** The rows as CSV text. */
    exportCSV: (
      id: ID,
      query?: Query<"/api/tables/{id}/export", "get">,
      opts?: Rest<"/api/tables/{id}/export", "get">,
    ) => c.callText("get", "/api/tables/{id}/export", { path: { id: s(id) }, query, ...opts }),
    /** Adds the rows of a CSV text (a header line naming the fields first). */
    importCSV: (
      id: ID,
      csv: string,
      query?: Query<"/api/tables/{id}/import", "post">,
      opts?: Rest<"/api/tables/{id}/import", "post">,
    ) =>
      c.call("post", "/api/tables/{id}/import", {
        path: { id: s(id) },
        query,
        text: { body: csv, contentType: "text/csv" },
        ...opts,
      }),
  };
}

export function apps(c: Caller) {
  return {
    list: (query: Query<"/api/apps", "get">, opts?: Rest<"/api/apps", "get">) =>
      c.call("get", "/api/apps", { query, ...opts }),
    create: (body: Body<"/api/apps", "post">, opts?: Rest<"/api/apps", "post">) =>
      c.call("post", "/api/apps", { body, ...opts }),
    get: (id: ID, opts?: Rest<"/api/apps/{id}", "get">) =>
      c.call("get", "/api/apps/{id}", { path: { id: s(id) }, ...opts }),
    update: (id: ID, body: Body<"/api/apps/{id}", "put">, opts?: Rest<"/api/apps/{id}", "put">) =>
      c.call("put", "/api/apps/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/apps/{id}", "delete">) =>
      c.call("delete", "/api/apps/{id}", { path: { id: s(id) }, ...opts }),
    /** An end user's values of the app's variables (runs with app_id and ext.user_id store them). */
    values: {
      /** Every variable with the user's value, else its default (`is_default: true`). */
      get: (id: ID, query: Query<Values, "get">, opts?: Rest<Values, "get">) =>
        c.call("get", "/api/apps/{id}/values", { path: { id: s(id) }, query, ...opts }),
      /** Back to the defaults: the variables in `names`, or all of them. */
      reset: (id: ID, body: Body<Reset, "post">, opts?: Rest<Reset, "post">) =>
        c.call("post", "/api/apps/{id}/values/reset", { path: { id: s(id) }, body, ...opts }),
    },
  };
}

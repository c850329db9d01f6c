// Workflows of the caller's workspaces: drafts, published versions, test
// runs, the runs list, cancellation, and imports of Coze Studio canvases.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, FormFields, Query } from "../ops.js";

type Cancel = "/api/workflows/{id}/runs/{execute_id}/cancel";
type Import = "/api/workflows/import";

/** The form fields of a file import besides the file, typed as the JSON import types them. */
export type ImportFileFields = Pick<
  Body<Import, "post">,
  Exclude<keyof FormFields<Import, "post">, "file"> & keyof Body<Import, "post">
>;

/** The multipart body of a file import: the file, then each field as text (mappings as JSON). */
function importForm(file: Blob, fileName: string, fields: ImportFileFields): FormData {
  const form = new FormData();
  form.append("file", file, fileName);
  for (const [name, v] of Object.entries(fields)) {
    if (v !== undefined && v !== null) form.append(name, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return form;
}

export function workflows(c: Caller) {
  return {
    list: (query: Query<"/api/workflows", "get">, opts?: Rest<"/api/workflows", "get">) =>
      c.call("get", "/api/workflows", { query, ...opts }),
    /** Creates a workflow in `workspace_id`; the definition is validated first. */
    create: (body: Body<"/api/workflows", "post">, opts?: Rest<"/api/workflows", "post">) =>
      c.call("post", "/api/workflows", { body, ...opts }),
    /** Every problem of a definition, without saving it. */
    validate: (body: Body<"/api/workflows/validate", "post">, opts?: Rest<"/api/workflows/validate", "post">) =>
      c.call("post", "/api/workflows/validate", { body, ...opts }),
    /** Converts a Coze Studio canvas into a new workflow; the answer lists what did not convert. */
    import: (body: Body<Import, "post">, opts?: Rest<Import, "post">) =>
      c.call("post", "/api/workflows/import", { body, ...opts }),
    /**
     * The same from a file exported by Coze Studio, sent as multipart/form-data:
     * a canvas .json, a .flow file, or a zip of several workflows.
     */
    importFile: (file: Blob, fileName: string, fields: ImportFileFields, opts?: Rest<Import, "post">) =>
      c.call("post", "/api/workflows/import", { form: importForm(file, fileName, fields), ...opts }),
    /** The workflow with its draft (`definition`). */
    get: (id: ID, opts?: Rest<"/api/workflows/{id}", "get">) =>
      c.call("get", "/api/workflows/{id}", { path: { id: s(id) }, ...opts }),
    /** Changes the fields present of the draft. */
    update: (id: ID, body: Body<"/api/workflows/{id}", "patch">, opts?: Rest<"/api/workflows/{id}", "patch">) =>
      c.call("patch", "/api/workflows/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/workflows/{id}", "delete">) =>
      c.call("delete", "/api/workflows/{id}", { path: { id: s(id) }, ...opts }),
    /** Runs the saved draft; a failed run is still an answer, with `status: fail`. */
    testRun: (
      id: ID,
      body: Body<"/api/workflows/{id}/test_run", "post"> = {},
      opts?: Rest<"/api/workflows/{id}/test_run", "post">,
    ) => c.call("post", "/api/workflows/{id}/test_run", { path: { id: s(id) }, body, ...opts }),
    /** Stores the draft as the next version, the one /v1/workflow/run runs. */
    publish: (
      id: ID,
      body: Body<"/api/workflows/{id}/publish", "post"> = {},
      opts?: Rest<"/api/workflows/{id}/publish", "post">,
    ) => c.call("post", "/api/workflows/{id}/publish", { path: { id: s(id) }, body, ...opts }),
    versions: (id: ID, opts?: Rest<"/api/workflows/{id}/versions", "get">) =>
      c.call("get", "/api/workflows/{id}/versions", { path: { id: s(id) }, ...opts }),
    version: (id: ID, version: number, opts?: Rest<"/api/workflows/{id}/versions/{version}", "get">) =>
      c.call("get", "/api/workflows/{id}/versions/{version}", { path: { id: s(id), version }, ...opts }),
    /** The workflow's runs, newest first, with filters and paging. */
    runs: (id: ID, query?: Query<"/api/workflows/{id}/runs", "get">, opts?: Rest<"/api/workflows/{id}/runs", "get">) =>
      c.call("get", "/api/workflows/{id}/runs", { path: { id: s(id) }, query, ...opts }),
    /** Cancels a running or interrupted run. */
    cancelRun: (id: ID, executeId: ID, opts?: Rest<Cancel, "post">) =>
      c.call("post", "/api/workflows/{id}/runs/{execute_id}/cancel", {
        path: { id: s(id), execute_id: s(executeId) },
        ...opts,
      }),
    /** The node types, their config schemas, the engine's limits and the DSL's JSON Schema. */
    nodeTypes: (opts?: Rest<"/api/workflow-nodes", "get">) => c.call("get", "/api/workflow-nodes", opts),
  };
}

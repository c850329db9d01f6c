// Knowledge bases for builders: documents, chunks, indexing progress and
// the retrieval test (/api/knowledge).
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";

type KB = "/api/knowledge/{id}";
type Docs = "/api/knowledge/{id}/documents";
type Doc = "/api/knowledge/{id}/documents/{document_id}";
type Refresh = "/api/knowledge/{id}/documents/{document_id}/refresh";
type Chunks = "/api/knowledge/{id}/documents/{document_id}/chunks";
type Chunk = "/api/knowledge/{id}/chunks/{chunk_id}";
type Progress = "/api/knowledge/{id}/progress";
type Search = "/api/knowledge/{id}/search";

export function knowledge(c: Caller) {
  return {
    list: (query: Query<"/api/knowledge", "get">, opts?: Rest<"/api/knowledge", "get">) =>
      c.call("get", "/api/knowledge", { query, ...opts }),
    create: (body: Body<"/api/knowledge", "post">, opts?: Rest<"/api/knowledge", "post">) =>
      c.call("post", "/api/knowledge", { body, ...opts }),
    get: (id: ID, opts?: Rest<KB, "get">) => c.call("get", "/api/knowledge/{id}", { path: { id: s(id) }, ...opts }),
    update: (id: ID, body: Body<KB, "patch">, opts?: Rest<KB, "patch">) =>
      c.call("patch", "/api/knowledge/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<KB, "delete">) =>
      c.call("delete", "/api/knowledge/{id}", { path: { id: s(id) }, ...opts }),
    /** Each document's status, percent and seconds left; ids comma-separated. */
    progress: (id: ID, query?: Query<Progress, "get">, opts?: Rest<Progress, "get">) =>
      c.call("get", "/api/knowledge/{id}/progress", { path: { id: s(id) }, query, ...opts }),
    /** Hit testing: the chunks a bot would recall, with scores. */
    search: (id: ID, body: Body<Search, "post">, opts?: Rest<Search, "post">) =>
      c.call("post", "/api/knowledge/{id}/search", { path: { id: s(id) }, body, ...opts }),
    documents: {
      list: (id: ID, query?: Query<Docs, "get">, opts?: Rest<Docs, "get">) =>
        c.call("get", "/api/knowledge/{id}/documents", { path: { id: s(id) }, query, ...opts }),
      /** Adds documents; they answer processing and are indexed by a worker. */
      add: (id: ID, body: Body<Docs, "post">, opts?: Rest<Docs, "post">) =>
        c.call("post", "/api/knowledge/{id}/documents", { path: { id: s(id) }, body, ...opts }),
      update: (id: ID, doc: ID, body: Body<Doc, "patch">, opts?: Rest<Doc, "patch">) =>
        c.call("patch", "/api/knowledge/{id}/documents/{document_id}", { path: { id: s(id), document_id: s(doc) }, body, ...opts }),
      remove: (id: ID, doc: ID, opts?: Rest<Doc, "delete">) =>
        c.call("delete", "/api/knowledge/{id}/documents/{document_id}", { path: { id: s(id), document_id: s(doc) }, ...opts }),
      /** Indexes the document again from its source. */
      refresh: (id: ID, doc: ID, opts?: Rest<Refresh, "post">) =>
        c.call("post", "/api/knowledge/{id}/documents/{document_id}/refresh", { path: { id: s(id), document_id: s(doc) }, ...opts }),
    },
    chunks: {
      list: (id: ID, doc: ID, query?: Query<Chunks, "get">, opts?: Rest<Chunks, "get">) =>
        c.call("get", "/api/knowledge/{id}/documents/{document_id}/chunks", { path: { id: s(id), document_id: s(doc) }, query, ...opts }),
      add: (id: ID, doc: ID, body: Body<Chunks, "post">, opts?: Rest<Chunks, "post">) =>
        c.call("post", "/api/knowledge/{id}/documents/{document_id}/chunks", { path: { id: s(id), document_id: s(doc) }, body, ...opts }),
      update: (id: ID, chunk: ID, body: Body<Chunk, "patch">, opts?: Rest<Chunk, "patch">) =>
        c.call("patch", "/api/knowledge/{id}/chunks/{chunk_id}", { path: { id: s(id), chunk_id: s(chunk) }, body, ...opts }),
      remove: (id: ID, chunk: ID, opts?: Rest<Chunk, "delete">) =>
        c.call("delete", "/api/knowledge/{id}/chunks/{chunk_id}", { path: { id: s(id), chunk_id: s(chunk) }, ...opts }),
    },
  };
}

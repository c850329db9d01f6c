// Knowledge bases for builders (/api/knowledge): bases, their documents and
// chunks, indexing progress and the retrieval test. Coze's own knowledge
// routes are client.coze.datasets.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";

type One = "/api/knowledge/{id}";
type Docs = "/api/knowledge/{id}/documents";
type Doc = "/api/knowledge/{id}/documents/{document_id}";
type Chunks = "/api/knowledge/{id}/documents/{document_id}/chunks";
type Chunk = "/api/knowledge/{id}/chunks/{chunk_id}";

function documents(c: Caller) {
  return {
    /** Adds documents (files, base64 content, web pages, text); they are indexed in the background. */
    add: (id: ID, body: Body<Docs, "post">, opts?: Rest<Docs, "post">) =>
      c.call("post", "/api/knowledge/{id}/documents", { path: { id: s(id) }, body, ...opts }),
    list: (id: ID, query?: Query<Docs, "get">, opts?: Rest<Docs, "get">) =>
      c.call("get", "/api/knowledge/{id}/documents", { path: { id: s(id) }, query, ...opts }),
    update: (id: ID, documentId: ID, body: Body<Doc, "patch">, opts?: Rest<Doc, "patch">) =>
      c.call("patch", "/api/knowledge/{id}/documents/{document_id}", {
        path: { id: s(id), document_id: s(documentId) },
        body,
        ...opts,
      }),
    remove: (id: ID, documentId: ID, opts?: Rest<Doc, "delete">) =>
      c.call("delete", "/api/knowledge/{id}/documents/{document_id}", {
        path: { id: s(id), document_id: s(documentId) },
        ...opts,
      }),
    /** Indexes a document again from its source (a web page is fetched again). */
    refresh: (id: ID, documentId: ID, opts?: Rest<`${Doc}/refresh`, "post">) =>
      c.call("post", "/api/knowledge/{id}/documents/{document_id}/refresh", {
        path: { id: s(id), document_id: s(documentId) },
        ...opts,
      }),
  };
}

function chunks(c: Caller) {
  return {
    list: (id: ID, documentId: ID, query?: Query<Chunks, "get">, opts?: Rest<Chunks, "get">) =>
      c.call("get", "/api/knowledge/{id}/documents/{document_id}/chunks", {
        path: { id: s(id), document_id: s(documentId) },
        query,
        ...opts,
      }),
    /** Appends a chunk written by hand to a ready document, embedded at once. */
    add: (id: ID, documentId: ID, body: Body<Chunks, "post">, opts?: Rest<Chunks, "post">) =>
      c.call("post", "/api/knowledge/{id}/documents/{document_id}/chunks", {
        path: { id: s(id), document_id: s(documentId) },
        body,
        ...opts,
      }),
    update: (id: ID, chunkId: ID, body: Body<Chunk, "patch">, opts?: Rest<Chunk, "patch">) =>
      c.call("patch", "/api/knowledge/{id}/chunks/{chunk_id}", { path: { id: s(id), chunk_id: s(chunkId) }, body, ...opts }),
    remove: (id: ID, chunkId: ID, opts?: Rest<Chunk, "delete">) =>
      c.call("delete", "/api/knowledge/{id}/chunks/{chunk_id}", { path: { id: s(id), chunk_id: s(chunkId) }, ...opts }),
  };
}

export function knowledge(c: Caller) {
  return {
    list: (query: Query<"/api/knowledge", "get">, opts?: Rest<"/api/knowledge", "get">) =>
      c.call("get", "/api/knowledge", { query, ...opts }),
    create: (body: Body<"/api/knowledge", "post">, opts?: Rest<"/api/knowledge", "post">) =>
      c.call("post", "/api/knowledge", { body, ...opts }),
    get: (id: ID, opts?: Rest<One, "get">) => c.call("get", "/api/knowledge/{id}", { path: { id: s(id) }, ...opts }),
    update: (id: ID, body: Body<One, "patch">, opts?: Rest<One, "patch">) =>
      c.call("patch", "/api/knowledge/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<One, "delete">) =>
      c.call("delete", "/api/knowledge/{id}", { path: { id: s(id) }, ...opts }),
    /** Indexing progress of the knowledge base's documents. */
    progress: (id: ID, query?: Query<"/api/knowledge/{id}/progress", "get">, opts?: Rest<"/api/knowledge/{id}/progress", "get">) =>
      c.call("get", "/api/knowledge/{id}/progress", { path: { id: s(id) }, query, ...opts }),
    /** The retrieval test (hit testing): what a query recalls with given settings. */
    search: (id: ID, body: Body<"/api/knowledge/{id}/search", "post">, opts?: Rest<"/api/knowledge/{id}/search", "post">) =>
      c.call("post", "/api/knowledge/{id}/search", { path: { id: s(id) }, body, ...opts }),
    documents: documents(c),
    chunks: chunks(c),
  };
}

// Coze's knowledge routes (@coze/api datasets, datasets.documents,
// datasets.images): datasets under /v1/datasets resolve to the envelope's
// `data`; the document routes under /open_api/knowledge/document put their
// fields beside `code`, so they resolve to the whole answer.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";

type One = "/v1/datasets/{dataset_id}";
type Process = "/v1/datasets/{dataset_id}/process";
type Images = "/v1/datasets/{dataset_id}/images";
type Image = "/v1/datasets/{dataset_id}/images/{document_id}";
type Doc = "/open_api/knowledge/document";

function documents(c: Caller) {
  return {
    /** The whole answer: `document_infos` beside `code`. Documents are indexed in the background. */
    create: (body: Body<`${Doc}/create`, "post">, opts?: Rest<`${Doc}/create`, "post">) =>
      c.callWhole("post", "/open_api/knowledge/document/create", { body, ...opts }),
    /** The whole answer: `total` and `document_infos` beside `code`. */
    list: (body: Body<`${Doc}/list`, "post">, opts?: Rest<`${Doc}/list`, "post">) =>
      c.callWhole("post", "/open_api/knowledge/document/list", { body, ...opts }),
    update: (body: Body<`${Doc}/update`, "post">, opts?: Rest<`${Doc}/update`, "post">) =>
      c.callWhole("post", "/open_api/knowledge/document/update", { body, ...opts }),
    remove: (body: Body<`${Doc}/delete`, "post">, opts?: Rest<`${Doc}/delete`, "post">) =>
      c.callWhole("post", "/open_api/knowledge/document/delete", { body, ...opts }),
  };
}

function images(c: Caller) {
  return {
    /** The images of image knowledge with their captions. */
    list: (datasetId: ID, query?: Query<Images, "get">, opts?: Rest<Images, "get">) =>
      c.call("get", "/v1/datasets/{dataset_id}/images", { path: { dataset_id: s(datasetId) }, query, ...opts }),
    /** Sets an image's caption, its searchable text ("" removes it). */
    update: (datasetId: ID, documentId: ID, body: Body<Image, "put">, opts?: Rest<Image, "put">) =>
      c.call("put", "/v1/datasets/{dataset_id}/images/{document_id}", {
        path: { dataset_id: s(datasetId), document_id: s(documentId) },
        body,
        ...opts,
      }),
  };
}

export function datasets(c: Caller) {
  return {
    create: (body: Body<"/v1/datasets", "post">, opts?: Rest<"/v1/datasets", "post">) =>
      c.call("post", "/v1/datasets", { body, ...opts }),
    list: (query: Query<"/v1/datasets", "get">, opts?: Rest<"/v1/datasets", "get">) =>
      c.call("get", "/v1/datasets", { query, ...opts }),
    update: (datasetId: ID, body: Body<One, "put">, opts?: Rest<One, "put">) =>
      c.call("put", "/v1/datasets/{dataset_id}", { path: { dataset_id: s(datasetId) }, body, ...opts }),
    remove: (datasetId: ID, opts?: Rest<One, "delete">) =>
      c.call("delete", "/v1/datasets/{dataset_id}", { path: { dataset_id: s(datasetId) }, ...opts }),
    /** Indexing progress of documents (`data.data`); poll until status 1 (ready) or 9 (failed). */
    process: (datasetId: ID, body: Body<Process, "post">, opts?: Rest<Process, "post">) =>
      c.call("post", "/v1/datasets/{dataset_id}/process", { path: { dataset_id: s(datasetId) }, body, ...opts }),
    documents: documents(c),
    images: images(c),
  };
}

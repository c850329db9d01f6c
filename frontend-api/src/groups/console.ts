// The console's own resources: personal access tokens, workspaces, members,
// the models builders may pick.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Data, Query } from "../ops.js";

/** A new personal access token: the answer of tokens.create, whose `token` is the secret. */
export type NewToken = Data<"/api/tokens", "post"> & { token: string };

export function tokens(c: Caller) {
  return {
    list: (opts?: Rest<"/api/tokens", "get">) => c.call("get", "/api/tokens", opts),
    /** The answer's `token` holds the secret, shown this once. */
    create: (body: Body<"/api/tokens", "post">, opts?: Rest<"/api/tokens", "post">) =>
      c.call("post", "/api/tokens", { body, ...opts }) as Promise<NewToken>,
    revoke: (id: ID, opts?: Rest<"/api/tokens/{id}", "delete">) =>
      c.call("delete", "/api/tokens/{id}", { path: { id: s(id) }, ...opts }),
  };
}

export function workspaces(c: Caller) {
  return {
    list: (query?: Query<"/api/workspaces", "get">, opts?: Rest<"/api/workspaces", "get">) =>
      c.call("get", "/api/workspaces", { query, ...opts }),
    create: (body: Body<"/api/workspaces", "post">, opts?: Rest<"/api/workspaces", "post">) =>
      c.call("post", "/api/workspaces", { body, ...opts }),
    get: (id: ID, opts?: Rest<"/api/workspaces/{id}", "get">) =>
      c.call("get", "/api/workspaces/{id}", { path: { id: s(id) }, ...opts }),
    update: (id: ID, body: Body<"/api/workspaces/{id}", "patch">, opts?: Rest<"/api/workspaces/{id}", "patch">) =>
      c.call("patch", "/api/workspaces/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/workspaces/{id}", "delete">) =>
      c.call("delete", "/api/workspaces/{id}", { path: { id: s(id) }, ...opts }),
  };
}

type MemberPath = "/api/workspaces/{id}/members/{user_id}";

export function members(c: Caller) {
  return {
    list: (workspaceId: ID, opts?: Rest<"/api/workspaces/{id}/members", "get">) =>
      c.call("get", "/api/workspaces/{id}/members", { path: { id: s(workspaceId) }, ...opts }),
    add: (
      workspaceId: ID,
      body: Body<"/api/workspaces/{id}/members", "post">,
      opts?: Rest<"/api/workspaces/{id}/members", "post">,
    ) => c.call("post", "/api/workspaces/{id}/members", { path: { id: s(workspaceId) }, body, ...opts }),
    update: (workspaceId: ID, userId: ID, body: Body<MemberPath, "patch">, opts?: Rest<MemberPath, "patch">) =>
      c.call("patch", "/api/workspaces/{id}/members/{user_id}", {
        path: { id: s(workspaceId), user_id: s(userId) },
        body,
        ...opts,
      }),
    remove: (workspaceId: ID, userId: ID, opts?: Rest<MemberPath, "delete">) =>
      c.call("delete", "/api/workspaces/{id}/members/{user_id}", {
        path: { id: s(workspaceId), user_id: s(userId) },
        ...opts,
      }),
  };
}

export function models(c: Caller) {
  return {
    list: (opts?: Rest<"/api/models", "get">) => c.call("get", "/api/models", opts),
  };
}

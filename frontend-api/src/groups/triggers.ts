// Triggers (/api/triggers): schedules and webhooks that run a published
// workflow on their own, schedules of a published bot, and the webhook
// call itself (no token: the trigger's secret authenticates it).
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";
import { webhookSignature } from "./webchat.js";

type One = "/api/triggers/{id}";
type Hook = "/v1/triggers/{id}/webhook";

export function triggers(c: Caller) {
  const path = (id: ID) => ({ id: s(id) });
  return {
    /** A page of a workspace's triggers (page_num, page_size), oldest first, and their total. */
    list: (query: Query<"/api/triggers", "get">, opts?: Rest<"/api/triggers", "get">) =>
      c.call("get", "/api/triggers", { query, ...opts }),
    /** Creates an active trigger; a webhook trigger's secret is in this answer only. */
    create: (body: Body<"/api/triggers", "post">, opts?: Rest<"/api/triggers", "post">) =>
      c.call("post", "/api/triggers", { body, ...opts }),
    get: (id: ID, opts?: Rest<One, "get">) => c.call("get", "/api/triggers/{id}", { path: path(id), ...opts }),
    /** Changes the fields given (schedule, time zone, inputs or prompt, target, missed); the others stay. */
    update: (id: ID, body: Body<One, "patch">, opts?: Rest<One, "patch">) =>
      c.call("patch", "/api/triggers/{id}", { path: path(id), body, ...opts }),
    remove: (id: ID, opts?: Rest<One, "delete">) => c.call("delete", "/api/triggers/{id}", { path: path(id), ...opts }),
    pause: (id: ID, opts?: Rest<"/api/triggers/{id}/pause", "post">) =>
      c.call("post", "/api/triggers/{id}/pause", { path: path(id), ...opts }),
    /** Fires again, a schedule from its next future tick. */
    resume: (id: ID, opts?: Rest<"/api/triggers/{id}/resume", "post">) =>
      c.call("post", "/api/triggers/{id}/resume", { path: path(id), ...opts }),
    /**
     * Calls a webhook trigger with inputs: signed with the secret (auth
     * hmac), or with the secret in X-Pergola-Secret when `header` is true.
     * `idempotencyKey` makes a repeat answer the first call's execute_id.
     */
    call: async (id: ID, secret: string, inputs: Body<Hook, "post">,
      o?: { header?: boolean; idempotencyKey?: string } & Rest<Hook, "post">) => {
      const { header, idempotencyKey, ...opts } = o ?? {};
      const raw = JSON.stringify(inputs ?? {});
      const auth: Record<string, string> = header
        ? { "X-Pergola-Secret": secret }
        : { "X-Pergola-Signature": await webhookSignature(secret, raw) };
      if (idempotencyKey) auth["Idempotency-Key"] = idempotencyKey;
      return c.call("post", "/v1/triggers/{id}/webhook", {
        path: path(id),
        body: inputs,
        text: { body: raw, contentType: "application/json" },
        auth: false,
        ...opts,
        headers: { ...auth, ...opts.headers },
      });
    },
  };
}

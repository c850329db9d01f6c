// What runs left behind: the span trees of chat turns and workflow runs,
// and usage by workspace, bot, model and day.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Query } from "../ops.js";

export function traces(c: Caller) {
  return {
    /**
     * The span tree of a chat turn (`id` is its chat_id) or a workflow run
     * (its execute_id), one item of `runs` per run and resumption. Traces
     * are written a moment after the run ends: until then this is a 404.
     */
    get: (id: ID, opts?: Rest<"/api/traces/{id}", "get">) =>
      c.call("get", "/api/traces/{id}", { path: { id: s(id) }, ...opts }),
  };
}

/** Usage by workspace, bot, model and day: tokens, chats, runs, errors, latency. */
export function usage(c: Caller) {
  return {
    get: (query?: Query<"/api/usage", "get">, opts?: Rest<"/api/usage", "get">) =>
      c.call("get", "/api/usage", { query, ...opts }),
  };
}

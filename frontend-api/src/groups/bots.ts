// Bots of the caller's workspaces: drafts, published versions, end users'
// variables, feedback, the builder's debug chat and the bot's channels.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";

type ChannelPath = "/api/bots/{id}/channels/{channel_id}";
type Deliveries = "/api/bots/{id}/channels/{channel_id}/deliveries";

export function bots(c: Caller) {
  return {
    list: (query: Query<"/api/bots", "get">, opts?: Rest<"/api/bots", "get">) =>
      c.call("get", "/api/bots", { query, ...opts }),
    /** Creates a bot in `workspace_id` from a whole configuration. */
    create: (body: Body<"/api/bots", "post">, opts?: Rest<"/api/bots", "post">) =>
      c.call("post", "/api/bots", { body, ...opts }),
    /** The bot with its draft configuration (`config`). */
    get: (id: ID, opts?: Rest<"/api/bots/{id}", "get">) =>
      c.call("get", "/api/bots/{id}", { path: { id: s(id) }, ...opts }),
    /** Replaces the whole draft: absent fields take their defaults. */
    update: (id: ID, body: Body<"/api/bots/{id}", "put">, opts?: Rest<"/api/bots/{id}", "put">) =>
      c.call("put", "/api/bots/{id}", { path: { id: s(id) }, body, ...opts }),
    remove: (id: ID, opts?: Rest<"/api/bots/{id}", "delete">) =>
      c.call("delete", "/api/bots/{id}", { path: { id: s(id) }, ...opts }),
    /** Publishes the draft as the next version (connectors default to ["1024"]). */
    publish: (
      id: ID,
      body: Body<"/api/bots/{id}/publish", "post"> = {},
      opts?: Rest<"/api/bots/{id}/publish", "post">,
    ) => c.call("post", "/api/bots/{id}/publish", { path: { id: s(id) }, body, ...opts }),
    versions: (id: ID, opts?: Rest<"/api/bots/{id}/versions", "get">) =>
      c.call("get", "/api/bots/{id}/versions", { path: { id: s(id) }, ...opts }),
    version: (id: ID, version: number, opts?: Rest<"/api/bots/{id}/versions/{version}", "get">) =>
      c.call("get", "/api/bots/{id}/versions/{version}", { path: { id: s(id), version }, ...opts }),
    /** End users' feedback on the bot's answers, with the messages. */
    feedback: (
      id: ID,
      query?: Query<"/api/bots/{id}/feedback", "get">,
      opts?: Rest<"/api/bots/{id}/feedback", "get">,
    ) => c.call("get", "/api/bots/{id}/feedback", { path: { id: s(id) }, query, ...opts }),
    /**
     * The builder's debug chat with the draft, streamed as /v3/chat streams
     * (send `stream: true`; events `conversation.message.delta`, ..., `done`).
     */
    debugChat: (id: ID, body: Body<"/api/bots/{id}/chat", "post">, opts?: Rest<"/api/bots/{id}/chat", "post">) =>
      c.callStream("post", "/api/bots/{id}/chat", { path: { id: s(id) }, body, ...opts }),
    /** An end user's variable values. */
    variables: {
      get: (id: ID, query: Query<"/api/bots/{id}/variables", "get">, opts?: Rest<"/api/bots/{id}/variables", "get">) =>
        c.call("get", "/api/bots/{id}/variables", { path: { id: s(id) }, query, ...opts }),
      set: (id: ID, body: Body<"/api/bots/{id}/variables", "put">, opts?: Rest<"/api/bots/{id}/variables", "put">) =>
        c.call("put", "/api/bots/{id}/variables", { path: { id: s(id) }, body, ...opts }),
      reset: (
        id: ID,
        query: Query<"/api/bots/{id}/variables", "delete">,
        opts?: Rest<"/api/bots/{id}/variables", "delete">,
      ) => c.call("delete", "/api/bots/{id}/variables", { path: { id: s(id) }, query, ...opts }),
    },
    /** The bot's channels (webhook, web, ...) and their deliveries. */
    channels: {
      list: (id: ID, opts?: Rest<"/api/bots/{id}/channels", "get">) =>
        c.call("get", "/api/bots/{id}/channels", { path: { id: s(id) }, ...opts }),
      create: (id: ID, body: Body<"/api/bots/{id}/channels", "post">, opts?: Rest<"/api/bots/{id}/channels", "post">) =>
        c.call("post", "/api/bots/{id}/channels", { path: { id: s(id) }, body, ...opts }),
      get: (id: ID, channelId: ID, opts?: Rest<ChannelPath, "get">) =>
        c.call("get", "/api/bots/{id}/channels/{channel_id}", {
          path: { id: s(id), channel_id: s(channelId) },
          ...opts,
        }),
      update: (id: ID, channelId: ID, body: Body<ChannelPath, "patch">, opts?: Rest<ChannelPath, "patch">) =>
        c.call("patch", "/api/bots/{id}/channels/{channel_id}", {
          path: { id: s(id), channel_id: s(channelId) },
          body,
          ...opts,
        }),
      remove: (id: ID, channelId: ID, opts?: Rest<ChannelPath, "delete">) =>
        c.call("delete", "/api/bots/{id}/channels/{channel_id}", {
          path: { id: s(id), channel_id: s(channelId) },
          ...opts,
        }),
      deliveries: (id: ID, channelId: ID, query?: Query<Deliveries, "get">, opts?: Rest<Deliveries, "get">) =>
        c.call("get", "/api/bots/{id}/channels/{channel_id}/deliveries", {
          path: { id: s(id), channel_id: s(channelId) },
          query,
          ...opts,
        }),
    },
  };
}

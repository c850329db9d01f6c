// The Coze-compatible API (/v1, /v3) as Coze's HTTP API answers it: each
// method resolves to the envelope's `data`, or to the whole answer where
// Coze puts fields beside `data` (message lists, workflow runs); streams
// yield Server-Sent Events in Coze's format. Failures are PergolaError with
// Coze's code and msg.
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";
import { datasets } from "./datasets.js";

type Feedback = "/v1/conversations/{conversation_id}/messages/{message_id}/feedback";
type History = "/v1/workflows/{workflow_id}/run_histories/{execute_id}";
type Submit = "/v3/chat/submit_tool_outputs";

function bots(c: Caller) {
  return {
    create: (body: Body<"/v1/bot/create", "post">, opts?: Rest<"/v1/bot/create", "post">) =>
      c.call("post", "/v1/bot/create", { body, ...opts }),
    update: (body: Body<"/v1/bot/update", "post">, opts?: Rest<"/v1/bot/update", "post">) =>
      c.call("post", "/v1/bot/update", { body, ...opts }),
    publish: (body: Body<"/v1/bot/publish", "post">, opts?: Rest<"/v1/bot/publish", "post">) =>
      c.call("post", "/v1/bot/publish", { body, ...opts }),
    /** The published bot (GET /v1/bot/get_online_info). */
    retrieve: (query: Query<"/v1/bot/get_online_info", "get">, opts?: Rest<"/v1/bot/get_online_info", "get">) =>
      c.call("get", "/v1/bot/get_online_info", { query, ...opts }),
    /** GET /v1/bots/{bot_id}: the bot, draft or published. */
    retrieveNew: (botId: ID, query?: Query<"/v1/bots/{bot_id}", "get">, opts?: Rest<"/v1/bots/{bot_id}", "get">) =>
      c.call("get", "/v1/bots/{bot_id}", { path: { bot_id: s(botId) }, query, ...opts }),
    /** GET /v1/space/published_bots_list. */
    list: (query: Query<"/v1/space/published_bots_list", "get">, opts?: Rest<"/v1/space/published_bots_list", "get">) =>
      c.call("get", "/v1/space/published_bots_list", { query, ...opts }),
    /** GET /v1/bots. */
    listNew: (query: Query<"/v1/bots", "get">, opts?: Rest<"/v1/bots", "get">) =>
      c.call("get", "/v1/bots", { query, ...opts }),
  };
}

function messages(c: Caller) {
  type L = "/v1/conversation/message/list";
  type M = "/v1/conversation/message/modify";
  return {
    create: (
      query: Query<"/v1/conversation/message/create", "post">,
      body: Body<"/v1/conversation/message/create", "post">,
      opts?: Rest<"/v1/conversation/message/create", "post">,
    ) => c.call("post", "/v1/conversation/message/create", { query, body, ...opts }),
    /** The whole answer: `data`, `first_id`, `last_id`, `has_more`. */
    list: (query: Query<L, "post">, body: Body<L, "post"> = {}, opts?: Rest<L, "post">) =>
      c.callWhole("post", "/v1/conversation/message/list", { query, body, ...opts }),
    retrieve: (
      query: Query<"/v1/conversation/message/retrieve", "get">,
      opts?: Rest<"/v1/conversation/message/retrieve", "get">,
    ) => c.call("get", "/v1/conversation/message/retrieve", { query, ...opts }),
    /** The whole answer: Coze puts the message in `message`. */
    update: (query: Query<M, "post">, body: Body<M, "post">, opts?: Rest<M, "post">) =>
      c.callWhole("post", "/v1/conversation/message/modify", { query, body, ...opts }),
    remove: (
      query: Query<"/v1/conversation/message/delete", "post">,
      opts?: Rest<"/v1/conversation/message/delete", "post">,
    ) => c.call("post", "/v1/conversation/message/delete", { query, ...opts }),
    feedback: {
      create: (conversationId: ID, messageId: ID, body: Body<Feedback, "post">, opts?: Rest<Feedback, "post">) =>
        c.call("post", "/v1/conversations/{conversation_id}/messages/{message_id}/feedback", {
          path: { conversation_id: s(conversationId), message_id: s(messageId) },
          body,
          ...opts,
        }),
      remove: (conversationId: ID, messageId: ID, opts?: Rest<Feedback, "delete">) =>
        c.call("delete", "/v1/conversations/{conversation_id}/messages/{message_id}/feedback", {
          path: { conversation_id: s(conversationId), message_id: s(messageId) },
          ...opts,
        }),
    },
  };
}

function conversations(c: Caller) {
  type One = "/v1/conversations/{conversation_id}";
  return {
    create: (body: Body<"/v1/conversation/create", "post">, opts?: Rest<"/v1/conversation/create", "post">) =>
      c.call("post", "/v1/conversation/create", { body, ...opts }),
    retrieve: (query: Query<"/v1/conversation/retrieve", "get">, opts?: Rest<"/v1/conversation/retrieve", "get">) =>
      c.call("get", "/v1/conversation/retrieve", { query, ...opts }),
    list: (query: Query<"/v1/conversations", "get">, opts?: Rest<"/v1/conversations", "get">) =>
      c.call("get", "/v1/conversations", { query, ...opts }),
    update: (conversationId: ID, body: Body<One, "put">, opts?: Rest<One, "put">) =>
      c.call("put", "/v1/conversations/{conversation_id}", {
        path: { conversation_id: s(conversationId) },
        body,
        ...opts,
      }),
    remove: (conversationId: ID, opts?: Rest<One, "delete">) =>
      c.call("delete", "/v1/conversations/{conversation_id}", {
        path: { conversation_id: s(conversationId) },
        ...opts,
      }),
    /** Starts a new section: earlier messages no longer reach the model. */
    clear: (conversationId: ID, opts?: Rest<"/v1/conversations/{conversation_id}/clear", "post">) =>
      c.call("post", "/v1/conversations/{conversation_id}/clear", {
        path: { conversation_id: s(conversationId) },
        ...opts,
      }),
    messages: messages(c),
  };
}

function chat(c: Caller) {
  return {
    /** Starts a chat without streaming (`stream: false`); poll retrieve until it completes. */
    create: (query: Query<"/v3/chat", "post">, body: Body<"/v3/chat", "post">, opts?: Rest<"/v3/chat", "post">) =>
      c.call("post", "/v3/chat", { query, body: { ...body, stream: false }, ...opts }),
    /** A streamed chat: `conversation.chat.created`, `conversation.message.delta`, ..., `done`. */
    stream: (query: Query<"/v3/chat", "post">, body: Body<"/v3/chat", "post">, opts?: Rest<"/v3/chat", "post">) =>
      c.callStream("post", "/v3/chat", { query, body: { ...body, stream: true }, ...opts }),
    retrieve: (query: Query<"/v3/chat/retrieve", "get">, opts?: Rest<"/v3/chat/retrieve", "get">) =>
      c.call("get", "/v3/chat/retrieve", { query, ...opts }),
    cancel: (body: Body<"/v3/chat/cancel", "post">, opts?: Rest<"/v3/chat/cancel", "post">) =>
      c.call("post", "/v3/chat/cancel", { body, ...opts }),
    /** The chat's messages (answer, tool calls, follow-ups). */
    messages: (query: Query<"/v3/chat/message/list", "get">, opts?: Rest<"/v3/chat/message/list", "get">) =>
      c.call("get", "/v3/chat/message/list", { query, ...opts }),
    /** Answers a chat's `requires_action` with the client tools' outputs, not streamed. */
    submitToolOutputs: (query: Query<Submit, "post">, body: Body<Submit, "post">, opts?: Rest<Submit, "post">) =>
      c.call("post", "/v3/chat/submit_tool_outputs", { query, body: { ...body, stream: false }, ...opts }),
    /** The same, streamed: the chat goes on as events. */
    submitToolOutputsStream: (query: Query<Submit, "post">, body: Body<Submit, "post">, opts?: Rest<Submit, "post">) =>
      c.callStream("post", "/v3/chat/submit_tool_outputs", { query, body: { ...body, stream: true }, ...opts }),
  };
}

function workflows(c: Caller) {
  return {
    /** The published workflows of a workspace (GET /v1/workflows). */
    list: (query: Query<"/v1/workflows", "get">, opts?: Rest<"/v1/workflows", "get">) =>
      c.call("get", "/v1/workflows", { query, ...opts }),
    runs: {
      /** The whole answer: `data` (the output as JSON text), `execute_id`, `usage`, `debug_url`. */
      create: (body: Body<"/v1/workflow/run", "post">, opts?: Rest<"/v1/workflow/run", "post">) =>
        c.callWhole("post", "/v1/workflow/run", { body, ...opts }),
      /** Events `Message`, `Interrupt`, `Error`, `Done`. */
      stream: (body: Body<"/v1/workflow/stream_run", "post">, opts?: Rest<"/v1/workflow/stream_run", "post">) =>
        c.callStream("post", "/v1/workflow/stream_run", { body, ...opts }),
      /** Resumes an interrupted run (a question node) with the answer, streamed. */
      resume: (body: Body<"/v1/workflow/stream_resume", "post">, opts?: Rest<"/v1/workflow/stream_resume", "post">) =>
        c.callStream("post", "/v1/workflow/stream_resume", { body, ...opts }),
      /** A run's history (for async runs, its status and output). */
      history: (workflowId: ID, executeId: ID, opts?: Rest<History, "get">) =>
        c.call("get", "/v1/workflows/{workflow_id}/run_histories/{execute_id}", {
          path: { workflow_id: s(workflowId), execute_id: s(executeId) },
          ...opts,
        }),
    },
    /** A chatflow turn in a conversation, streamed as /v3/chat streams. */
    chat: (body: Body<"/v1/workflows/chat", "post">, opts?: Rest<"/v1/workflows/chat", "post">) =>
      c.callStream("post", "/v1/workflows/chat", { body, ...opts }),
  };
}

function files(c: Caller) {
  type Upload = "/v1/files/upload";
  return {
    /** Uploads a file (the multipart part `file`); `workspace_id` picks the workspace. */
    upload: (file: Blob, fileName: string, query?: Query<Upload, "post">, opts?: Rest<Upload, "post">) => {
      const form = new FormData();
      form.append("file", file, fileName);
      return c.call("post", "/v1/files/upload", { query, form, ...opts });
    },
    retrieve: (query: Query<"/v1/files/retrieve", "get">, opts?: Rest<"/v1/files/retrieve", "get">) =>
      c.call("get", "/v1/files/retrieve", { query, ...opts }),
  };
}

export function coze(c: Caller) {
  return {
    files: files(c),
    bots: bots(c),
    conversations: conversations(c),
    chat: chat(c),
    workflows: workflows(c),
    datasets: datasets(c),
    variables: {
      retrieve: (query: Query<"/v1/variables", "get">, opts?: Rest<"/v1/variables", "get">) =>
        c.call("get", "/v1/variables", { query, ...opts }),
      update: (body: Body<"/v1/variables", "put">, opts?: Rest<"/v1/variables", "put">) =>
        c.call("put", "/v1/variables", { body, ...opts }),
    },
    users: { me: (opts?: Rest<"/v1/users/me", "get">) => c.call("get", "/v1/users/me", opts) },
    workspaces: {
      list: (query?: Query<"/v1/workspaces", "get">, opts?: Rest<"/v1/workspaces", "get">) =>
        c.call("get", "/v1/workspaces", { query, ...opts }),
    },
  };
}

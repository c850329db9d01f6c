// The OpenAI-compatible routes, where a published bot is the model: plain
// JSON answers as OpenAI's API gives them, OpenAIError on failure, and
// streams of `data:` chunks ending with `[DONE]`.
import { type Caller, type Rest } from "../caller.js";
import type { Body } from "../ops.js";

type Completions = "/v1/chat/completions";

export function openai(c: Caller) {
  return {
    models: {
      /** The bots the token may use, as models (`id` is the bot id). */
      list: (opts?: Rest<"/v1/models", "get">) => c.callOpenAI("get", "/v1/models", opts),
      retrieve: (model: string, opts?: Rest<"/v1/models/{model}", "get">) =>
        c.callOpenAI("get", "/v1/models/{model}", { path: { model }, ...opts }),
    },
    chat: {
      completions: {
        create: (body: Body<Completions, "post">, opts?: Rest<Completions, "post">) =>
          c.callOpenAI("post", "/v1/chat/completions", { body: { ...body, stream: false }, ...opts }),
        /** Yields `chat.completion.chunk` events; the last event's data is `[DONE]`. */
        stream: (body: Body<Completions, "post">, opts?: Rest<Completions, "post">) =>
          c.callStream("post", "/v1/chat/completions", { body: { ...body, stream: true }, ...opts }, "openai"),
      },
    },
    responses: {
      create: (body: Body<"/v1/responses", "post">, opts?: Rest<"/v1/responses", "post">) =>
        c.callOpenAI("post", "/v1/responses", { body: { ...body, stream: false }, ...opts }),
      /** Yields the Responses API's events (`response.created`, `response.output_text.delta`, ...). */
      stream: (body: Body<"/v1/responses", "post">, opts?: Rest<"/v1/responses", "post">) =>
        c.callStream("post", "/v1/responses", { body: { ...body, stream: true }, ...opts }, "openai"),
      retrieve: (id: string, opts?: Rest<"/v1/responses/{id}", "get">) =>
        c.callOpenAI("get", "/v1/responses/{id}", { path: { id }, ...opts }),
    },
    embeddings: {
      /** Embeds texts with a platform model of kind embedding (`model` is its id). */
      create: (body: Body<"/v1/embeddings", "post">, opts?: Rest<"/v1/embeddings", "post">) =>
        c.callOpenAI("post", "/v1/embeddings", { body, ...opts }),
    },
  };
}

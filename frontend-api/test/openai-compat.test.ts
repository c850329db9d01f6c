// OpenAI's official JS SDK (`openai`, pinned in package.json), UNCHANGED,
// against Pergola's OpenAI-compatible POST /v1/chat/completions: the API
// key is a Pergola PAT, the base URL Pergola's /v1 and the model a
// published bot's id. The bot's model is `pergola fakellm`
// (PERGOLA_FAKE_LLM_URL): "echo: <last user text>", "#call <tool> <json>"
// calls an offered tool, a tool result is answered "tool said: <it>".
// Every test makes its own bot.
//
// The client is built with maxRetries: 0 so that a failure shows at once
// (the SDK retries 408, 409, 429 and 5xx answers twice by default).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI, {
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
} from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";

import { env, unique } from "./env.js";
import { collect, Fixture } from "./fixtures.js";

function openai(apiKey = env.token): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${env.baseURL}/v1`, maxRetries: 0, timeout: 20_000 });
}

const weatherTool = {
  name: "get_weather",
  description: "The current weather of a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe("openai SDK against /v1/chat/completions", () => {
  const fx = new Fixture();
  const client = openai();

  before(() => fx.setup());
  after(() => fx.cleanup());

  it("chat.completions.create, not streamed: a chat.completion with the echo", async () => {
    const bot = await fx.bot();
    const text = `hi ${unique("oa")}`;
    const res = await client.chat.completions.create({
      model: bot.id,
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: text },
      ],
    });
    assert.equal(res.object, "chat.completion");
    assert.match(res.id, /^chatcmpl-[0-9]+$/);
    assert.equal(res.model, bot.id, "the model is echoed as sent");
    assert.equal(typeof res.created, "number");
    assert.equal(res.choices.length, 1);
    const [choice] = res.choices;
    assert.equal(choice?.index, 0);
    assert.equal(choice?.finish_reason, "stop");
    assert.equal(choice?.message.role, "assistant");
    assert.equal(choice?.message.content, `echo: ${text}`);
    assert.equal(choice?.message.tool_calls, undefined);
    assert.ok(res.usage, "usage is there");
    assert.ok(res.usage.prompt_tokens > 0 && res.usage.completion_tokens > 0);
    assert.equal(res.usage.total_tokens, res.usage.prompt_tokens + res.usage.completion_tokens);

    // `bot-<id>` works too and is echoed as sent; content may be an array of text parts.
    const prefixed = await client.chat.completions.create({
      model: `bot-${bot.id}`,
      messages: [{ role: "user", content: [{ type: "text", text: "in " }, { type: "text", text: "parts" }] }],
    });
    assert.equal(prefixed.model, `bot-${bot.id}`);
    assert.equal(prefixed.choices[0]?.message.content, "echo: in parts", "text parts are joined as they are");
  });

  it("chat.completions.create, streamed: chunks concatenate, finish_reason stop, usage last with include_usage", async () => {
    const bot = await fx.bot();
    const text = `streamed ${unique("oa")}`;
    const stream = await client.chat.completions.create({
      model: bot.id,
      messages: [{ role: "user", content: text }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = await collect(stream);
    assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
    const id = chunks[0]?.id;
    assert.match(id ?? "", /^chatcmpl-[0-9]+$/);
    for (const c of chunks) {
      assert.equal(c.object, "chat.completion.chunk");
      assert.equal(c.id, id, "every chunk has the completion's id");
      assert.equal(c.model, bot.id);
    }
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    assert.equal(content, `echo: ${text}`);
    const finishing = chunks.filter((c) => c.choices[0]?.finish_reason);
    assert.equal(finishing.length, 1, "one chunk finishes the choice");
    assert.equal(finishing[0]?.choices[0]?.finish_reason, "stop");
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, [], "the usage chunk has no choices");
    assert.ok(last.usage);
    assert.equal(last.usage.total_tokens, last.usage.prompt_tokens + last.usage.completion_tokens);
    assert.ok(last.usage.total_tokens > 0);
    assert.equal(chunks.filter((c) => c.usage).length, 1, "usage comes once");

    // Without include_usage there is no usage chunk.
    const plain = await collect(
      await client.chat.completions.create({ model: bot.id, messages: [{ role: "user", content: "x" }], stream: true }),
    );
    assert.ok(plain.every((c) => !c.usage && c.choices.length === 1));
    assert.equal(plain.at(-1)?.choices[0]?.finish_reason, "stop");

    // The SDK's stream helper assembles the same completion.
    const helper = client.chat.completions.stream({ model: bot.id, messages: [{ role: "user", content: text }] });
    const final = await helper.finalChatCompletion();
    assert.equal(final.choices[0]?.message.content, `echo: ${text}`);
    assert.equal(final.choices[0]?.finish_reason, "stop");
  });

  it("client tool round: finish_reason tool_calls, then the tool message continues to 'tool said: ...'", async () => {
    const bot = await fx.bot({ client_tools: [weatherTool] });
    const question: ChatCompletionMessageParam = { role: "user", content: '#call get_weather {"city":"Shenzhen"}' };

    const first = await client.chat.completions.create({ model: bot.id, messages: [question] });
    const [choice] = first.choices;
    assert.equal(choice?.finish_reason, "tool_calls");
    const calls = choice?.message.tool_calls ?? [];
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.equal(call.type, "function");
    assert.ok(call.id.length > 0);
    assert.ok(call.type === "function" && call.function.name === "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { city: "Shenzhen" });

    const output = `21°C ${unique("sunny")}`;
    const messages: ChatCompletionMessageParam[] = [
      question,
      { role: "assistant", content: choice?.message.content ?? null, tool_calls: calls },
      { role: "tool", tool_call_id: call.id, content: output },
    ];
    const second = await client.chat.completions.create({ model: bot.id, messages });
    assert.equal(second.choices[0]?.finish_reason, "stop");
    assert.equal(second.choices[0]?.message.content, `tool said: ${output}`);

    // Streamed: the finishing chunk carries the call; the helper assembles it.
    const streamed = client.chat.completions.stream({ model: bot.id, messages: [question] });
    const chunks: ChatCompletionChunk[] = [];
    streamed.on("chunk", (c) => chunks.push(c));
    const assembled = await streamed.finalChatCompletion();
    assert.equal(assembled.choices[0]?.finish_reason, "tool_calls");
    const sCall = assembled.choices[0]?.message.tool_calls?.[0];
    assert.ok(sCall && sCall.type === "function");
    assert.equal(sCall.function.name, "get_weather");
    assert.deepEqual(JSON.parse(sCall.function.arguments), { city: "Shenzhen" });
    assert.equal(chunks.filter((c) => c.choices[0]?.finish_reason === "tool_calls").length, 1);
    const sOut = await collect(
      await client.chat.completions.create({
        model: bot.id,
        stream: true,
        messages: [
          question,
          { role: "assistant", content: null, tool_calls: [sCall] },
          { role: "tool", tool_call_id: sCall.id, content: output },
        ],
      }),
    );
    assert.equal(sOut.map((c) => c.choices[0]?.delta.content ?? "").join(""), `tool said: ${output}`);
    assert.equal(sOut.at(-1)?.choices[0]?.finish_reason, "stop");
  });

  it("errors: a model that is not a bot id or an unknown bot is NotFoundError model_not_found; a wrong key 401", async () => {
    const bot = await fx.bot();
    for (const model of ["gpt-4o", "999999999999"]) {
      await assert.rejects(
        client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] }),
        (err: unknown) => {
          assert.ok(err instanceof NotFoundError, `expected NotFoundError, got ${String(err)}`);
          assert.equal(err.status, 404);
          assert.equal(err.type, "invalid_request_error");
          assert.equal(err.code, "model_not_found");
          assert.equal(err.param, "model");
          assert.match(err.message, new RegExp(`^404 The model \`${model}\` does not exist`));
          return true;
        },
      );
    }
    // A tool message answering no call, and a last message from the assistant.
    await assert.rejects(
      client.chat.completions.create({
        model: bot.id,
        messages: [
          { role: "user", content: "hi" },
          { role: "tool", tool_call_id: "call_nope", content: "x" },
        ],
      }),
      BadRequestError,
    );
    await assert.rejects(
      client.chat.completions.create({ model: bot.id, messages: [{ role: "assistant", content: "hi" }] }),
      BadRequestError,
    );
    // An unpublished bot.
    const draft = await fx.bot({}, { publish: false });
    await assert.rejects(
      client.chat.completions.create({ model: draft.id, messages: [{ role: "user", content: "hi" }] }),
      (err: unknown) => err instanceof BadRequestError && /publish/.test(err.message),
    );
    // The token is checked before the endpoint runs, in OpenAI's shape too:
    // the SDK shows the status and the message.
    await assert.rejects(
      openai("pat_wrong").chat.completions.create({ model: bot.id, messages: [{ role: "user", content: "hi" }] }),
      (err: unknown) => {
        assert.ok(err instanceof AuthenticationError, String(err));
        assert.equal(err.status, 401);
        assert.equal(err.type, "invalid_request_error");
        assert.equal(err.code, "invalid_api_key");
        assert.match(err.message, /^401 \S/, "a message follows the status");
        return true;
      },
    );
    // A bad role names the field in param.
    await assert.rejects(
      client.chat.completions.create({
        model: bot.id,
        messages: [{ role: "wizard", content: "hi" } as unknown as ChatCompletionMessageParam],
      }),
      (err: unknown) => {
        assert.ok(err instanceof BadRequestError, String(err));
        assert.equal(err.param, "messages[0].role");
        assert.match(err.message, /wizard/);
        return true;
      },
    );
    // A streamed request fails the same way before any chunk.
    await assert.rejects(
      (async () =>
        collect(
          await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], stream: true }),
        ))(),
      NotFoundError,
    );
  });

  describe("a bot whose model cannot be reached", () => {
    let botId = "";

    before(async () => {
      botId = (await fx.deadBot()).id;
    });

    it("streamed: the SDK throws the data: {error} line as an APIError", async () => {
      const stream = await client.chat.completions.create({
        model: botId,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      });
      await assert.rejects(collect(stream), (err: unknown) => {
        assert.ok(err instanceof APIError, String(err));
        assert.equal(err.type, "server_error");
        assert.match(err.message, /The model is unavailable right now; please try again\.$/);
        assert.doesNotMatch(err.message, /log id|chat id/);
        return true;
      });
    });

    it("not streamed: 502 with a server_error that says why", async () => {
      await assert.rejects(
        client.chat.completions.create({ model: botId, messages: [{ role: "user", content: "hi" }] }),
        (err: unknown) => {
          assert.ok(err instanceof InternalServerError, String(err));
          assert.equal(err.status, 502);
          assert.equal(err.type, "server_error");
          assert.match(err.message, /The model is unavailable right now; please try again\.$/);
          assert.doesNotMatch(err.message, /log id|chat id/);
          return true;
        },
      );
    });
  });
});

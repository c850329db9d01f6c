// OpenAI's official JS SDK (`openai`, pinned in package.json), UNCHANGED,
// against the rest of Pergola's OpenAI surface: GET /v1/models (the bots
// the token may use), function tools sent with a chat completion, and the
// Responses API (POST /v1/responses, streamed and not, previous_response_id,
// function tools; GET /v1/responses/{id}). The bot's model is `pergola
// fakellm`: "echo: <last user text>", "#call <tool> <json>" calls an offered
// tool, a tool result is answered "tool said: <it>".
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from "openai";
import type { ResponseFunctionToolCall, ResponseStreamEvent } from "openai/resources/responses/responses";

import { env, unique } from "./env.js";
import { collect, Fixture } from "./fixtures.js";

function openai(apiKey = env.token): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${env.baseURL}/v1`, maxRetries: 0, timeout: 20_000 });
}

const weather = {
  type: "function" as const,
  name: "get_weather",
  description: "The current weather of a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

describe("openai SDK: models, request tools, responses", () => {
  const fx = new Fixture();
  const client = openai();

  before(() => fx.setup());
  after(() => fx.cleanup());

  it("models.list has the published bots; models.retrieve one; an unknown one is model_not_found", async () => {
    const bot = await fx.bot();
    const draft = await fx.bot({}, { publish: false });
    const ids: string[] = [];
    for await (const m of client.models.list()) {
      assert.equal(m.object, "model");
      assert.equal(typeof m.created, "number");
      assert.match(m.owned_by, /^workspace-\d+$/);
      ids.push(m.id);
    }
    assert.ok(ids.includes(bot.id), "the published bot is a model");
    assert.ok(!ids.includes(draft.id), "a bot never published is not");
    const one = await client.models.retrieve(bot.id);
    assert.equal(one.id, bot.id);
    await assert.rejects(client.models.retrieve("gpt-4o"), (err: unknown) => {
      assert.ok(err instanceof NotFoundError, String(err));
      assert.equal(err.code, "model_not_found");
      return true;
    });
    await assert.rejects(openai("pat_wrong").models.list(), (err: unknown) => {
      assert.ok(err instanceof AuthenticationError, String(err));
      assert.match(err.message, /^401 \S/);
      return true;
    });
    // The listed id is what chat completions accept.
    const res = await client.chat.completions.create({ model: ids.find((id) => id === bot.id)!, messages: [{ role: "user", content: "x" }] });
    assert.equal(res.choices[0]?.message.content, "echo: x");
  });

  it("chat.completions with tools: the request's function is called, its result continues the turn", async () => {
    const bot = await fx.bot();
    const tools = [{ type: "function" as const, function: { name: weather.name, description: weather.description, parameters: weather.parameters } }];
    const question = { role: "user" as const, content: '#call get_weather {"city":"Lima"}' };
    const first = await client.chat.completions.create({ model: bot.id, messages: [question], tools });
    assert.equal(first.choices[0]?.finish_reason, "tool_calls");
    const call = first.choices[0]?.message.tool_calls?.[0];
    assert.ok(call && call.type === "function");
    assert.equal(call.function.name, "get_weather");
    const output = `18C ${unique("cloudy")}`;
    const second = await client.chat.completions.create({
      model: bot.id,
      tools,
      messages: [question, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: call.id, content: output }],
    });
    assert.equal(second.choices[0]?.message.content, `tool said: ${output}`);
    // A tool_choice naming no tool is refused, naming the field.
    await assert.rejects(
      client.chat.completions.create({
        model: bot.id,
        messages: [question],
        tools,
        tool_choice: { type: "function", function: { name: "nope" } },
      }),
      (err: unknown) => err instanceof BadRequestError && err.param === "tool_choice.function.name",
    );
  });

  it("responses.create: output_text, usage, previous_response_id continues; responses.retrieve", async () => {
    const bot = await fx.bot();
    const text = `hi ${unique("r")}`;
    const first = await client.responses.create({ model: bot.id, input: text, instructions: "Answer briefly." });
    assert.equal(first.object, "response");
    assert.match(first.id, /^resp_/);
    assert.equal(first.status, "completed");
    assert.equal(first.output_text, `echo: ${text}`);
    assert.ok((first.usage?.total_tokens ?? 0) > 0);
    const second = await client.responses.create({
      model: bot.id,
      previous_response_id: first.id,
      input: [{ role: "user", content: [{ type: "input_text", text: "more" }] }],
    });
    assert.equal(second.output_text, "echo: more");
    assert.equal(second.previous_response_id, first.id);
    const again = await client.responses.retrieve(second.id);
    assert.equal(again.status, "completed");
    assert.equal(again.output_text, "echo: more");
    await assert.rejects(
      client.responses.create({ model: bot.id, input: "x", previous_response_id: "resp_1_2" }),
      (err: unknown) => err instanceof NotFoundError && err.param === "previous_response_id",
    );
    await assert.rejects(
      client.responses.create({ model: bot.id, input: [{ type: "function_call_output", call_id: "call_1", output: "x" }] }),
      (err: unknown) => err instanceof BadRequestError && /previous_response_id/.test(err.message),
    );
  });

  it("embeddings.create over the platform's embedding model (base64, as the SDK asks, and float); unknown routes are 404 with a message", async () => {
    // fe-embedding: the embedding model scripts/frontend-test.sh configures on the fake model.
    const res = await client.embeddings.create({ model: "fe-embedding", input: ["red apple", "green pear"] });
    assert.equal(res.object, "list");
    assert.deepEqual(res.data.map((d) => d.index), [0, 1]);
    const vec = res.data[0]!.embedding;
    assert.ok(vec.length > 0 && vec.every((x) => typeof x === "number"), "the SDK decoded the base64 vector");
    const floats = await client.embeddings.create({ model: "fe-embedding", input: "red apple", encoding_format: "float" });
    assert.equal(floats.data[0]!.embedding.length, vec.length);
    assert.ok(floats.data[0]!.embedding.every((x, i) => Math.abs(x - vec[i]!) < 1e-6), "float and base64 carry the same vector");
    await assert.rejects(client.embeddings.create({ model: "nope", input: "x" }), (err: unknown) => {
      assert.ok(err instanceof BadRequestError, String(err));
      assert.equal(err.param, "model");
      return true;
    });
    await assert.rejects(client.batches.list(), (err: unknown) => {
      assert.ok(err instanceof NotFoundError, String(err));
      assert.match(err.message, /^404 Invalid URL \(GET \/v1\/batches\)/);
      return true;
    });
  });

  it("responses streamed: the semantic events in order; the stream helper's final response", async () => {
    const bot = await fx.bot();
    const text = `streamed ${unique("r")}`;
    const events: ResponseStreamEvent[] = await collect(await client.responses.create({ model: bot.id, input: text, stream: true }));
    const types = events.map((e) => e.type);
    assert.deepEqual(types.slice(0, 4), ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    assert.deepEqual(types.slice(-4), ["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    );
    const deltas = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
    assert.ok(deltas.length > 1, "the text comes in pieces");
    assert.equal(deltas.join(""), `echo: ${text}`);
    const final = await client.responses.stream({ model: bot.id, input: text }).finalResponse();
    assert.equal(final.output_text, `echo: ${text}`);
    assert.equal(final.status, "completed");
  });

  it("responses with a function tool: function_call, then function_call_output with previous_response_id (streamed too)", async () => {
    const bot = await fx.bot();
    const asked = await client.responses.create({ model: bot.id, input: '#call get_weather {"city":"Oslo"}', tools: [weather] });
    const call = asked.output.find((o): o is ResponseFunctionToolCall => o.type === "function_call");
    assert.ok(call, JSON.stringify(asked.output));
    assert.equal(call.name, "get_weather");
    assert.deepEqual(JSON.parse(call.arguments), { city: "Oslo" });
    const output = `-2C ${unique("snow")}`;
    const done = await client.responses.create({
      model: bot.id,
      tools: [weather],
      previous_response_id: asked.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output }],
    });
    assert.equal(done.output_text, `tool said: ${output}`);
    assert.notEqual(done.id, asked.id);

    const streamed = await client.responses.stream({ model: bot.id, input: '#call get_weather {"city":"Bern"}', tools: [weather] }).finalResponse();
    const sCall = streamed.output.find((o) => o.type === "function_call");
    assert.ok(sCall && sCall.type === "function_call");
    const sDone = await client.responses.stream({
      model: bot.id,
      tools: [weather],
      previous_response_id: streamed.id,
      input: [{ type: "function_call_output", call_id: sCall.call_id, output: "warm" }],
    }).finalResponse();
    assert.equal(sDone.output_text, "tool said: warm");
  });

  it("responses: parallel function calls answered with empty outputs complete (the model gets \"(no output)\")", async () => {
    const bot = await fx.bot();
    const ping = { type: "function" as const, name: "ping", parameters: { type: "object", properties: {} }, strict: false };
    const asked = await client.responses.create({ model: bot.id, input: "#call get_weather {} #call ping {}", tools: [weather, ping] });
    const calls = asked.output.filter((o): o is ResponseFunctionToolCall => o.type === "function_call");
    assert.deepEqual(calls.map((c) => c.name), ["get_weather", "ping"]);
    const done = await client.responses.create({
      model: bot.id,
      tools: [weather, ping],
      previous_response_id: asked.id,
      input: calls.map((c) => ({ type: "function_call_output" as const, call_id: c.call_id, output: "" })),
    });
    assert.equal(done.output_text, "tool said: (no output); (no output)");
    await assert.rejects(
      client.responses.create({ model: bot.id, input: "hi", conversation: "conv_1" }),
      (err: unknown) => {
        assert.ok(err instanceof BadRequestError, String(err));
        assert.equal(err.param, "conversation");
        return true;
      },
    );
  });
});

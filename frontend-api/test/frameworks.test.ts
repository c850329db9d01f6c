// Agent frameworks, UNCHANGED (pinned in package.json), pointed at
// Pergola's OpenAI-compatible API with a published bot's id as the model:
// the Vercel AI SDK (`ai` + `@ai-sdk/openai`: the default provider speaks
// the Responses API, `.chat` chat completions) and LangChain JS
// (`@langchain/openai`'s ChatOpenAI, with and without useResponsesApi).
// Each generates, streams and runs a multi-step tool loop, which these
// frameworks send statelessly: the whole transcript in every request. The
// bot's model is `pergola fakellm`: "echo: <last user text>", "#call <tool>
// <json>" calls an offered tool, a tool result is answered "tool said: <it>".
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createOpenAI } from "@ai-sdk/openai";
import { generateObject, generateText, jsonSchema, Output, stepCountIs, streamText, tool, type LanguageModel } from "ai";
import { ChatOpenAI } from "@langchain/openai";
import { HumanMessage, ToolMessage, type AIMessage } from "@langchain/core/messages";
import { tool as lcTool } from "@langchain/core/tools";
import { z } from "zod";

import { env } from "./env.js";
import { Fixture } from "./fixtures.js";

const CALL = '#call get_weather {"city":"Rome"}';
// Structured output: the request's response_format (text.format) reaches
// the bot's model, and the fake model answers a JSON object built from the
// schema (first enum value, arrays of one item, numbers 1, booleans true).
const TRIP = z.object({ city: z.enum(["Rome", "Oslo"]), days: z.array(z.number().int()), sunny: z.boolean() });
const TRIP_ANSWER = { city: "Rome", days: [1], sunny: true };

describe("Vercel AI SDK (ai + @ai-sdk/openai)", () => {
  const fx = new Fixture();
  let botId = "";
  const provider = () => createOpenAI({ baseURL: `${env.baseURL}/v1`, apiKey: env.token });
  const weather = tool({
    description: "The current weather of a city.",
    inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
    execute: async ({ city }) => `sunny in ${city}`,
  });

  before(async () => {
    await fx.setup();
    botId = (await fx.bot()).id;
  });
  after(() => fx.cleanup());

  const models: [string, () => LanguageModel][] = [
    ["default provider (Responses API)", () => provider()(botId)],
    ["provider.chat (chat completions)", () => provider().chat(botId)],
  ];
  for (const [name, model] of models) {
    it(`${name}: generateText, streamText, a multi-step tool loop`, async () => {
      const gen = await generateText({ model: model(), prompt: "hello there" });
      assert.equal(gen.text, "echo: hello there");
      assert.ok((gen.usage.totalTokens ?? 0) > 0, `usage: ${JSON.stringify(gen.usage)}`);

      const stream = streamText({ model: model(), prompt: "streamed words" });
      const parts: string[] = [];
      for await (const delta of stream.textStream) parts.push(delta);
      assert.equal(parts.join(""), "echo: streamed words");
      assert.ok(parts.length > 1, `several deltas: ${JSON.stringify(parts)}`);

      const loop = await generateText({ model: model(), prompt: CALL, tools: { get_weather: weather }, stopWhen: stepCountIs(3) });
      assert.equal(loop.steps.length, 2, "a tool step, then the answer");
      assert.deepEqual(loop.steps[0]!.toolCalls.map((c) => [c.toolName, c.input]), [["get_weather", { city: "Rome" }]]);
      assert.equal(loop.text, "tool said: sunny in Rome");

      const streamed = streamText({ model: model(), prompt: CALL, tools: { get_weather: weather }, stopWhen: stepCountIs(3) });
      let text = "";
      for await (const delta of streamed.textStream) text += delta;
      assert.equal(text, "tool said: sunny in Rome");
    });
  }

  for (const [name, model] of models) {
    it(`${name}: generateObject and Output.object with a JSON schema`, async () => {
      const { object } = await generateObject({ model: model(), schema: TRIP, prompt: "plan a trip" });
      assert.deepEqual(object, TRIP_ANSWER);

      const { output } = await generateText({ model: model(), output: Output.object({ schema: TRIP }), prompt: "plan a trip" });
      assert.deepEqual(output, TRIP_ANSWER);
    });
  }
});

describe("LangChain JS (@langchain/openai)", () => {
  const fx = new Fixture();
  let botId = "";
  const weather = lcTool(async ({ city }: { city: string }) => `sunny in ${city}`, {
    name: "get_weather",
    description: "The current weather of a city.",
    schema: z.object({ city: z.string() }),
  });

  before(async () => {
    await fx.setup();
    botId = (await fx.bot()).id;
  });
  after(() => fx.cleanup());

  for (const useResponsesApi of [false, true]) {
    const name = useResponsesApi ? "ChatOpenAI({useResponsesApi: true})" : "ChatOpenAI (chat completions)";
    it(`${name}: invoke, stream, a tool loop`, async () => {
      const llm = new ChatOpenAI({
        model: botId,
        apiKey: env.token,
        configuration: { baseURL: `${env.baseURL}/v1` },
        useResponsesApi,
        maxRetries: 0,
      });
      const said = await llm.invoke("hello there");
      assert.equal(said.text, "echo: hello there");

      let text = "";
      let chunks = 0;
      for await (const chunk of await llm.stream("streamed words")) {
        text += chunk.text;
        chunks++;
      }
      assert.equal(text, "echo: streamed words");
      assert.ok(chunks > 1, `several chunks: ${chunks}`);

      // The loop as LangChain's docs write it: call, run the tools, send
      // the transcript back.
      const withTools = llm.bindTools([weather]);
      const messages: (HumanMessage | AIMessage | ToolMessage)[] = [new HumanMessage(CALL)];
      const call = await withTools.invoke(messages);
      assert.deepEqual(call.tool_calls?.map((c) => [c.name, c.args]), [["get_weather", { city: "Rome" }]]);
      messages.push(call);
      for (const tc of call.tool_calls ?? []) messages.push(await weather.invoke(tc));
      const answer = await withTools.invoke(messages);
      assert.equal(answer.text, "tool said: sunny in Rome");
    });
  }

  for (const useResponsesApi of [false, true]) {
    const name = useResponsesApi ? "ChatOpenAI({useResponsesApi: true})" : "ChatOpenAI (chat completions)";
    it(`${name}: withStructuredOutput with a JSON schema`, async () => {
      const llm = new ChatOpenAI({ model: botId, apiKey: env.token, configuration: { baseURL: `${env.baseURL}/v1` }, maxRetries: 0, useResponsesApi });
      const out = await llm.withStructuredOutput(TRIP, { method: "jsonSchema" }).invoke("plan a trip");
      assert.deepEqual(out, TRIP_ANSWER);
    });
  }
});

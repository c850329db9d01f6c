// Coze's official JS SDK, @coze/api 1.3.9, UNCHANGED (only `token` and
// `baseURL`), against Pergola's bots, chat, conversations and variables.
// The model is `pergola fakellm` (PERGOLA_FAKE_LLM_URL): it answers
// "echo: <last user text>", calls an offered tool for
// "#call <tool> <json args>" and answers a tool result "tool said: <it>".
// Every test makes its own bot, so they do not depend on each other.
//
// What the SDK sends (read from node_modules/@coze/api/dist/esm/index.mjs):
// - bots.create/update/publish: POST /v1/bot/{create,update,publish} (JSON);
//   bots.retrieve: GET /v1/bot/get_online_info?bot_id=; bots.retrieveNew:
//   GET /v1/bots/:id?is_published=; bots.list: GET
//   /v1/space/published_bots_list; bots.listNew: GET /v1/bots. GET queries
//   are built by hand (`k=v`, not URL-encoded, null/undefined dropped).
// - chat.create/createAndPoll/stream: POST /v3/chat[?conversation_id=]
//   with `stream` false/true and a random numeric user_id when none is
//   given; chat.retrieve: **POST** /v3/chat/retrieve?conversation_id=&chat_id=
//   (createAndPoll polls it every 100 ms until completed, failed or
//   requires_action, then GETs /v3/chat/message/list); chat.cancel: POST
//   /v3/chat/cancel; chat.submitToolOutputs: an async generator that POSTs
//   /v3/chat/submit_tool_outputs?conversation_id=&chat_id= and, with
//   `stream: false`, *returns* the chat (read it from the first `next()`);
//   with `stream: true` it yields the events. There is no separate
//   streamSubmitToolOutputs in the JS SDK.
// - Streams are read with axios' fetch adapter; a non-2xx answer makes axios
//   throw before the SDK reads the body, so Pergola answers a Coze SDK's
//   streamed call that fails before streaming with HTTP 200 and the JSON
//   envelope (as Coze does): the SDK yields it as an `error` event whose
//   data carries `code` and `msg`.
// - conversations.create/retrieve/list/clear; conversations.messages.create
//   /retrieve/list/update/delete (list is POST with the query in the body
//   and resolves to the whole answer {data, first_id, last_id, has_more};
//   update reads the answer's `message` key). There is no iterator: paging
//   is by hand, sending the previous page's last_id as after_id.
// - variables.retrieve: GET /v1/variables (keywords joined by commas);
//   variables.update: PUT /v1/variables.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  APIError,
  BadRequestError,
  ChatEventType,
  CozeAPI,
  NotFoundError,
  RoleType,
  type ChatV3Message,
  type CreateChatData,
  type EnterMessage,
  type StreamChatData,
} from "@coze/api";

import { ErrorCode } from "../src/index.js";
import { env, NUMERIC_ID, unique } from "./env.js";
import { collect, Fixture, pollChat, sdkError } from "./fixtures.js";

const E = ChatEventType;

function user(text: string): EnterMessage {
  return { role: RoleType.User, content: text, content_type: "text" };
}

/**
 * The events of a stream, shortened: created, in_progress, delta, then
 * each conversation.message.completed as its message type (answer,
 * function_call, tool_response, verbose, follow_up), then completed,
 * requires_action or failed, and done.
 */
function shape(events: StreamChatData[]): string {
  const short: Record<string, string> = {
    [E.CONVERSATION_CHAT_CREATED]: "created",
    [E.CONVERSATION_CHAT_IN_PROGRESS]: "in_progress",
    [E.CONVERSATION_MESSAGE_DELTA]: "delta",
    [E.CONVERSATION_CHAT_COMPLETED]: "completed",
    [E.CONVERSATION_CHAT_REQUIRES_ACTION]: "requires_action",
    [E.CONVERSATION_CHAT_FAILED]: "failed",
    [E.DONE]: "done",
  };
  return events
    .map((e) => (e.event === E.CONVERSATION_MESSAGE_COMPLETED ? (e.data as ChatV3Message).type : (short[e.event] ?? e.event)))
    .join(",");
}

/**
 * The messages without the `verbose` ones, after checking those are what
 * Coze sends when an answer is finished (msg_type generate_answer_finish).
 */
function withoutVerbose(ms: ChatV3Message[]): ChatV3Message[] {
  for (const m of ms.filter((x) => x.type === "verbose")) {
    assert.equal(m.role, "assistant");
    assert.equal((JSON.parse(m.content) as { msg_type?: string }).msg_type, "generate_answer_finish", m.content);
  }
  return ms.filter((m) => m.type !== "verbose");
}

function chats(events: StreamChatData[], event: ChatEventType): CreateChatData[] {
  return events.filter((e) => e.event === event).map((e) => e.data as CreateChatData);
}

function messages(events: StreamChatData[], event: ChatEventType): ChatV3Message[] {
  return events.filter((e) => e.event === event).map((e) => e.data as ChatV3Message);
}

/** The weather tool the client runs. */
const weatherTool = {
  name: "get_weather",
  description: "The current weather of a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "The city." } },
    required: ["city"],
  },
};

const CALL_WEATHER = '#call get_weather {"city":"Shenzhen"}';

/** p, or a rejection after ms. */
async function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe("@coze/api: bots, chat, conversations, variables", () => {
  const fx = new Fixture();
  const sdk = new CozeAPI({ token: env.token, baseURL: env.baseURL });

  before(() => fx.setup());
  after(() => fx.cleanup());

  /**
   * A published bot with the client tool get_weather, added the way a
   * builder does: GET the draft, PUT it back with `client_tools` (and the
   * model), publish.
   */
  async function weatherBot(): Promise<string> {
    const bot = await fx.bot();
    const { config } = await fx.admin.bots.get(bot.id);
    const saved = await fx.admin.bots.update(bot.id, {
      ...config,
      name: config.name ?? bot.id,
      model: { model_id: fx.modelId },
      client_tools: [weatherTool],
    });
    assert.deepEqual(saved.config.client_tools, [weatherTool]);
    const v = await fx.admin.bots.publish(bot.id, { connector_ids: ["1024"] });
    assert.equal(v.version, 2);
    assert.deepEqual(v.config?.client_tools, [weatherTool]);
    return bot.id;
  }

  /** Starts a (not streamed) chat that calls get_weather and waits until it requires action. */
  async function waitingChat(botId: string, userId: string) {
    const started = await sdk.chat.create({ bot_id: botId, user_id: userId, additional_messages: [user(CALL_WEATHER)] });
    const chat = await pollChat(started.conversation_id, started.id);
    assert.equal(chat.status, "requires_action", JSON.stringify(chat));
    const call = chat.required_action?.submit_tool_outputs.tool_calls[0];
    assert.ok(call, "the chat names the tool call");
    return { chat, call };
  }

  it("bots.create/retrieveNew/update/publish/retrieve/list/listNew", async () => {
    const name = unique("sdk-bot");
    const created = await sdk.bots.create({
      space_id: fx.workspaceId,
      name,
      description: "made by @coze/api",
      prompt_info: { prompt: "Be brief." },
      onboarding_info: { prologue: "Hi!", suggested_questions: ["What can you do?"] },
      model_info_config: { model_id: fx.modelId, temperature: 0.5, context_round: 3 },
    });
    const botId = fx.track(created.bot_id);
    assert.match(botId, NUMERIC_ID);
    const me = await sdk.users.me();

    // Never published: the published bot is 404/4200, the draft is there.
    await assert.rejects(sdk.bots.retrieve({ bot_id: botId }), sdkError(NotFoundError, 404, ErrorCode.NotFound, /publish/));
    const draft = await sdk.bots.retrieveNew(botId, { is_published: false });
    assert.equal(draft.bot_id, botId);
    assert.equal(draft.name, name);
    assert.equal(draft.description, "made by @coze/api");
    assert.equal(draft.version, "0", "the draft is version 0");
    assert.equal(draft.bot_mode, 0);
    assert.deepEqual(draft.prompt_info, { prompt: "Be brief." });
    assert.deepEqual(draft.onboarding_info, { prologue: "Hi!", suggested_questions: ["What can you do?"] });
    assert.equal(draft.model_info.model_id, fx.modelId);
    assert.deepEqual(draft.plugin_info_list, []);
    assert.equal(typeof draft.create_time, "number");
    assert.ok(draft.update_time >= draft.create_time);
    assert.equal((draft as unknown as { owner_user_id: string }).owner_user_id, me.user_id);
    const params = (draft.model_info as { parameters?: Record<string, unknown> }).parameters;
    assert.equal(params?.["temperature"], 0.5);
    assert.equal(params?.["context_round"], 3);

    const unpublished = await sdk.bots.listNew({ workspace_id: fx.workspaceId, publish_status: "unpublished_draft", page_size: 100 });
    const listedDraft = unpublished.items.find((b) => b.id === botId);
    assert.equal(listedDraft?.is_published, false);
    assert.equal(listedDraft?.name, name);

    // Update, then publish to the API connector: version 1.
    await sdk.bots.update({ bot_id: botId, name: `${name}-v1`, prompt_info: { prompt: "Be very brief." } });
    const published = (await sdk.bots.publish({ bot_id: botId, connector_ids: ["1024"] })) as unknown;
    assert.deepEqual(published, { bot_id: botId, version: "1" }, "publish answers the new version as a string");

    const online = await sdk.bots.retrieve({ bot_id: botId });
    assert.equal(online.bot_id, botId);
    assert.equal(online.version, "1");
    assert.equal(online.name, `${name}-v1`);
    assert.equal(online.description, "made by @coze/api", "update kept what it was not given");
    assert.deepEqual(online.prompt_info, { prompt: "Be very brief." });
    assert.equal(online.model_info.model_id, fx.modelId);
    assert.deepEqual(await sdk.bots.retrieveNew(botId), online, "retrieveNew defaults to the published bot");

    // A draft change reaches the published bot only when published again.
    await sdk.bots.update({ bot_id: botId, prompt_info: { prompt: "Draft only." } });
    assert.deepEqual((await sdk.bots.retrieve({ bot_id: botId })).prompt_info, { prompt: "Be very brief." });
    const draft2 = await sdk.bots.retrieveNew(botId, { is_published: false });
    assert.deepEqual(draft2.prompt_info, { prompt: "Draft only." });
    assert.equal(draft2.name, `${name}-v1`, "an update without a name keeps it");
    const changed = await sdk.bots.listNew({ workspace_id: fx.workspaceId, publish_status: "published_draft", page_size: 100 });
    assert.ok(changed.items.some((b) => b.id === botId), "published_draft lists a bot whose draft differs");

    // Published bots of the workspace.
    const list = await sdk.bots.list({ space_id: fx.workspaceId, page_size: 100, page_index: 1 });
    assert.equal(typeof list.total, "number");
    const simple = list.space_bots.find((b) => b.bot_id === botId);
    assert.ok(simple, "published_bots_list has the bot");
    assert.equal(simple.bot_name, `${name}-v1`);
    assert.equal(simple.description, "made by @coze/api");
    assert.match(simple.publish_time, NUMERIC_ID, "publish_time is Unix seconds as a string");
    const online2 = await sdk.bots.listNew({ workspace_id: fx.workspaceId, page_size: 100 });
    const listed = online2.items.find((b) => b.id === botId);
    assert.equal(listed?.is_published, true);
    assert.equal(typeof listed?.published_at, "number");
    assert.equal(listed?.owner_user_id, me.user_id);

    // Publishing again makes version 2, with the draft's prompt.
    assert.deepEqual(await sdk.bots.publish({ bot_id: botId, connector_ids: ["1024"] }), { bot_id: botId, version: "2" });
    const v2 = await sdk.bots.retrieve({ bot_id: botId });
    assert.equal(v2.version, "2");
    assert.deepEqual(v2.prompt_info, { prompt: "Draft only." });
  });

  it("chat.stream: created, in_progress, deltas, message completed, chat completed with usage, done", async () => {
    const bot = await fx.bot();
    const text = `hello ${unique("stream")}`;
    const userId = unique("u");
    const events = await collect(
      sdk.chat.stream({ bot_id: bot.id, user_id: userId, additional_messages: [user(text)] }),
    );
    // Coze (and Pergola) may follow a finished answer with a `verbose` message.
    assert.match(shape(events), /^created,in_progress,(delta,){2,}answer,(verbose,)?completed,done$/, shape(events));
    withoutVerbose(messages(events, E.CONVERSATION_MESSAGE_COMPLETED));

    const [created] = chats(events, E.CONVERSATION_CHAT_CREATED);
    assert.ok(created);
    assert.match(created.id, NUMERIC_ID);
    assert.match(created.conversation_id, NUMERIC_ID);
    assert.equal(created.bot_id, bot.id);
    assert.equal(created.status, "created");
    const [inProgress] = chats(events, E.CONVERSATION_CHAT_IN_PROGRESS);
    assert.equal(inProgress?.id, created.id);
    assert.equal(inProgress?.status, "in_progress");

    const deltas = messages(events, E.CONVERSATION_MESSAGE_DELTA);
    const [answer] = messages(events, E.CONVERSATION_MESSAGE_COMPLETED);
    assert.ok(answer);
    for (const d of deltas) {
      assert.equal(d.id, answer.id, "every delta of the answer has its id");
      assert.equal(d.chat_id, created.id);
      assert.equal(d.conversation_id, created.conversation_id);
      assert.equal(d.role, "assistant");
      assert.equal(d.type, "answer");
    }
    assert.equal(deltas.map((d) => d.content).join(""), `echo: ${text}`, "the deltas concatenate to the answer");
    assert.equal(answer.content, `echo: ${text}`);
    assert.equal(answer.type, "answer");
    assert.equal(answer.content_type, "text");
    assert.match(answer.id, NUMERIC_ID);

    const [completed] = chats(events, E.CONVERSATION_CHAT_COMPLETED);
    assert.ok(completed);
    assert.equal(completed.id, created.id);
    assert.equal(completed.status, "completed");
    assert.ok(completed.usage, "chat.completed carries usage");
    assert.ok(completed.usage.token_count > 0);
    assert.equal(completed.usage.token_count, completed.usage.input_count + completed.usage.output_count);
    assert.ok((completed.completed_at ?? 0) >= (created.created_at ?? 0));
    assert.deepEqual(events.at(-1), { event: E.DONE, data: "[DONE]" });

    // What the bot said in that chat (the question is not listed).
    const said = await sdk.chat.messages.list(created.conversation_id, created.id);
    assert.deepEqual(
      withoutVerbose(said).map((m) => [m.type, m.content]),
      [["answer", `echo: ${text}`]],
    );

    // The conversation goes on with conversation_id.
    const again = await collect(
      sdk.chat.stream({
        bot_id: bot.id,
        user_id: userId,
        conversation_id: created.conversation_id,
        additional_messages: [user("second")],
      }),
    );
    const [second] = messages(again, E.CONVERSATION_MESSAGE_COMPLETED);
    assert.equal(second?.content, "echo: second");
    assert.equal(second?.conversation_id, created.conversation_id);
    const history = await sdk.conversations.messages.list(created.conversation_id, { order: "asc" });
    assert.deepEqual(
      withoutVerbose(history.data).map((m) => [m.role, m.content]),
      [
        ["user", text],
        ["assistant", `echo: ${text}`],
        ["user", "second"],
        ["assistant", "echo: second"],
      ],
    );
  });

  it(
    "chat.createAndPoll: completed, with the answer",
    async () => {
      const bot = await fx.bot();
      const text = `poll ${unique("p")}`;
      // createAndPoll polls forever unless the chat completes, fails or requires action.
      const r = await within(
        10_000,
        sdk.chat.createAndPoll({ bot_id: bot.id, user_id: unique("u"), additional_messages: [user(text)] }),
      );
      assert.equal(r.chat.status, "completed");
      assert.ok(r.messages?.some((m) => m.type === "answer" && m.content === `echo: ${text}`));
    },
  );

  it(
    "chat.retrieve: the chat",
    async () => {
      const bot = await fx.bot();
      const started = await sdk.chat.create({ bot_id: bot.id, user_id: unique("u"), additional_messages: [user("hi")] });
      const got = await sdk.chat.retrieve(started.conversation_id, started.id);
      assert.equal(got.id, started.id);
    },
  );

  it("chat.create (not streamed) answers the chat at once; polled to completed; chat.messages.list has the answer", async () => {
    const bot = await fx.bot();
    const text = `not streamed ${unique("c")}`;
    const started = await sdk.chat.create({ bot_id: bot.id, user_id: unique("u"), additional_messages: [user(text)] });
    assert.match(started.id, NUMERIC_ID);
    assert.match(started.conversation_id, NUMERIC_ID);
    assert.equal(started.bot_id, bot.id);
    assert.ok(["created", "in_progress", "completed"].includes(started.status), started.status);

    const chat = await pollChat(started.conversation_id, started.id);
    assert.equal(chat.status, "completed");
    assert.ok((chat.usage?.token_count ?? 0) > 0);
    const said = await sdk.chat.messages.list(started.conversation_id, started.id);
    assert.deepEqual(
      withoutVerbose(said).map((m) => [m.role, m.type, m.content]),
      [["assistant", "answer", `echo: ${text}`]],
    );
  });

  it("conversations and conversations.messages: 25 messages paged 10 at a time, retrieve, update, delete, clear", async () => {
    const bot = await fx.bot();
    const conv = await sdk.conversations.create({ bot_id: bot.id, meta_data: { purpose: "paging" } });
    assert.match(conv.id, NUMERIC_ID);
    assert.deepEqual(conv.meta_data, { purpose: "paging" });
    assert.equal(typeof conv.created_at, "number");
    assert.match(conv.last_section_id ?? "", NUMERIC_ID);
    const got = await sdk.conversations.retrieve(conv.id);
    assert.equal(got.id, conv.id);
    assert.deepEqual(got.meta_data, conv.meta_data);

    const made: ChatV3Message[] = [];
    for (let i = 0; i < 25; i++) {
      made.push(
        await sdk.conversations.messages.create(conv.id, {
          role: i % 2 === 0 ? RoleType.User : RoleType.Assistant,
          content: `message ${i}`,
          content_type: "text",
          meta_data: { i: String(i) },
        }),
      );
    }
    assert.equal(made[0]?.conversation_id, conv.id);
    assert.equal(made[0]?.role, "user");
    assert.equal(made[1]?.role, "assistant");
    assert.deepEqual(made[7]?.meta_data, { i: "7" });
    const ids = made.map((m) => m.id);
    assert.equal(new Set(ids).size, 25);

    /** Walks the list with after_id = the previous page's last_id, as Coze's SDK paginators do. */
    async function walk(order: "asc" | "desc") {
      const pages: number[] = [];
      const seen: string[] = [];
      let afterId: string | undefined;
      for (;;) {
        assert.ok(pages.length < 10, "the paging ends");
        const page = await sdk.conversations.messages.list(conv.id, {
          order,
          limit: 10,
          ...(afterId ? { after_id: afterId } : {}),
        });
        pages.push(page.data.length);
        seen.push(...page.data.map((m) => m.id));
        assert.equal(page.first_id, page.data[0]?.id);
        assert.equal(page.last_id, page.data.at(-1)?.id);
        if (!page.has_more) break;
        afterId = page.last_id;
      }
      return { pages, seen };
    }
    const desc = await walk("desc");
    assert.deepEqual(desc.pages, [10, 10, 5]);
    assert.deepEqual(desc.seen, [...ids].reverse(), "desc (the default order of Coze): newest first, each once");
    const asc = await walk("asc");
    assert.deepEqual(asc.pages, [10, 10, 5]);
    assert.deepEqual(asc.seen, ids, "asc: oldest first, each once");
    assert.deepEqual(
      (await sdk.conversations.messages.list(conv.id)).data.map((m) => m.id),
      [...ids].reverse().slice(0, 20),
      "without parameters: desc, 20",
    );

    // before_id goes back: the nearest messages before it, in the list's order.
    const back = await sdk.conversations.messages.list(conv.id, { order: "asc", limit: 10, before_id: ids[20] });
    assert.deepEqual(back.data.map((m) => m.id), ids.slice(10, 20));
    assert.equal(back.has_more, true);
    const back2 = await sdk.conversations.messages.list(conv.id, { order: "asc", limit: 10, before_id: back.first_id });
    assert.deepEqual(back2.data.map((m) => m.id), ids.slice(0, 10));
    assert.equal(back2.has_more, false);

    // retrieve, update (the SDK reads the answer's `message`), delete.
    const third = await sdk.conversations.messages.retrieve(conv.id, ids[3]!);
    assert.equal(third.content, "message 3");
    assert.equal(third.role, "assistant");
    const edited = await sdk.conversations.messages.update(conv.id, ids[3]!, {
      content: "message 3, edited",
      meta_data: { i: "3", edited: "yes" },
    });
    assert.ok(edited, "modify answers the message under `message`");
    assert.equal(edited.id, ids[3]);
    assert.equal(edited.content, "message 3, edited");
    assert.deepEqual(edited.meta_data, { i: "3", edited: "yes" });
    assert.equal((await sdk.conversations.messages.retrieve(conv.id, ids[3]!)).content, "message 3, edited");
    const deleted = await sdk.conversations.messages.delete(conv.id, ids[4]!);
    assert.equal(deleted.id, ids[4]);
    assert.equal(deleted.content, "message 4");
    await assert.rejects(
      sdk.conversations.messages.retrieve(conv.id, ids[4]!),
      sdkError(NotFoundError, 404, ErrorCode.NotFound),
    );
    assert.equal((await walk("asc")).seen.length, 24);

    // The bot's conversations; clear opens a new section.
    const convs = await sdk.conversations.list({ bot_id: bot.id, page_num: 1, page_size: 50 });
    assert.deepEqual(
      convs.conversations.map((c) => c.id),
      [conv.id],
    );
    assert.equal(convs.has_more, false);
    const section = await sdk.conversations.clear(conv.id);
    assert.equal(section.conversation_id, conv.id);
    assert.match(section.id, NUMERIC_ID);
    assert.notEqual(section.id, conv.last_section_id);
    assert.equal((await sdk.conversations.retrieve(conv.id)).last_section_id, section.id);
  });

  it("conversations.create with messages seeds the history; object_string content, as an array or as JSON text", async () => {
    const bot = await fx.bot();
    const conv = await sdk.conversations.create({
      bot_id: bot.id,
      messages: [
        { role: RoleType.User, content: "seed", content_type: "text" },
        { role: RoleType.Assistant, content: "seeded", content_type: "text" },
      ],
    });
    const empty = await sdk.conversations.messages.list((await sdk.conversations.create({ bot_id: bot.id })).id);
    assert.deepEqual(empty, { code: 0, msg: "", data: [], first_id: "", last_id: "", has_more: false });

    // messages.create sends `content` as given: an array stays an array in the JSON body.
    const parts = [
      { type: "text" as const, text: "look at" },
      { type: "image" as const, file_url: "https://example.com/a.png" },
    ];
    const asArray = await sdk.conversations.messages.create(conv.id, {
      role: RoleType.User,
      content: parts,
      content_type: "object_string",
      meta_data: {},
    });
    const asText = await sdk.conversations.messages.create(conv.id, {
      role: RoleType.User,
      content: JSON.stringify(parts),
      content_type: "object_string",
      meta_data: {},
    });
    for (const m of [asArray, asText]) {
      assert.equal(m.content_type, "object_string");
      assert.deepEqual(JSON.parse(m.content), parts, "stored as JSON text");
    }
    const history = await sdk.conversations.messages.list(conv.id, { order: "asc" });
    assert.deepEqual(
      withoutVerbose(history.data).map((m) => [m.role, m.type, m.content_type]),
      [
        ["user", "question", "text"],
        ["assistant", "answer", "text"],
        ["user", "question", "object_string"],
        ["user", "question", "object_string"],
      ],
    );

    // chat.stream stringifies object_string content itself; the text parts reach the model.
    const events = await collect(
      sdk.chat.stream({
        bot_id: bot.id,
        user_id: unique("u"),
        additional_messages: [{ role: RoleType.User, content: parts, content_type: "object_string" }],
      }),
    );
    const [answer] = messages(events, E.CONVERSATION_MESSAGE_COMPLETED);
    assert.match(answer?.content ?? "", /^echo: look at/);
  });

  it("client tool, streamed: requires_action with the call, then submitToolOutputs({stream: true}) resumes the same chat", async () => {
    const botId = await weatherBot();
    const userId = unique("u");
    const events = await collect(sdk.chat.stream({ bot_id: botId, user_id: userId, additional_messages: [user(CALL_WEATHER)] }));
    assert.equal(shape(events), "created,in_progress,function_call,requires_action,done");
    const [waiting] = chats(events, E.CONVERSATION_CHAT_REQUIRES_ACTION);
    assert.ok(waiting);
    assert.equal(waiting.status, "requires_action");
    assert.equal(waiting.required_action?.type, "submit_tool_outputs");
    const calls = waiting.required_action?.submit_tool_outputs.tool_calls ?? [];
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.equal(typeof call.id, "string");
    assert.ok(call.id.length > 0);
    assert.equal(call.type, "function");
    assert.equal(call.function.name, "get_weather");
    assert.equal(typeof call.function.arguments, "string", "arguments are JSON text");
    assert.deepEqual(JSON.parse(call.function.arguments), { city: "Shenzhen" });
    const fnCalls = messages(events, E.CONVERSATION_MESSAGE_COMPLETED).filter((m) => m.type === "function_call");
    assert.equal(fnCalls.length, 1, "the call is also a function_call message");
    assert.equal(fnCalls[0]?.chat_id, waiting.id);
    assert.deepEqual(JSON.parse(fnCalls[0]?.content ?? "{}"), { id: call.id, name: "get_weather", arguments: { city: "Shenzhen" } });

    // Polling agrees.
    const polled = await pollChat(waiting.conversation_id, waiting.id);
    assert.equal(polled.status, "requires_action");
    assert.deepEqual(polled.required_action, waiting.required_action);

    const output = `21°C and sunny ${unique("w")}`;
    const resumed = await collect(
      sdk.chat.submitToolOutputs({
        conversation_id: waiting.conversation_id,
        chat_id: waiting.id,
        tool_outputs: [{ tool_call_id: call.id, output }],
        stream: true,
      }),
    );
    assert.match(shape(resumed), /^in_progress,(delta,)+answer,(verbose,)?completed,done$/, shape(resumed));
    for (const c of [...chats(resumed, E.CONVERSATION_CHAT_IN_PROGRESS), ...chats(resumed, E.CONVERSATION_CHAT_COMPLETED)]) {
      assert.equal(c.id, waiting.id, "the same chat goes on");
    }
    const [answer] = messages(resumed, E.CONVERSATION_MESSAGE_COMPLETED);
    assert.equal(answer?.content, `tool said: ${output}`);
    assert.equal(
      messages(resumed, E.CONVERSATION_MESSAGE_DELTA).map((d) => d.content).join(""),
      `tool said: ${output}`,
    );
    assert.ok((chats(resumed, E.CONVERSATION_CHAT_COMPLETED)[0]?.usage?.token_count ?? 0) > 0);

    const said = await sdk.chat.messages.list(waiting.conversation_id, waiting.id);
    assert.deepEqual(
      withoutVerbose(said).map((m) => m.type),
      ["function_call", "answer"],
    );
    assert.equal(withoutVerbose(said)[1]?.content, `tool said: ${output}`);

    // The chat no longer waits: submitting again is 409/4300.
    await assert.rejects(
      sdk.chat
        .submitToolOutputs({
          conversation_id: waiting.conversation_id,
          chat_id: waiting.id,
          tool_outputs: [{ tool_call_id: call.id, output }],
          stream: false,
        })
        .next(),
      sdkError(APIError, 409, ErrorCode.Conflict),
    );
  });

  it("client tool, not streamed: submitToolOutputs({stream: false}) answers the chat, polled to 'tool said: ...'; chat.cancel on a waiting chat", async () => {
    const botId = await weatherBot();
    const userId = unique("u");
    const { chat, call } = await waitingChat(botId, userId);
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { city: "Shenzhen" });

    const output = `{"temperature":21,"sky":"${unique("clear")}"}`;
    // With stream: false the generator returns the chat at once (first next()).
    const first = await sdk.chat
      .submitToolOutputs({
        conversation_id: chat.conversation_id,
        chat_id: chat.id,
        tool_outputs: [{ tool_call_id: call.id, output }],
        stream: false,
      })
      .next();
    assert.equal(first.done, true, "no events without streaming");
    const resumed = first.value as CreateChatData;
    assert.equal(resumed.id, chat.id);
    assert.ok(["in_progress", "completed"].includes(resumed.status), resumed.status);
    const done = await pollChat(chat.conversation_id, chat.id);
    assert.equal(done.status, "completed");
    assert.equal(done.required_action, undefined);
    const said = await sdk.chat.messages.list(chat.conversation_id, chat.id);
    assert.equal(withoutVerbose(said).at(-1)?.type, "answer");
    assert.equal(withoutVerbose(said).at(-1)?.content, `tool said: ${output}`);

    // A second chat waiting for the tool, canceled.
    const second = await waitingChat(botId, userId);
    const canceled = await sdk.chat.cancel(second.chat.conversation_id, second.chat.id);
    assert.equal(canceled.id, second.chat.id);
    assert.equal(canceled.status, "canceled");
    assert.equal((await pollChat(second.chat.conversation_id, second.chat.id)).status, "canceled");
    await assert.rejects(
      sdk.chat.cancel(second.chat.conversation_id, second.chat.id),
      sdkError(APIError, 409, ErrorCode.Conflict),
    );
    await assert.rejects(
      sdk.chat
        .submitToolOutputs({
          conversation_id: second.chat.conversation_id,
          chat_id: second.chat.id,
          tool_outputs: [{ tool_call_id: second.call.id, output: "late" }],
          stream: false,
        })
        .next(),
      sdkError(APIError, 409, ErrorCode.Conflict),
    );
  });

  it("variables: setKeywordMemory in a chat is read back by variables.retrieve; variables.update", async () => {
    const bot = await fx.bot({
      variables: [
        { keyword: "name", default: "nobody", description: "The user's name.", show_in_prompt: true },
        { keyword: "city", default: "", description: "Where the user lives." },
      ],
    });
    const userId = unique("var-user");
    const events = await collect(
      sdk.chat.stream({
        bot_id: bot.id,
        user_id: userId,
        additional_messages: [user('#call setKeywordMemory {"data":[{"keyword":"name","value":"Ada"}]}')],
      }),
    );
    // The memory tool runs in the server: function_call, tool_response, then the answer.
    assert.match(
      shape(events),
      /^created,in_progress,function_call,tool_response,(delta,)+answer,(verbose,)?completed,done$/,
      shape(events),
    );
    const done = withoutVerbose(messages(events, E.CONVERSATION_MESSAGE_COMPLETED));
    assert.deepEqual(
      done.map((m) => m.type),
      ["function_call", "tool_response", "answer"],
    );
    assert.equal(done[2]?.content, `tool said: ${done[1]?.content}`, "the model got the memory tool's result");
    const fn = JSON.parse(done[0]?.content ?? "{}") as { name?: string; arguments?: unknown };
    assert.equal(fn.name, "setKeywordMemory");
    assert.deepEqual(fn.arguments, { data: [{ keyword: "name", value: "Ada" }] });

    const name = await sdk.variables.retrieve({ bot_id: bot.id, connector_uid: userId, keywords: ["name"] });
    assert.equal(name.items.length, 1);
    const [ada] = name.items;
    assert.equal(ada?.keyword, "name");
    assert.equal(ada?.value, "Ada");
    assert.ok((ada?.create_time ?? 0) > 0);
    assert.ok((ada?.update_time ?? 0) >= (ada?.create_time ?? 0));
    const all = await sdk.variables.retrieve({ bot_id: bot.id, connector_uid: userId });
    assert.deepEqual(
      all.items.map((v) => [v.keyword, v.value]).sort(),
      [
        ["city", ""],
        ["name", "Ada"],
      ],
    );
    assert.equal(all.items.find((v) => v.keyword === "city")?.create_time, 0, "a default has times 0");

    // Another end user still has the defaults.
    const other = await sdk.variables.retrieve({ bot_id: bot.id, connector_uid: unique("other"), keywords: ["name", "city"] });
    assert.deepEqual(
      other.items.map((v) => [v.keyword, v.value, v.create_time]).sort(),
      [
        ["city", "", 0],
        ["name", "nobody", 0],
      ],
    );

    // Writing through the SDK.
    await sdk.variables.update({
      bot_id: bot.id,
      connector_uid: userId,
      data: [
        { keyword: "name", value: "Grace" },
        { keyword: "city", value: "Shenzhen" },
      ],
    });
    const now = await sdk.variables.retrieve({ bot_id: bot.id, connector_uid: userId, keywords: ["name", "city"] });
    assert.deepEqual(
      now.items.map((v) => [v.keyword, v.value]).sort(),
      [
        ["city", "Shenzhen"],
        ["name", "Grace"],
      ],
    );
    const consoleView = await fx.admin.bots.variables.get(bot.id, { user_id: userId });
    assert.equal(consoleView.items.find((v) => v.keyword === "name")?.value, "Grace", "the console sees the same values");

    // One keyword the bot does not define refuses the whole write.
    await assert.rejects(
      sdk.variables.update({
        bot_id: bot.id,
        connector_uid: userId,
        data: [
          { keyword: "name", value: "Mallory" },
          { keyword: "nope", value: "x" },
        ],
      }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /^data\[1\]\.keyword/),
    );
    const still = await sdk.variables.retrieve({ bot_id: bot.id, connector_uid: userId, keywords: ["name"] });
    assert.equal(still.items[0]?.value, "Grace");
  });

  it("a run that fails: the stream ends with conversation.chat.failed (last_error), then done; polling shows failed", async () => {
    const bot = await fx.deadBot();
    const events = await collect(sdk.chat.stream({ bot_id: bot.id, user_id: unique("u"), additional_messages: [user("hi")] }));
    assert.equal(shape(events), "created,in_progress,failed,done");
    const [failed] = chats(events, E.CONVERSATION_CHAT_FAILED);
    assert.ok(failed);
    assert.equal(failed.status, "failed");
    assert.equal(failed.last_error?.code, ErrorCode.Internal);
    // The end user reads the apology without internal ids; the log id is in X-Tt-Logid.
    assert.equal(failed.last_error?.msg, "The model is unavailable right now; please try again.");
    assert.equal(typeof failed.failed_at, "number");
    const polled = await pollChat(failed.conversation_id, failed.id);
    assert.equal(polled.status, "failed");
    assert.deepEqual(polled.last_error, failed.last_error);

    const started = await sdk.chat.create({ bot_id: bot.id, user_id: unique("u"), additional_messages: [user("hi")] });
    const chat = await pollChat(started.conversation_id, started.id);
    assert.equal(chat.status, "failed");
    assert.equal(chat.last_error?.code, ErrorCode.Internal);
  });

  it("bots.retrieve: workflow_info_list names the workflows the bot binds (published and draft)", async () => {
    const w = await fx.workflow(
      {
        nodes: [
          { id: "start", type: "start", outputs: [{ name: "city", type: "string", required: true }] },
          { id: "end", type: "end", inputs: { city: { ref: { node: "start", path: "city" } } } },
        ],
        edges: [{ from: "start", to: "end" }],
      },
      { description: "echoes a city" },
    );
    const bot = await fx.bot({ workflows: [{ workflow_id: w.id }] });
    for (const isPublished of [true, false]) {
      const got = await sdk.bots.retrieveNew(bot.id, { is_published: isPublished });
      assert.deepEqual(
        got.workflow_info_list,
        [{ id: w.id, name: w.name, description: "echoes a city", icon_url: "" }],
        `is_published=${isPublished}`,
      );
    }
    const old = await sdk.bots.retrieve({ bot_id: bot.id });
    assert.equal(old.workflow_info_list[0]?.id, w.id);
  });

  it("errors: an unknown bot is NotFoundError 4200, an unpublished one BadRequestError 4000", async () => {
    const unknown = "999999999999";
    await assert.rejects(
      sdk.chat.create({ bot_id: unknown, user_id: "u", additional_messages: [user("hi")] }),
      sdkError(NotFoundError, 404, ErrorCode.NotFound),
    );
    await assert.rejects(sdk.bots.retrieve({ bot_id: unknown }), sdkError(NotFoundError, 404, ErrorCode.NotFound));

    const draft = await fx.bot({}, { publish: false });
    await assert.rejects(
      sdk.chat.create({ bot_id: draft.id, user_id: "u", additional_messages: [user("hi")] }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /publish/),
    );

    // Streaming: axios rejects a non-2xx answer before the SDK reads its body,
    // so Pergola answers a Coze SDK's streamed call that fails before the
    // stream with HTTP 200 and the JSON envelope, as Coze does: the SDK
    // yields it as an `error` event whose data has code and msg.
    const unknownEvents = await collect(sdk.chat.stream({ bot_id: unknown, user_id: "u", additional_messages: [user("hi")] }));
    assert.equal(unknownEvents.length, 1, JSON.stringify(unknownEvents));
    assert.equal(unknownEvents[0]?.event, E.ERROR);
    const unknownErr = unknownEvents[0]?.data as unknown as { code: number; msg: string };
    assert.equal(unknownErr.code, ErrorCode.NotFound);
    assert.match(unknownErr.msg, /not found/);
    const draftEvents = await collect(sdk.chat.stream({ bot_id: draft.id, user_id: "u", additional_messages: [user("hi")] }));
    assert.equal(draftEvents[0]?.event, E.ERROR);
    const draftErr = draftEvents[0]?.data as unknown as { code: number; msg: string };
    assert.equal(draftErr.code, ErrorCode.Invalid);
    assert.match(draftErr.msg, /publish/);
  });
});

// Our client against the admin API over other workspaces' resources
// (plugins, table rows, channels) and against channels: a bot's webhook
// and web channels, a signed inbound webhook event, the hosted web chat (its page and scripts)
// with an anonymous end user, deliveries and feedback. Each with bad input.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";

import { ErrorCode, PergolaClient, eventJSON, type Bot, type SSEEvent } from "../src/index.js";
import { env, NUMERIC_ID, unique } from "./env.js";
import { Fixture } from "./fixtures.js";
import { pergolaError } from "./assertions.js";

/** A new non-admin user with a team workspace of their own, signed in. */
async function plainUser(admin: PergolaClient): Promise<{ client: PergolaClient; workspaceId: string }> {
  const email = `${unique("fe-plain")}@example.com`;
  await admin.admin.users.create({ email, password: "fe-plain-password" });
  const client = new PergolaClient({ baseURL: env.baseURL });
  await client.login(email, "fe-plain-password");
  const ws = await client.workspaces.create({ name: unique("fe-team") });
  return { client, workspaceId: ws.id };
}

async function drain(events: AsyncIterable<SSEEvent>): Promise<SSEEvent[]> {
  const out: SSEEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe("client: admin over other workspaces", () => {
  const fx = new Fixture();
  const admin = fx.admin;
  let user: { client: PergolaClient; workspaceId: string };

  before(async () => {
    await fx.setup();
    user = await plainUser(admin);
  });
  after(() => fx.cleanup());

  it("admin.plugins: list and get another workspace's plugin, switch it and a tool off, delete it", async () => {
    const p = await user.client.plugins.create({
      workspace_id: user.workspaceId,
      kind: "openapi",
      name: "fe_admin_pets",
      server_url: "https://pets.example.com",
      openapi: {
        openapi: "3.0.3",
        info: { title: "Pets", version: "1" },
        paths: { "/pets": { get: { operationId: "listPets", responses: { "200": { description: "ok" } } } } },
      },
    });
    const page = await admin.admin.plugins.list({ workspace_id: user.workspaceId, page_size: 50 });
    assert.deepEqual(
      page.items.map((x) => x.id),
      [p.id],
    );
    assert.equal((await admin.admin.plugins.get(p.id)).name, "fe_admin_pets");
    assert.equal((await admin.admin.plugins.setEnabled(p.id, { enabled: false })).enabled, false);
    await admin.admin.plugins.setToolEnabled(p.id, "listPets", { enabled: false });
    await assert.rejects(
      admin.admin.plugins.setToolEnabled(p.id, "noSuchTool", { enabled: false }),
      pergolaError(404, ErrorCode.NotFound, /noSuchTool|tool/),
    );
    await admin.admin.plugins.remove(p.id);
    await assert.rejects(user.client.plugins.get(p.id), pergolaError(404, ErrorCode.NotFound, /plugin/));
  });

  it("admin.tables: list another workspace's table, add, change, list and delete its rows", async () => {
    const t = await user.client.tables.create({
      workspace_id: user.workspaceId,
      name: "fe_admin_notes",
      fields: [{ name: "note", type: "text" }],
    });
    const tables = await admin.admin.tables.list({ workspace_id: user.workspaceId });
    assert.deepEqual(
      tables.items.map((x) => x.id),
      [t.id],
    );
    const { ids } = await admin.admin.tables.rows.add(t.id, { rows: [{ values: { note: "by admin" } }] });
    assert.match(ids[0] ?? "", NUMERIC_ID);
    await admin.admin.tables.rows.update(t.id, ids[0]!, { values: { note: "changed by admin" } });
    const rows = await user.client.tables.rows.list(t.id);
    assert.deepEqual(
      rows.items.map((r) => r.values),
      [{ note: "changed by admin" }],
    );
    assert.equal((await admin.admin.tables.rows.list(t.id)).total, 1);
    await admin.admin.tables.rows.remove(t.id, ids[0]!);
    assert.equal((await user.client.tables.rows.list(t.id)).total, 0);
    await assert.rejects(
      admin.admin.tables.rows.add(t.id, { rows: [{ values: { nope: 1 } }] }),
      pergolaError(400, ErrorCode.Invalid, /nope/),
    );
  });

  it("a user who is not an administrator gets 403/4101 from every admin group", async () => {
    const forbidden = pergolaError(403, ErrorCode.Forbidden, /admin/);
    await assert.rejects(user.client.admin.plugins.list(), forbidden);
    await assert.rejects(user.client.admin.tables.list(), forbidden);
    await assert.rejects(user.client.admin.channels.list(), forbidden);
  });
});

describe("client: channels, inbound webhook, web chat, deliveries, feedback", () => {
  const fx = new Fixture();
  const c = fx.admin;
  const secret = "fe-webhook-secret-0123456789";
  let bot: Bot;
  let hook = "";
  let web = "";

  before(async () => {
    await fx.setup();
    bot = await fx.bot({}, { publish: false });
    hook = (await c.bots.channels.create(bot.id, { kind: "webhook", name: "fe hook", settings: { secret } })).id;
    web = (await c.bots.channels.create(bot.id, { kind: "web", name: "fe web", settings: {} })).id;
    await c.bots.publish(bot.id, { connector_ids: ["1024", hook, web] });
  });
  after(() => fx.cleanup());

  it("bots.channels: list, get, update; a channel without its required setting is 400", async () => {
    const list = await c.bots.channels.list(bot.id);
    assert.deepEqual(list.channels.map((x) => x.id).sort(), [hook, web].sort());
    const got = await c.bots.channels.get(bot.id, hook);
    assert.equal(got.kind, "webhook");
    assert.equal(got.published_version, 1);
    assert.notEqual(got.settings["secret"], secret, "secrets are masked");
    assert.equal((await c.bots.channels.update(bot.id, hook, { name: "fe hook 2" })).name, "fe hook 2");
    await assert.rejects(
      c.bots.channels.create(bot.id, { kind: "webhook", settings: {} }),
      pergolaError(400, ErrorCode.Invalid, /secret/),
    );
  });

  it("channels.webhook: a signed event is answered by the bot and listed as a delivery; a wrong secret is 401", async () => {
    const eventId = unique("evt");
    const answer = await c.channels.webhook(hook, secret, { event_id: eventId, user_id: "cust-1", text: "hello hook" });
    assert.equal(answer.event_id, eventId);
    assert.equal((answer as { text?: string }).text, "echo: hello hook");
    const deliveries = await c.bots.channels.deliveries(bot.id, hook);
    assert.equal(deliveries.deliveries[0]?.event_id, eventId);
    assert.equal(deliveries.deliveries[0]?.end_user, "webhook:cust-1");
    await assert.rejects(
      c.channels.webhook(hook, "not-the-secret-at-all", { event_id: unique("evt"), user_id: "x", text: "hi" }),
      pergolaError(401, ErrorCode.Unauthenticated, /signature/i),
    );
  });

  it("webchat: config, page and scripts, anonymous session, a streamed answer, history, reset; no token is 401", async () => {
    const anon = new PergolaClient({ baseURL: env.baseURL });
    assert.ok(await anon.webchat.config(web));
    const page = await anon.webchat.page(web);
    assert.match(page, /<html/i);
    const version = /\/chat\/assets\/widget\.js\?v=([\w.-]+)/.exec(page)?.[1];
    assert.ok(version, "the page loads the widget script by its version");
    const widget = await anon.webchat.widgetScript({ v: version });
    assert.ok((await anon.webchat.embedScript()).startsWith(widget), "embed.js is the widget, then the bubble");
    const session = await anon.webchat.session(web);
    assert.match(session.token, /./);
    const events = await drain(anon.webchat.send(web, session.token, { text: "hello web" }));
    assert.deepEqual(events.at(-1)?.event, "done", JSON.stringify(events));
    assert.equal(eventJSON<{ answer: string }>(events.at(-1)!)?.answer, "echo: hello web");
    assert.ok(
      events.some((e) => e.event === "delta"),
      "the answer streams in deltas",
    );
    const history = await anon.webchat.messages(web, session.token);
    assert.ok(history.messages.length >= 2, JSON.stringify(history));
    await anon.webchat.reset(web, session.token);
    assert.equal((await anon.webchat.messages(web, session.token)).messages.length, 0);
    await assert.rejects(
      anon.webchat.messages(web, "forged.token.value"),
      pergolaError(401, ErrorCode.Unauthenticated, /token/),
    );
  });

  it("admin.channels: an administrator disables a channel (409 on the web chat), enables it again", async () => {
    const all = await c.admin.channels.list();
    assert.ok(all.channels.some((x) => x.id === web));
    await c.admin.channels.update(web, { status: "disabled" });
    const anon = new PergolaClient({ baseURL: env.baseURL });
    await assert.rejects(anon.webchat.session(web), pergolaError(409, ErrorCode.Conflict, /disabled/));
    await c.admin.channels.update(web, { status: "active" });
    assert.match((await anon.webchat.session(web)).token, /./);
    await assert.rejects(
      c.admin.channels.update(web, { status: "paused" as never }),
      pergolaError(400, ErrorCode.Invalid, /status/),
    );
  });

  it("bots.feedback: feedback written through the Coze API is listed with its message", async () => {
    const conv = await c.coze.conversations.create({ bot_id: bot.id });
    const events = await drain(
      c.coze.chat.stream(
        { conversation_id: conv.id },
        {
          bot_id: bot.id,
          user_id: "fe-feedback",
          additional_messages: [{ role: "user", content: "rate me", content_type: "text" }],
        },
      ),
    );
    const answer = events
      .filter((e) => e.event === "conversation.message.completed")
      .map((e) => eventJSON<{ id: string; type: string }>(e))
      .find((m) => m?.type === "answer");
    assert.ok(answer, "the chat answered");
    await c.coze.conversations.messages.feedback.create(conv.id, answer.id, { feedback_type: "like" });
    const list = await c.bots.feedback(bot.id);
    const item = list.items.find((f) => f.answer.id === answer.id);
    assert.ok(item, JSON.stringify(list));
    assert.equal(item.feedback_type, "like");
    await assert.rejects(
      c.coze.conversations.messages.feedback.create(conv.id, answer.id, { feedback_type: "meh" as never }),
      pergolaError(400, ErrorCode.Invalid, /feedback_type/),
    );
  });
});

// Our client (PergolaClient) against the builder's resources of a live
// server: tables (rows, SQL, CSV export and import), plugins, apps and
// usage; each with a bad input answered 4xx with the envelope's code and a
// message naming what to fix.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";

import { ErrorCode, type Table } from "../src/index.js";
import { pergolaError } from "./assertions.js";
import { NUMERIC_ID, unique } from "./env.js";
import { Fixture } from "./fixtures.js";

const petsSpec = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1" },
  paths: {
    "/pets/{id}": {
      get: {
        operationId: "getPet",
        summary: "A pet by id",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "The pet" } },
      },
    },
  },
};

describe("client: tables, plugins, apps, usage", () => {
  const fx = new Fixture();
  const c = fx.admin;
  let table: Table;

  before(() => fx.setup());
  after(async () => {
    if (table) await c.tables.remove(table.id).catch(() => undefined);
    await fx.cleanup();
  });

  it("tables: create, rows add/list/update/remove, sql, CSV export and import", async () => {
    table = await c.tables.create({
      workspace_id: fx.workspaceId,
      name: unique("fe_table").replace(/-/g, "_"),
      mode: "shared",
      fields: [
        { name: "title", type: "text", required: true },
        { name: "stars", type: "integer" },
      ],
    });
    assert.match(table.id, NUMERIC_ID);
    assert.equal((await c.tables.get(table.id)).name, table.name);
    const listed = await c.tables.list({ workspace_id: fx.workspaceId, page_size: 100 });
    assert.ok(listed.items.some((t) => t.id === table.id));

    const added = await c.tables.rows.add(table.id, {
      rows: [{ values: { title: "a", stars: 1 } }, { values: { title: "b" } }],
    });
    assert.equal(added.ids.length, 2);
    await c.tables.rows.update(table.id, added.ids[0]!, { values: { stars: 5 } });
    await c.tables.rows.remove(table.id, added.ids[1]!);
    const rows = await c.tables.rows.list(table.id);
    assert.equal(rows.total, 1);
    assert.deepEqual(rows.items[0]?.values, { title: "a", stars: 5 });

    const res = await c.tables.sql(table.id, { sql: `SELECT title, stars FROM ${table.name}` });
    assert.deepEqual(res.rows, [["a", 5]]);

    const csv = await c.tables.exportCSV(table.id);
    assert.match(csv, /title/);
    assert.match(csv, /\ba\b.*\b5\b/);
    const imported = await c.tables.importCSV(table.id, "title,stars\nc,3\nd,not-a-number\n");
    assert.equal(imported.inserted, 1);
    assert.equal(imported.errors.length, 1);
    assert.equal(imported.errors[0]?.line, 3, "the bad row is reported by its line");
    assert.equal((await c.tables.rows.list(table.id)).total, 2);
  });

  it("tables: bad input is 400/4000 naming the field; a CSV naming an unknown column too", async () => {
    await assert.rejects(
      c.tables.create({ workspace_id: fx.workspaceId, name: "bad name!", fields: [{ name: "x", type: "text" }] }),
      pergolaError(400, ErrorCode.Invalid, /name/),
    );
    await assert.rejects(
      c.tables.rows.add(table.id, { rows: [{ values: { stars: 1 } }] }),
      pergolaError(400, ErrorCode.Invalid, /title/),
    );
    await assert.rejects(c.tables.importCSV(table.id, "nope\n1\n"), pergolaError(400, ErrorCode.Invalid, /nope/));
    await assert.rejects(c.tables.exportCSV("999999999"), pergolaError(404, ErrorCode.NotFound, /table/));
  });

  it("plugins: create from an OpenAPI document, get, list, publish, versions, remove; a broken document is 400", async () => {
    const p = await c.plugins.create({
      workspace_id: fx.workspaceId,
      kind: "openapi",
      name: unique("fe_pets").replace(/-/g, "_"),
      openapi: petsSpec,
      server_url: "https://pets.example.com",
    });
    try {
      assert.match(p.id, NUMERIC_ID);
      assert.deepEqual(
        p.tools.map((t) => t.name),
        ["getPet"],
      );
      assert.equal((await c.plugins.get(p.id)).name, p.name);
      const listed = await c.plugins.list({ workspace_id: fx.workspaceId, page_size: 100 });
      assert.ok(listed.items.some((x) => x.id === p.id));
      await c.plugins.publish(p.id);
      const versions = await c.plugins.versions(p.id);
      assert.equal(versions.items[0]?.version, "1", "plugin versions are strings");
      assert.deepEqual(
        (await c.plugins.version(p.id, 1)).tools.map((t) => t.name),
        ["getPet"],
      );
    } finally {
      await c.plugins.remove(p.id);
    }
    await assert.rejects(c.plugins.get(p.id), pergolaError(404, ErrorCode.NotFound, /plugin/));
    const broken = { ...petsSpec, paths: { "/pets/{id}": { get: { operationId: "getPet", responses: {} } } } };
    await assert.rejects(
      c.plugins.create({
        workspace_id: fx.workspaceId,
        kind: "openapi",
        name: "fe_broken",
        openapi: broken,
        server_url: "https://x.example.com",
      }),
      pergolaError(400, ErrorCode.Invalid, /openapi/),
    );
  });

  it("apps: create, get, update, list, remove; a nameless app is 400", async () => {
    const a = await c.apps.create({ workspace_id: fx.workspaceId, name: unique("fe_app").replace(/-/g, "_") });
    try {
      assert.match(a.id, NUMERIC_ID);
      await c.apps.update(a.id, { name: a.name, description: "changed" });
      assert.equal((await c.apps.get(a.id)).description, "changed");
      const listed = await c.apps.list({ workspace_id: fx.workspaceId, page_size: 100 });
      assert.ok(listed.items.some((x) => x.id === a.id));
    } finally {
      await c.apps.remove(a.id);
    }
    await assert.rejects(c.apps.get(a.id), pergolaError(404, ErrorCode.NotFound, /app/));
    await assert.rejects(
      c.apps.create({ workspace_id: fx.workspaceId, name: "" }),
      pergolaError(400, ErrorCode.Invalid, /name/),
    );
  });

  it("usage: a chat shows up in the workspace's report; a bad group_by is 400", async () => {
    const bot = await fx.bot();
    const events = c.bots.debugChat(bot.id, { user_id: "u1", message: "hi" });
    for await (const e of events) if (e.event === "done") break;
    const report = await c.usage.get({ workspace_id: fx.workspaceId, bot_id: bot.id, group_by: "bot" });
    assert.equal(report.items.length, 1);
    assert.equal(report.items[0]?.bot_id, bot.id);
    assert.ok((report.items[0]?.chats ?? 0) >= 1, JSON.stringify(report));
    await assert.rejects(
      c.usage.get({ workspace_id: fx.workspaceId, group_by: "planet" as never }),
      pergolaError(400, ErrorCode.Invalid, /group_by/),
    );
  });
});

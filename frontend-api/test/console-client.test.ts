// Our client (PergolaClient) against the live console and admin API.
// The steps of each describe run in order and share state.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";

import { ErrorCode, PergolaClient, PergolaError, paginate, type NewToken, type Workspace } from "../src/index.js";
import { env, LOG_ID, NUMERIC_ID, unique } from "./env.js";

/** Asserts err is a PergolaError with this HTTP status and code (and msg pattern). */
function pergolaError(status: number, code: number, msg?: RegExp) {
  return (err: unknown): true => {
    assert.ok(err instanceof PergolaError, `expected PergolaError, got ${String(err)}`);
    assert.equal(err.status, status, err.message);
    assert.equal(err.code, code, err.message);
    assert.match(err.logId, LOG_ID, "the log id comes from X-Tt-Logid");
    if (msg) assert.match(err.msg, msg);
    return true;
  };
}

const now = () => Math.floor(Date.now() / 1000);

describe("console API: session, PAT, workspace, members, revocation", () => {
  const client = new PergolaClient({ baseURL: env.baseURL });
  let pat: NewToken;
  let patClient: PergolaClient;
  let ws: Workspace;

  it("login with a wrong password answers 401/4100", async () => {
    await assert.rejects(client.login(env.adminEmail, "not-the-password"), pergolaError(401, ErrorCode.Unauthenticated));
    assert.equal(client.token, undefined, "a failed login leaves the client without a token");
  });

  it("login with the admin password opens a session the client then uses", async () => {
    const s = await client.login(env.adminEmail, env.adminPassword);
    assert.match(s.token, /^ses_/);
    assert.ok(s.expires_at > now());
    assert.equal(s.user.email, env.adminEmail);
    assert.equal(s.user.is_admin, true);
    assert.match(s.user.id, NUMERIC_ID);
    assert.equal(client.token, s.token);
    const me = await client.me();
    assert.deepEqual(me, s.user);
    assert.match(client.lastMeta?.logId ?? "", LOG_ID);
  });

  it("tokens.create returns the PAT secret once; tokens.list shows only its hint", async () => {
    pat = await client.tokens.create({ name: unique("fe-pat"), scopes: ["all"], expires_in_days: 1 });
    assert.equal(client.lastMeta?.status, 201);
    assert.match(pat.token, /^pat_/);
    assert.match(pat.id, NUMERIC_ID);
    assert.deepEqual(pat.scopes, ["all"]);
    assert.ok(pat.expires_at > now() && pat.expires_at <= now() + 86400 + 60);
    assert.equal(pat.revoked_at, 0);

    const list = await client.tokens.list();
    assert.equal(list.total, list.items.length);
    const listed = list.items.find((t) => t.id === pat.id);
    assert.ok(listed, "the new token is listed");
    assert.equal(listed.token, undefined, "the secret is never listed");
    assert.ok(pat.token.startsWith(listed.hint.replace(/…$/, "")), `hint ${listed.hint}`);
    patClient = client.withToken(pat.token);
  });

  it("workspaces.create/get/update/list with the PAT", async () => {
    const name = unique("fe-team");
    ws = await patClient.workspaces.create({ name, description: "made by frontend-api tests" });
    assert.equal(patClient.lastMeta?.status, 201);
    assert.match(ws.id, NUMERIC_ID);
    assert.equal(ws.name, name);
    assert.equal(ws.kind, "team");
    assert.equal(ws.role, "owner");
    assert.equal(ws.owner_id, (await patClient.me()).id);

    const got = await patClient.workspaces.get(ws.id);
    assert.deepEqual(got, ws);

    const renamed = await patClient.workspaces.update(ws.id, { name: name + "-renamed" });
    assert.equal(renamed.name, name + "-renamed");
    assert.equal(renamed.description, "made by frontend-api tests", "absent fields stay");

    const all: Workspace[] = [];
    for await (const w of paginate((q) => patClient.workspaces.list(q), 1)) all.push(w);
    const listed = all.find((w) => w.id === ws.id);
    assert.equal(listed?.name, name + "-renamed");
    assert.equal(listed?.role, "owner");
    assert.equal(all.filter((w) => w.kind === "personal").length, 1);
  });

  it("members.add of an unregistered e-mail answers 400/4000 naming email", async () => {
    await assert.rejects(
      patClient.members.add(ws.id, { email: `${unique("nobody")}@example.com`, role: "member" }),
      pergolaError(400, ErrorCode.Invalid, /^email\b/),
    );
    await assert.rejects(patClient.members.add(ws.id, { email: "" }), pergolaError(400, 4000, /^email: is required/));
  });

  it("members.add/list/update/remove a registered user", async () => {
    const email = `${unique("fe-member")}@example.com`;
    const created = await patClient.admin.users.create({ email, name: "FE member", password: "fe-member-password" });
    assert.equal(created.user.email, email);
    assert.equal(created.workspace.kind, "personal");
    assert.equal(created.workspace.owner_id, created.user.id);

    const m = await patClient.members.add(ws.id, { email });
    assert.equal(patClient.lastMeta?.status, 201);
    assert.equal(m.user_id, created.user.id);
    assert.equal(m.role, "member", "role defaults to member");
    await assert.rejects(patClient.members.add(ws.id, { email }), pergolaError(409, ErrorCode.Conflict));

    let members = await patClient.members.list(ws.id);
    assert.equal(members.total, 2);
    assert.deepEqual(members.items.map((x) => x.role).sort(), ["member", "owner"]);

    const up = await patClient.members.update(ws.id, m.user_id, { role: "admin" });
    assert.deepEqual(up, { user_id: m.user_id, role: "admin" });

    await patClient.members.remove(ws.id, m.user_id);
    members = await patClient.members.list(ws.id);
    assert.deepEqual(members.items.map((x) => x.role), ["owner"]);
  });

  it("tokens.revoke stops the PAT at once: 401/4100", async () => {
    const r = await client.tokens.revoke(pat.id);
    assert.deepEqual(r, { id: pat.id });
    await assert.rejects(patClient.me(), pergolaError(401, ErrorCode.Unauthenticated));
    await assert.rejects(patClient.workspaces.list(), pergolaError(401, 4100));
    const listed = (await client.tokens.list()).items.find((t) => t.id === pat.id);
    assert.ok(listed && listed.revoked_at >= now() - 60, "the list shows it revoked");
    await client.tokens.revoke(pat.id); // revoking again is fine
    const again = (await client.tokens.list()).items.find((t) => t.id === pat.id);
    assert.equal(again?.revoked_at, listed.revoked_at, "the first revocation time stays");
  });

  it("workspaces.remove deletes a team workspace but never the personal one", async () => {
    await client.workspaces.remove(ws.id);
    await assert.rejects(client.workspaces.get(ws.id), (err: unknown) => {
      assert.ok(err instanceof PergolaError);
      assert.ok([403, 404].includes(err.status), err.message);
      return true;
    });
    const personal = (await client.workspaces.list()).items.find((w) => w.kind === "personal");
    assert.ok(personal);
    await assert.rejects(client.workspaces.remove(personal.id), pergolaError(409, ErrorCode.Conflict));
  });

  it("logout ends the session: 401/4100 afterwards", async () => {
    const session = client.token as string;
    await client.logout();
    assert.equal(client.token, undefined);
    await assert.rejects(client.withToken(session).me(), pergolaError(401, 4100));
  });
});

describe("admin API", () => {
  const admin = new PergolaClient({ baseURL: env.baseURL, token: env.token });
  const modelId = unique("fe-model");
  let modelCreated = false;

  after(async () => {
    if (modelCreated) await admin.admin.models.remove(modelId).catch(() => undefined);
  });

  it("users: list, get, update", async () => {
    const email = `${unique("fe-user")}@example.com`;
    const { user } = await admin.admin.users.create({ email, password: "fe-user-password" });
    assert.equal(user.name, email.split("@")[0], "name defaults to the e-mail's local part");
    assert.equal(user.is_admin, false);

    const page = await admin.admin.users.list({ page_size: 200 });
    assert.ok(page.total >= 2);
    assert.ok(page.items.some((u) => u.id === user.id));

    assert.deepEqual(await admin.admin.users.get(user.id), user);
    const renamed = await admin.admin.users.update(user.id, { name: "Renamed" });
    assert.equal(renamed.name, "Renamed");
    await assert.rejects(admin.admin.users.get("999999999"), pergolaError(404, ErrorCode.NotFound));
    await assert.rejects(admin.admin.users.get("abc"), pergolaError(400, ErrorCode.Invalid, /^id\b/));
    await assert.rejects(
      admin.admin.users.create({ email, password: "fe-user-password" }),
      pergolaError(409, ErrorCode.Conflict),
    );

    const ws = await admin.admin.workspaces.list({ page_size: 200 });
    const theirs = ws.items.find((w) => w.owner_id === user.id);
    assert.equal(theirs?.kind, "personal");
    assert.equal(theirs?.role, undefined, "admin workspace lists carry no role");
  });

  it("a non-admin gets 403/4101 from the admin API", async () => {
    const email = `${unique("fe-plain")}@example.com`;
    await admin.admin.users.create({ email, password: "fe-plain-password" });
    const plain = new PergolaClient({ baseURL: env.baseURL });
    await plain.login(email, "fe-plain-password");
    await assert.rejects(plain.admin.users.list(), pergolaError(403, ErrorCode.Forbidden));
    await assert.rejects(plain.admin.models.list(), pergolaError(403, ErrorCode.Forbidden));
  });

  it("models: create, get, update, console list, delete; the key never comes back", async () => {
    const m = await admin.admin.models.create({
      id: modelId,
      provider: "openai",
      model: "gpt-fe-test",
      base_url: "http://127.0.0.1:9/v1",
      api_key: "sk-frontend-api-test",
      capabilities: { tools: true, vision: false, json: true },
      context_window: 8192,
    });
    modelCreated = true;
    assert.equal(m.id, modelId);
    assert.equal(m.name, modelId, "name defaults to the id");
    assert.equal(m.source, "admin");
    assert.equal(m.enabled, true);
    assert.equal(m.has_api_key, true);
    assert.ok(!JSON.stringify(m).includes("sk-frontend-api-test"), "the key is never returned");
    assert.deepEqual(await admin.admin.models.get(modelId), m);

    assert.ok((await admin.models.list()).items.some((x) => x.id === modelId), "enabled models are listed");
    const off = await admin.admin.models.update(modelId, { enabled: false, name: "FE test model" });
    assert.equal(off.enabled, false);
    assert.equal(off.name, "FE test model");
    assert.ok(!(await admin.models.list()).items.some((x) => x.id === modelId), "disabled models are not");
    assert.ok((await admin.admin.models.list()).items.some((x) => x.id === modelId), "but admins see them");

    await admin.admin.models.remove(modelId);
    modelCreated = false;
    await assert.rejects(admin.admin.models.get(modelId), pergolaError(404, ErrorCode.NotFound));
  });

  it("an unknown route answers 404/4200 in the envelope", async () => {
    await assert.rejects(
      admin.transport.request({ method: "GET", path: "/api/no-such-route" }),
      pergolaError(404, ErrorCode.NotFound, /no route/),
    );
  });
});

// Coze's official JS SDK, @coze/api, UNCHANGED, against Pergola's
// Coze-compatible surface. Only `token` and `baseURL` are given.
//
// What @coze/api 1.3.9 offers here (read from node_modules/@coze/api/dist):
// - `client.workspaces.list(params?: {page_num?, page_size?, enterprise_id?,
//   user_id?, coze_account_id?})` -> GET /v1/workspaces?<params> (query
//   built by hand as `k=v&...`, not URL-encoded, null/undefined skipped).
//   Resolves to the envelope's `data`: {workspaces: WorkSpace[], total_count}
//   where WorkSpace is {id, name, icon_url, role_type, workspace_type,
//   enterprise_id?}, all strings. The SDK documents page_size default 10,
//   max 50, but sends nothing unless asked.
// - `client.users.me()` -> GET /v1/users/me, resolves to `data`:
//   {user_id, user_name, nick_name, avatar_url}, all strings.
// - There is no workspace-members, workspace-create or token API in the SDK.
// - Errors: every request goes through axios. A non-2xx answer makes axios
//   throw and the SDK converts it with APIError.generate(status, body, ...):
//   400 or code 4000 -> BadRequestError, 401 or code 4100 ->
//   AuthenticationError, 403 or 4101 -> PermissionDeniedError, 404 or 4200
//   -> NotFoundError, 429 or 4013 -> RateLimitError, >= 500 ->
//   InternalServerError. Each is an APIError with `status`, `code` and `msg`
//   from the JSON body, `logid` from body.detail.logid or else the
//   `x-tt-logid` response header, and `message` "code: 4100, msg: ...,
//   logid: ...". A 2xx JSON answer with a non-zero `code` is thrown the same
//   way, so the SDK never needs the HTTP status (Pergola sends both).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { APIError, AuthenticationError, BadRequestError, CozeAPI, InternalServerError } from "@coze/api";

import { PergolaClient } from "../src/index.js";
import { env, LOG_ID, NUMERIC_ID, unique } from "./env.js";

function coze(token: string): CozeAPI {
  return new CozeAPI({ token, baseURL: env.baseURL });
}

/** Asserts err is the SDK's APIError of this class, code and HTTP status, with a log id. */
function sdkError(cls: typeof APIError, code: number, status: number, msg?: RegExp) {
  return (err: unknown): true => {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    assert.ok(err instanceof APIError);
    assert.equal(err.code, code, err.message);
    assert.equal(err.status, status, err.message);
    assert.match(err.logid ?? "", LOG_ID, "the SDK reads X-Tt-Logid into err.logid");
    assert.match(err.message, new RegExp(`code: ${code}`));
    if (msg) assert.match(err.msg ?? "", msg);
    return true;
  };
}

describe("@coze/api against the Coze-compatible surface", () => {
  const admin = new PergolaClient({ baseURL: env.baseURL, token: env.token });
  const sdk = coze(env.token);

  it("users.me returns the bootstrap admin with a string user_id", async () => {
    const me = await sdk.users.me();
    assert.equal(typeof me.user_id, "string");
    assert.match(me.user_id, NUMERIC_ID);
    assert.equal(me.user_name, env.adminEmail);
    assert.equal(typeof me.nick_name, "string");
    assert.equal(me.avatar_url, "");
    const consoleMe = await admin.me();
    assert.equal(me.user_id, consoleMe.id, "the same user id on both surfaces");
  });

  it("workspaces.list returns the personal workspace: string ids, owner, personal", async () => {
    const page = await sdk.workspaces.list();
    assert.equal(typeof page.total_count, "number");
    assert.ok(Array.isArray(page.workspaces));
    assert.ok(page.total_count >= 1 && page.workspaces.length >= 1);
    for (const ws of page.workspaces) {
      assert.equal(typeof ws.id, "string");
      assert.match(ws.id, NUMERIC_ID);
      assert.equal(typeof ws.name, "string");
      assert.equal(typeof ws.icon_url, "string");
      assert.ok(["owner", "admin", "member"].includes(ws.role_type), ws.role_type);
      assert.ok(["personal", "team"].includes(ws.workspace_type), ws.workspace_type);
    }
    const personal = page.workspaces.filter((w) => w.workspace_type === "personal");
    assert.equal(personal.length, 1, "exactly one personal workspace");
    assert.equal(personal[0]!.role_type, "owner");

    const consoleList = await admin.workspaces.list({ page_size: 100 });
    const consolePersonal = consoleList.items.find((w) => w.kind === "personal");
    assert.equal(personal[0]!.id, consolePersonal?.id, "the same workspace id on both surfaces");
  });

  it("workspaces.list pages with page_num/page_size and rejects page_size over 50", async () => {
    const first = await sdk.workspaces.list({ page_num: 1, page_size: 1 });
    assert.equal(first.workspaces.length, 1);
    const beyond = await sdk.workspaces.list({ page_num: first.total_count + 1, page_size: 1 });
    assert.deepEqual(beyond.workspaces, []);
    assert.equal(beyond.total_count, first.total_count);
    await assert.rejects(
      sdk.workspaces.list({ page_size: 51 }),
      sdkError(BadRequestError, 4000, 400, /page_size/),
    );
  });

  it("audio and templates, not part of Pergola, throw a clear not-supported error (501, code 5010)", async () => {
    // The SDK's InternalServerError says status 500 for any 5xx; code and msg are the server's.
    await assert.rejects(sdk.audio.voices.list(), sdkError(InternalServerError, 5010, 500, /^not supported: Pergola has no voice features/));
    await assert.rejects(
      sdk.templates.duplicate("7", { workspace_id: "1" }),
      sdkError(InternalServerError, 5010, 500, /^not supported: Pergola has no template store/),
    );
  });

  it("a wrong token makes the SDK throw AuthenticationError with code 4100", async () => {
    await assert.rejects(coze("pat_wrong_token").workspaces.list(), sdkError(AuthenticationError, 4100, 401));
    await assert.rejects(coze("pat_wrong_token").users.me(), sdkError(AuthenticationError, 4100, 401));
  });

  describe("roles seen through the SDK", () => {
    const password = "member-pass-" + unique("p");
    const email = `${unique("sdk-member")}@example.com`;
    let teamId = "";
    let memberToken = "";

    before(async () => {
      const team = await admin.workspaces.create({ name: unique("sdk-team") });
      teamId = team.id;
      await admin.admin.users.create({ email, name: "SDK member", password });
      await admin.members.add(teamId, { email, role: "member" });
      const member = new PergolaClient({ baseURL: env.baseURL });
      await member.login(email, password);
      memberToken = (await member.tokens.create({ name: "sdk", expires_in_days: 1 })).token;
    });

    after(async () => {
      if (teamId) await admin.workspaces.remove(teamId);
    });

    it("the owner sees the team workspace as owner/team", async () => {
      const page = await sdk.workspaces.list({ page_size: 50 });
      const team = page.workspaces.find((w) => w.id === teamId);
      assert.ok(team, "the new team workspace is listed");
      assert.equal(team.role_type, "owner");
      assert.equal(team.workspace_type, "team");
    });

    it("a member's PAT sees its personal workspace and the team one as member", async () => {
      const page = await coze(memberToken).workspaces.list();
      assert.equal(page.total_count, 2);
      const byType = Object.fromEntries(page.workspaces.map((w) => [w.workspace_type, w]));
      assert.equal(byType["personal"]?.role_type, "owner");
      assert.equal(byType["team"]?.id, teamId);
      assert.equal(byType["team"]?.role_type, "member");
      const me = await coze(memberToken).users.me();
      assert.equal(me.user_name, email);
      assert.equal(me.nick_name, "SDK member");
    });

    it("a revoked PAT makes the SDK throw AuthenticationError with code 4100", async () => {
      const t = await admin.tokens.create({ name: unique("sdk-revoke"), expires_in_days: 1 });
      assert.ok((await coze(t.token).users.me()).user_id);
      await admin.tokens.revoke(t.id);
      await assert.rejects(coze(t.token).users.me(), sdkError(AuthenticationError, 4100, 401));
    });
  });
});

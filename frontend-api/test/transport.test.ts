// The client's transport against a local stub server (no Pergola needed):
// envelope unwrapping, error mapping, URL building; plus compile-time checks
// that the methods are typed from the generated schema.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { PergolaClient, PergolaError, type Body, type Data, type Query } from "../src/index.js";

// ---- compile-time: types come from the idl ----------------------------------
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | void {}
assertType<Equal<Data<"/api/workspaces", "post">["id"], string>>();
assertType<Equal<Data<"/api/workspaces", "post">["kind"], "personal" | "team">>();
assertType<Equal<Body<"/api/workspaces/{id}/members", "post">["role"], "owner" | "admin" | "member" | undefined>>();
assertType<Equal<Body<"/api/me", "get">, never>>();
assertType<Equal<Query<"/api/me", "get">, never>>();
assertType<Equal<Data<"/api/tokens", "get">["items"][number]["scopes"][number], Body<"/api/tokens", "post">["scopes"] extends (infer S)[] | undefined ? S : never>>();
// @ts-expect-error: a workspace has no `nope` field
((w: Data<"/api/workspaces/{id}", "get">) => w.nope);
// @ts-expect-error: name is required to create a workspace
((c: PergolaClient) => c.workspaces.create({ description: "x" }));
// Every surface's group is typed from the schema too.
type Ret<F> = F extends (...a: never[]) => Promise<infer R> ? R : never;
assertType<Equal<Ret<PergolaClient["openai"]["models"]["list"]>["object"], "list">>();
assertType<Equal<Ret<PergolaClient["coze"]["workflows"]["runs"]["create"]>["execute_id"], string>>();
assertType<Equal<Ret<PergolaClient["tables"]["exportCSV"]>, string>>();
assertType<Equal<Ret<PergolaClient["usage"]["get"]>, Data<"/api/usage", "get">>>();
// @ts-expect-error: a table field has a type from the idl's enum
((c: PergolaClient) => c.tables.create({ workspace_id: "1", name: "t", fields: [{ name: "x", type: "blob" }] }));
// @ts-expect-error: a channel's kind is one of the idl's kinds
((c: PergolaClient) => c.bots.channels.create(1, { kind: "fax", settings: {} }));

// ---- runtime ------------------------------------------------------------------
interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  contentType: string | undefined;
  body: string;
}

describe("transport (stub server)", () => {
  let server: Server;
  let base = "";
  const seen: Seen[] = [];
  let reply: (req: IncomingMessage) => { status: number; body: string; type?: string } = () => ({
    status: 200,
    body: '{"code":0,"msg":"","data":{}}',
  });

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({
          method: req.method ?? "",
          url: req.url ?? "",
          auth: req.headers.authorization,
          contentType: req.headers["content-type"],
          body,
        });
        const r = reply(req);
        res.writeHead(r.status, { "Content-Type": r.type ?? "application/json", "X-Tt-Logid": "stublogid0001" });
        res.end(r.body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((ok) => server.close(() => ok())));

  it("unwraps data, sends the bearer token and JSON, fills and escapes path params", async () => {
    reply = () => ({ status: 201, body: '{"code":0,"msg":"","data":{"user_id":"7","role":"admin"}}' });
    const c = new PergolaClient({ baseURL: base, token: "pat_x" });
    const out = await c.members.update("1/2", 7, { role: "admin" });
    assert.deepEqual(out, { user_id: "7", role: "admin" });
    assert.deepEqual(c.lastMeta, { status: 201, logId: "stublogid0001" });
    const s = seen.at(-1)!;
    assert.equal(s.method, "PATCH");
    assert.equal(s.url, "/api/workspaces/1%2F2/members/7", "the trailing slash of baseURL is dropped");
    assert.equal(s.auth, "Bearer pat_x");
    assert.equal(s.contentType, "application/json");
    assert.equal(s.body, '{"role":"admin"}');
  });

  it("builds the query and sends no body or token when there is none", async () => {
    reply = () => ({ status: 200, body: '{"code":0,"msg":"","data":{"items":[],"total":0}}' });
    const c = new PergolaClient({ baseURL: base, token: async () => undefined });
    await c.workspaces.list({ page_num: 2, page_size: 10 });
    const s = seen.at(-1)!;
    assert.equal(s.url, "/api/workspaces?page_num=2&page_size=10");
    assert.equal(s.auth, undefined);
    assert.equal(s.contentType, undefined);
    assert.equal(s.body, "");
  });

  it("an empty data is {}", async () => {
    reply = () => ({ status: 200, body: '{"code":0,"msg":""}' });
    assert.deepEqual(await new PergolaClient({ baseURL: base }).workspaces.remove(1), {});
  });

  it("a failure envelope throws PergolaError with status, code, msg and logId", async () => {
    reply = () => ({ status: 400, body: '{"code":4000,"msg":"email: is required"}' });
    const err = await new PergolaClient({ baseURL: base }).members.add(1, { email: "" }).catch((e: unknown) => e);
    assert.ok(err instanceof PergolaError && err instanceof Error);
    assert.equal(err.status, 400);
    assert.equal(err.code, 4000);
    assert.equal(err.msg, "email: is required");
    assert.equal(err.logId, "stublogid0001");
    assert.equal(err.method, "POST");
    assert.equal(err.path, "/api/workspaces/1/members");
    assert.match(err.message, /HTTP 400, code 4000: email: is required \(logid stublogid0001\)/);
  });

  it("a non-zero code is a failure even with HTTP 200 (Coze semantics)", async () => {
    reply = () => ({ status: 200, body: '{"code":4101,"msg":"forbidden"}' });
    await assert.rejects(new PergolaClient({ baseURL: base }).me(), { name: "PergolaError", status: 200, code: 4101 });
  });

  it("an HTTP error without an envelope is code -1 with the body's start", async () => {
    reply = () => ({ status: 502, body: "<html>bad gateway</html>", type: "text/html" });
    await assert.rejects(new PergolaClient({ baseURL: base }).me(), (err: unknown) => {
      assert.ok(err instanceof PergolaError);
      assert.equal(err.status, 502);
      assert.equal(err.code, -1);
      assert.match(err.msg, /text\/html.*bad gateway/);
      return true;
    });
  });

  it("no answer at all is status 0, code -1", async () => {
    const c = new PergolaClient({ baseURL: "http://127.0.0.1:1" });
    await assert.rejects(c.me(), { name: "PergolaError", status: 0, code: -1 });
  });

  it("login stores the session token unless keepToken", async () => {
    reply = () => ({
      status: 200,
      body: '{"code":0,"msg":"","data":{"token":"ses_1","expires_at":1,"user":{"id":"1"}}}',
    });
    const c = new PergolaClient({ baseURL: base, token: "pat_old" });
    await c.login("a@b.c", "pw", { keepToken: true });
    assert.equal(c.token, "pat_old");
    await c.login("a@b.c", "pw");
    assert.equal(c.token, "ses_1");
    assert.equal(seen.at(-1)?.body, '{"email":"a@b.c","password":"pw"}');
    assert.equal(c.withToken("pat_y").token, "pat_y");
    assert.equal(c.token, "ses_1", "withToken leaves the original alone");
  });
});

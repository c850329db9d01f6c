// The package as a user gets it: `npm pack` (of the dist/ that `npm test`
// has just built), installed from the tarball into an empty project, then
// imported by node and type-checked by tsc as a consumer's code would be.
// Needs no server.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
// dist/test/pack.test.js -> the package directory.
const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsc = join(pkgDir, "node_modules", "typescript", "bin", "tsc");

// A consumer: fetch is stubbed so that the installed code's transport,
// envelope unwrapping and both error classes run for real.
const consumerJS = `
import { PergolaClient, PergolaError, OpenAIError, ErrorCode } from "@pergola/frontend-api";
const answers = {
  "/api/workspaces/7": [200, { code: 0, msg: "", data: { id: "7", name: "Team" } }],
  "/api/tables/8": [404, { code: 4200, msg: "table not found" }],
  "/v1/models/nope": [404, { error: { message: "no such model", type: "invalid_request_error", code: "model_not_found", param: "model" } }],
};
const fetch = async (url) => {
  const [status, body] = answers[new URL(url).pathname];
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "X-Tt-Logid": "log123456" } });
};
const c = new PergolaClient({ baseURL: "http://pergola.invalid", token: "pat_x", fetch });
const out = { ws: await c.workspaces.get(7) };
try { await c.tables.get(8); } catch (e) { out.pergola = [e instanceof PergolaError, e.status, e.code === ErrorCode.NotFound, e.msg]; }
try { await c.openai.models.retrieve("nope"); } catch (e) { out.openai = [e instanceof OpenAIError, e.status, e.code, e.param]; }
out.groups = Object.keys(c).filter((k) => typeof c[k] === "object" && k !== "transport").sort();
console.log(JSON.stringify(out));
`;

const consumerTS = `
import { PergolaClient, type Body, type Data, type Workspace } from "@pergola/frontend-api";
const c = new PergolaClient({ baseURL: "http://x" });
export async function f(): Promise<string> {
  const w: Workspace = await c.workspaces.get(1);
  const runs: Data<"/api/workflows/{id}/runs", "get"> = await c.workflows.runs(1);
  const models = await c.openai.models.list();
  // @ts-expect-error: a workspace needs a name
  await c.workspaces.create({});
  return w.name + runs.total + models.data.length;
}
// Minimal requests: what the idl leaves optional (stream, auto_save_history,
// store, content_type) stays optional in the generated types.
export async function minimal(): Promise<void> {
  await c.coze.chat.create({}, { bot_id: "1", user_id: "u", additional_messages: [{ role: "user", content: "hi" }] });
  await c.openai.chat.completions.create({ model: "1", messages: [{ role: "user", content: "hi" }] });
  await c.openai.responses.create({ model: "1", input: "hi" });
  const direct: Body<"/v3/chat", "post"> = { bot_id: "1", user_id: "u", additional_messages: [{ role: "user", content: "hi" }] };
  const completion: Body<"/v1/chat/completions", "post"> = { model: "1", messages: [] };
  void direct;
  void completion;
}
`;

describe("npm pack: the tarball installs and imports", () => {
  let tmp = "";
  let tarball = "";

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), "pergola-pack-"));
    // --ignore-scripts: `npm test` has just built dist/; prepack would rebuild it under the running tests.
    await run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", tmp], { cwd: pkgDir });
    const name = (await readdir(tmp)).find((n) => n.endsWith(".tgz"));
    assert.ok(name, "npm pack wrote a .tgz");
    tarball = join(tmp, name);
    const app = join(tmp, "app");
    await run("mkdir", ["-p", app]);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", tarball], { cwd: app });
  });
  after(() => rm(tmp, { recursive: true, force: true }));

  it("holds the compiled client and its declarations, not the tests or sources", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n").sort();
    for (const f of ["package/dist/src/index.js", "package/dist/src/index.d.ts", "package/dist/src/schema.d.ts"]) {
      assert.ok(files.includes(f), `${f} is packed`);
    }
    assert.ok(files.includes("package/dist/src/groups/coze.js"));
    assert.deepEqual(
      files.filter((f) => /\/test\/|\.ts$/.test(f) && !f.endsWith(".d.ts")),
      [],
      "no tests or sources",
    );
  });

  it("imports in node and calls through the installed transport", async () => {
    const app = join(tmp, "app");
    await writeFile(join(app, "main.mjs"), consumerJS);
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: app });
    const out = JSON.parse(stdout);
    assert.deepEqual(out.ws, { id: "7", name: "Team" });
    assert.deepEqual(out.pergola, [true, 404, true, "table not found"]);
    assert.deepEqual(out.openai, [true, 404, "model_not_found", "model"]);
    for (const g of ["admin", "apps", "bots", "coze", "openai", "plugins", "tables", "usage", "webchat", "workflows"]) {
      assert.ok(out.groups.includes(g), `group ${g} is there: ${out.groups}`);
    }
  });

  it("is publishable: not private, with its README, license and types", async () => {
    const { stdout } = await run("tar", ["-xzOf", tarball, "package/package.json"]);
    const pkg = JSON.parse(stdout);
    assert.equal(pkg.private, undefined, "not private");
    assert.ok(pkg.version && pkg.license && pkg.types && pkg.exports["."].types);
    const readme = (await run("tar", ["-xzOf", tarball, "package/README.md"])).stdout;
    assert.match(readme, /npm install/, "the README says how to install it");
  });

  it("type-checks a consumer against the packed .d.ts", async () => {
    const app = join(tmp, "app");
    await writeFile(join(app, "use.ts"), consumerTS);
    const compilerOptions = {
      noEmit: true,
      strict: true,
      // The package's declarations come from sources compiled under strict
      // (tsconfig.json); checking them again here, with lib.dom, takes a
      // minute on a busy machine.
      skipLibCheck: true,
      module: "nodenext",
      moduleResolution: "nodenext",
    };
    const tsconfig = { compilerOptions: { ...compilerOptions, target: "es2022", lib: ["es2022", "dom"], types: [] } };
    await writeFile(join(app, "tsconfig.json"), JSON.stringify({ ...tsconfig, files: ["use.ts"] }));
    const args = ["-p", "tsconfig.json"];
    await run(process.execPath, [tsc, ...args], { cwd: app }).catch((err: { stdout?: string }) => {
      assert.fail(`tsc rejected the consumer:\n${err.stdout ?? String(err)}`);
    });
  });
});

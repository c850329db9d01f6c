// Coze's official JS SDK, @coze/api, UNCHANGED (only `token` and
// `baseURL`), against Pergola's knowledge routes: datasets.create / list /
// update / delete / process, datasets.documents.create / list / update /
// delete (POST /open_api/knowledge/document/*, sent with Agw-Js-Conv: str),
// the deprecated knowledge.documents.list (GET) and datasets.images.list /
// update. Documents come as base64 (markdown,
// PNG) and as a web page this test serves on 127.0.0.1 (the server's egress
// guard lets loopback through, see scripts/frontend-test.sh); they are
// indexed in the background with the platform's embedding model, the fake
// model's /v1/embeddings, and followed with datasets.process until ready.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError, CozeAPI, NotFoundError, type DocumentInfo, type DocumentProgress } from "@coze/api";

import { ErrorCode } from "../src/index.js";
import { env, NUMERIC_ID, unique } from "./env.js";
import { Fixture, sdkError } from "./fixtures.js";

const MARKDOWN = `# The garden robot

The garden robot's secret code name is Marigold. It waters the tulips at dawn.

## Maintenance

Oil the left wheel every spring; the right wheel never needs it.
`;

const PAGE = `<!doctype html><html><head><title>Greenhouse notes</title></head><body>
<article><h1>Greenhouse notes</h1>
<p>The greenhouse keeps orchids at twenty-two degrees all year round, with misting twice a day.</p>
<p>Cacti live on the south shelf, where the afternoon sun is strongest, and are watered once a month.</p>
</article></body></html>`;

/** A PNG signature and header padded to n bytes. */
function png(n: number): Buffer {
  const out = Buffer.alloc(n, 7);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]).copy(out);
  return out;
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

/** Serves PAGE at /greenhouse.html on 127.0.0.1; answers its URL. */
async function servePage(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.url !== "/greenhouse.html") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/greenhouse.html` };
}

describe("@coze/api datasets", () => {
  const fx = new Fixture();
  const sdk = new CozeAPI({ token: env.token, baseURL: env.baseURL });
  const made: string[] = [];
  let page: { server: Server; url: string };

  before(async () => {
    await fx.setup();
    page = await servePage();
  });
  after(async () => {
    for (const id of made) await sdk.datasets.delete(id).catch(() => undefined);
    page.server.close();
    await fx.cleanup();
  });

  async function dataset(format_type: number, name = unique("fe-kb")): Promise<string> {
    const { dataset_id } = await sdk.datasets.create({ name, space_id: fx.workspaceId, format_type, description: "made by coze-datasets" });
    assert.match(dataset_id, NUMERIC_ID);
    made.push(dataset_id);
    return dataset_id;
  }

  /** Polls datasets.process until no document is processing (status 0); 200 rounds at most. */
  async function settled(datasetId: string, ids: string[]): Promise<DocumentProgress[]> {
    for (let round = 0; round < 200; round++) {
      const { data } = await sdk.datasets.process(datasetId, { document_ids: ids });
      assert.equal(data.length, ids.length, "one progress per document");
      if (data.every((p) => p.status !== 0)) return data;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`documents ${ids.join(",")} were still processing after 200 polls`);
  }

  it("creates, lists, renames and deletes a dataset with Coze's fields", async () => {
    const name = unique("fe-kb");
    const id = await dataset(0, name);
    const list = await sdk.datasets.list({ space_id: fx.workspaceId, name, page_num: 1, page_size: 10 });
    assert.equal(list.total_count, 1);
    const d = list.dataset_list[0];
    assert.ok(d);
    assert.equal(d.dataset_id, id);
    assert.equal(d.name, name);
    assert.equal(d.description, "made by coze-datasets");
    assert.equal(d.space_id, fx.workspaceId);
    assert.equal(d.format_type, 0);
    assert.equal(d.status, 1);
    assert.equal(d.doc_count, 0);
    assert.equal(d.slice_count, 0);
    assert.deepEqual(d.file_list, []);
    assert.deepEqual(d.processing_file_list, []);
    assert.match(d.creator_id, NUMERIC_ID);
    assert.ok(d.create_time > 1.7e9 && d.create_time < 1e10, `create_time ${d.create_time} is in seconds`);
    assert.equal(d.chunk_strategy.chunk_type, 0);

    const images = await sdk.datasets.list({ space_id: fx.workspaceId, name, format_type: 2 });
    assert.equal(images.total_count, 0, "format_type filters");

    await sdk.datasets.update(id, { name: `${name}-renamed`, description: "renamed" });
    const renamed = await sdk.datasets.list({ space_id: fx.workspaceId, name: `${name}-renamed` });
    assert.equal(renamed.dataset_list[0]?.dataset_id, id);
    assert.equal(renamed.dataset_list[0]?.description, "renamed");

    await sdk.datasets.delete(id);
    assert.equal((await sdk.datasets.list({ space_id: fx.workspaceId, name })).total_count, 0);
    await assert.rejects(sdk.datasets.process(id, { document_ids: [] }), sdkError(NotFoundError, 404, ErrorCode.NotFound, /knowledge base/));
  });

  it("indexes a markdown file and a web page, followed by process; lists, renames and deletes documents", async () => {
    const id = await dataset(0);
    const docs: DocumentInfo[] = await sdk.datasets.documents.create({
      dataset_id: id,
      document_bases: [
        { name: "garden.md", source_info: { file_base64: b64(MARKDOWN), file_type: "md" } },
        {
          name: "greenhouse",
          source_info: { web_url: page.url, document_source: 1 },
          update_rule: { update_type: 1, update_interval: 24 },
        },
      ],
      chunk_strategy: { chunk_type: 0 },
    });
    assert.equal(docs.length, 2);
    const [md, web] = docs as [DocumentInfo, DocumentInfo];
    for (const d of docs) {
      assert.match(d.document_id, NUMERIC_ID);
      assert.ok([0, 1].includes(d.status), `new documents are processing or ready, got ${d.status}`);
    }
    assert.equal(md.name, "garden.md");
    assert.equal(md.type, "md");
    assert.equal(md.size, Buffer.byteLength(MARKDOWN));
    assert.equal(web.update_type, 1);
    assert.equal(web.update_interval, 24);

    const progress = await settled(id, [md.document_id, web.document_id]);
    for (const p of progress) {
      assert.equal(p.status, 1, `${p.document_name} is ready, not failed: ${p.status_descript ?? ""}`);
      assert.equal(p.progress, 100);
      assert.equal(p.remaining_time, 0);
    }
    const byId = new Map(progress.map((p) => [p.document_id, p]));
    assert.equal(byId.get(md.document_id)?.type, "md");
    assert.equal(byId.get(web.document_id)?.url, page.url);
    assert.equal(byId.get(web.document_id)?.update_type, 1);

    const listed = await sdk.datasets.documents.list({ dataset_id: id, page: 1, page_size: 10 });
    assert.equal(listed.total, 2);
    assert.deepEqual(listed.document_infos.map((d) => d.document_id).sort(), [md.document_id, web.document_id].sort());
    for (const d of listed.document_infos) assert.ok(d.slice_count > 0, `${d.name} has chunks`);
    const deprecated = await sdk.knowledge.documents.list({ dataset_id: id, page: 1, page_size: 10 }); // sends GET
    assert.deepEqual(deprecated.document_infos, listed.document_infos);

    const ds = (await sdk.datasets.list({ space_id: fx.workspaceId, page_size: 100 })).dataset_list.find((d) => d.dataset_id === id);
    assert.ok(ds, "the dataset is listed");
    assert.equal(ds.doc_count, 2);
    assert.equal(ds.slice_count, listed.document_infos.reduce((n, d) => n + d.slice_count, 0));
    assert.deepEqual([...ds.file_list].sort(), ["garden.md", web.name].sort());
    assert.deepEqual(ds.processing_file_list, []);

    await sdk.datasets.documents.update({ document_id: md.document_id, document_name: "robot.md" });
    const renamed = await sdk.datasets.documents.list({ dataset_id: id });
    assert.equal(renamed.document_infos.find((d) => d.document_id === md.document_id)?.name, "robot.md");
    await assert.rejects(
      sdk.datasets.documents.update({ document_id: md.document_id, update_rule: { update_type: 1, update_interval: 24 } }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /only web pages/),
    );

    await sdk.datasets.documents.delete({ document_ids: [md.document_id] });
    const left = await sdk.datasets.documents.list({ dataset_id: id });
    assert.equal(left.total, 1);
    assert.equal(left.document_infos[0]?.document_id, web.document_id);
    await assert.rejects(
      sdk.datasets.documents.delete({ document_ids: [md.document_id] }),
      sdkError(NotFoundError, 404, ErrorCode.NotFound, new RegExp(`document ${md.document_id}`)),
    );
  });

  it("lists image knowledge with captions, which images.update writes and filters find", async () => {
    const id = await dataset(2);
    const docs = await sdk.datasets.documents.create({
      dataset_id: id,
      format_type: 2,
      document_bases: [
        { name: "tulip.png", source_info: { file_base64: b64(png(1200)), file_type: "png" } },
        { name: "cactus.png", source_info: { file_base64: b64(png(900)), file_type: "png" } },
      ],
    });
    assert.deepEqual(docs.map((d) => d.status), [1, 1], "images are ready at once: nothing to index");
    const [tulip, cactus] = docs as [DocumentInfo, DocumentInfo];

    const all = await sdk.datasets.images.list(id);
    assert.equal(all.total_count, 2);
    assert.deepEqual(all.photo_infos.map((p) => p.caption), ["", ""]);
    const shown = all.photo_infos.find((p) => p.document_id === tulip.document_id);
    assert.equal(shown?.name, "tulip.png");
    assert.equal(shown?.type, "png");
    assert.equal(shown?.size, 1200);

    await sdk.datasets.images.update(id, tulip.document_id, { caption: "A red tulip in the morning sun" });
    const captioned = await sdk.datasets.images.list(id, { has_caption: true });
    assert.deepEqual(captioned.photo_infos.map((p) => [p.document_id, p.caption]), [[tulip.document_id, "A red tulip in the morning sun"]]);
    const bare = await sdk.datasets.images.list(id, { has_caption: false });
    assert.deepEqual(bare.photo_infos.map((p) => p.document_id), [cactus.document_id]);
    const found = await sdk.datasets.images.list(id, { keyword: "TULIP", page_num: 1, page_size: 5 });
    assert.equal(found.total_count, 1);
    const paged = await sdk.datasets.images.list(id, { page_num: 2, page_size: 1 });
    assert.equal(paged.total_count, 2);
    assert.equal(paged.photo_infos.length, 1);

    await sdk.datasets.images.update(id, tulip.document_id, { caption: "" });
    assert.equal((await sdk.datasets.images.list(id, { has_caption: true })).total_count, 0, "an empty caption removes it");
  });

  it("refuses bad input with Coze's codes and real statuses, naming the field", async () => {
    const text = await dataset(0);
    await assert.rejects(
      sdk.datasets.create({ name: unique("fe-kb"), space_id: "", format_type: 0 }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /space_id/),
    );
    await assert.rejects(
      sdk.datasets.create({ name: unique("fe-kb"), space_id: fx.workspaceId, format_type: 5 }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /format_type/),
    );
    await assert.rejects(
      sdk.datasets.documents.create({ dataset_id: text, document_bases: [{ name: "x", source_info: {} }] }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /^document_bases\[0\]: give exactly one source/),
    );
    await assert.rejects(
      sdk.datasets.documents.create({
        dataset_id: text,
        document_bases: [{ name: "x", source_info: { web_url: "ftp://example.com/a", document_source: 1 } }],
      }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /^document_bases\[0\]\.source_info\.web_url: /),
    );
    await assert.rejects(
      sdk.datasets.documents.create({
        dataset_id: text,
        document_bases: [{ name: "x.png", source_info: { file_base64: b64(png(100)), file_type: "png" } }],
      }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /source_info\.file_type: "png" is not taken/),
    );
    await assert.rejects(sdk.datasets.images.list(text), sdkError(BadRequestError, 400, ErrorCode.Invalid, /^dataset_id: .*not images/));
    await assert.rejects(sdk.datasets.update("123456789", { name: "x" }), sdkError(NotFoundError, 404, ErrorCode.NotFound, /knowledge base 123456789/));
    await assert.rejects(
      sdk.datasets.documents.list({ dataset_id: "123456789" }),
      sdkError(NotFoundError, 404, ErrorCode.NotFound, /knowledge base 123456789/),
    );
  });
});

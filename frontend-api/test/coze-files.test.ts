// Coze's official JS SDK, @coze/api, UNCHANGED (only `token` and
// `baseURL`), against Pergola's files: files.upload (POST /v1/files/upload,
// multipart built by axios' toFormData, part `file`), files.retrieve (GET
// /v1/files/retrieve?file_id=), and chat.stream with an object_string
// message naming the uploaded image. The fake model (`pergola fakellm`)
// answers "echo: <text>" followed by " [image: <type>, <n> bytes]" for
// each image part it received, so the test sees whether the image reached
// the model as an image part (vision model) or as text (other models).
import { createReadStream, mkdtempSync, rmSync, writeFileSync, type ReadStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  type StreamChatData,
} from "@coze/api";

import { ErrorCode } from "../src/index.js";
import { env, NUMERIC_ID, unique } from "./env.js";
import { collect, Fixture, sdkError } from "./fixtures.js";

/** A PNG signature and header padded to n bytes: sniffed as image/png. */
function png(n: number): Uint8Array {
  const out = new Uint8Array(n).fill(7);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
  return out;
}

/** A file on disk to upload, as the SDK's Node examples pass one: a read
 * stream (axios' form-data takes the name from its path). */
function fileOf(dir: string, name: string, bytes: Uint8Array): ReadStream {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return createReadStream(path);
}

/** The answer of a streamed chat turn. */
async function answer(sdk: CozeAPI, botId: string, content: unknown): Promise<string> {
  const events = (await collect(
    sdk.chat.stream({
      bot_id: botId,
      additional_messages: [{ role: RoleType.User, content: content as string, content_type: "object_string" }],
    }),
  )) as StreamChatData[];
  const done = events.filter((e) => e.event === ChatEventType.CONVERSATION_MESSAGE_COMPLETED);
  const a = done.map((e) => e.data as ChatV3Message).find((m) => m.type === "answer");
  assert.ok(a, `no answer in ${events.map((e) => e.event).join(",")}`);
  return a.content;
}

describe("@coze/api files", () => {
  const fx = new Fixture();
  const sdk = new CozeAPI({ token: env.token, baseURL: env.baseURL });
  let visionModel = "";
  const dir = mkdtempSync(join(tmpdir(), "coze-files-"));
  const file = (name: string, bytes: Uint8Array) => fileOf(dir, name, bytes);

  before(async () => {
    await fx.setup();
    visionModel = unique("fe-vision");
    await fx.admin.admin.models.create({
      id: visionModel,
      provider: "openai",
      base_url: env.fakeLLMURL,
      api_key: "sk-fake",
      model: "fake",
      capabilities: { tools: false, vision: true, json: false },
    });
    fx.models.push(visionModel);
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await fx.cleanup();
  });

  it("uploads a file and retrieves it with Coze's fields", async () => {
    const bytes = png(3000);
    const up = await sdk.files.upload({ file: file("cat.png", bytes) });
    assert.match(up.id, NUMERIC_ID);
    assert.equal(up.bytes, 3000);
    assert.equal(up.file_name, "cat.png");
    assert.ok(up.created_at > 1.7e9 && up.created_at < 1e10, `created_at ${up.created_at} is in seconds`);
    const got = await sdk.files.retrieve(up.id);
    assert.deepEqual(got, up);
    assert.equal((got as unknown as { mime_type: string }).mime_type, "image/png");
  });

  it("refuses empty, forbidden and oversized uploads and unknown ids", async () => {
    await assert.rejects(
      sdk.files.upload({ file: file("empty.txt", new Uint8Array(0)) }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /empty/),
    );
    const elf = new Uint8Array(64);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    await assert.rejects(
      sdk.files.upload({ file: file("tool", elf) }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /not accepted/),
    );
    await assert.rejects(
      sdk.files.upload({ file: file("run.sh", new TextEncoder().encode("#!/bin/sh\necho hi\n")) }),
      sdkError(BadRequestError, 400, ErrorCode.Invalid, /\.sh files are not accepted/),
    );
    await assert.rejects(
      sdk.files.upload({ file: file("huge.png", png(20 * 1024 * 1024 + 1)) }),
      sdkError(APIError, 413, ErrorCode.BodyTooLarge, /limit is 20971520 bytes/),
    );
    await assert.rejects(sdk.files.retrieve("123456789"), sdkError(NotFoundError, 404, ErrorCode.NotFound, /file 123456789/));
  });

  it("sends an uploaded image to a vision model as an image part, to other models as text", async () => {
    const up = await sdk.files.upload({ file: file("cat2.png", png(2016)) });
    const content = [
      { type: "text", text: "Describe this picture" },
      { type: "image", file_id: up.id },
    ];
    const vision = await fx.bot({ model: { model_id: visionModel } });
    assert.equal(await answer(sdk, vision.id, content), "echo: Describe this picture [image: image/png, 2016 bytes]");
    const text = await fx.bot();
    const said = await answer(sdk, text.id, content);
    assert.match(said, /^echo: Describe this picture\n\[image file \d+: cat2\.png \(image\/png\)\]$/);
  });

  it("refuses a chat naming a file_id of no file of the bot's workspace", async () => {
    const bot = await fx.bot();
    const events = (await collect(
      sdk.chat.stream({
        bot_id: bot.id,
        additional_messages: [
          { role: RoleType.User, content: [{ type: "image", file_id: "987654321" }] as never, content_type: "object_string" },
        ],
      }),
    )) as StreamChatData[];
    const failed = events.find((e) => e.event === ChatEventType.ERROR);
    assert.ok(failed, `no error event in ${events.map((e) => e.event).join(",")}`);
    const data = failed.data as unknown as { code: number; msg: string };
    assert.equal(data.code, ErrorCode.Invalid);
    assert.match(data.msg, /file_id "987654321" is not a file of this bot's workspace/);
  });
});

// Assertions on our client's typed errors, shared by the client-*.test.ts files.
import assert from "node:assert/strict";

import { OpenAIError, PergolaError } from "../src/index.js";
import { LOG_ID } from "./env.js";

/** Asserts err is a PergolaError with this HTTP status and code, its msg matching msg. */
export function pergolaError(status: number, code: number, msg: RegExp) {
  return (err: unknown): true => {
    assert.ok(err instanceof PergolaError, `expected PergolaError, got ${String(err)}`);
    assert.equal(err.status, status, err.message);
    assert.equal(err.code, code, err.message);
    assert.match(err.msg, msg);
    assert.match(err.logId, LOG_ID);
    return true;
  };
}

/** Asserts err is an OpenAIError with this HTTP status, type and code, its message matching msg. */
export function openAIError(status: number, type: string, code: string | null, msg: RegExp) {
  return (err: unknown): true => {
    assert.ok(err instanceof OpenAIError, `expected OpenAIError, got ${String(err)}`);
    assert.equal(err.status, status, err.message);
    assert.equal(err.type, type, err.message);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, msg);
    return true;
  };
}

// Settings of the live-server tests, from the environment that
// scripts/frontend-test.sh sets up (or set them yourself against any server):
//   PERGOLA_BASE_URL        e.g. http://127.0.0.1:8888
//   PERGOLA_TOKEN           a PAT of a platform administrator (the bootstrap token)
//   PERGOLA_ADMIN_PASSWORD  that administrator's console password
//   PERGOLA_ADMIN_EMAIL     optional; admin@pergola.local by default
//   PERGOLA_FAKE_LLM_URL    the OpenAI base URL of `pergola fakellm`, e.g.
//                           http://127.0.0.1:8999/v1 (the chat tests' model)
import { randomBytes } from "node:crypto";

function required(name: string): string {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: these tests drive a live server; run scripts/frontend-test.sh from the repo root`);
  }
  return v;
}

export const env = {
  get baseURL(): string {
    return required("PERGOLA_BASE_URL").replace(/\/+$/, "");
  },
  get token(): string {
    return required("PERGOLA_TOKEN");
  },
  get adminPassword(): string {
    return required("PERGOLA_ADMIN_PASSWORD");
  },
  get adminEmail(): string {
    return process.env["PERGOLA_ADMIN_EMAIL"] || "admin@pergola.local";
  },
  get fakeLLMURL(): string {
    return required("PERGOLA_FAKE_LLM_URL").replace(/\/+$/, "");
  },
};

/** A name no other test (or earlier run against the same server) uses. */
export function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
}

/** IDs travel as JSON strings holding digits. */
export const NUMERIC_ID = /^[0-9]+$/;
/** The X-Tt-Logid format the server sends. */
export const LOG_ID = /^[A-Za-z0-9_-]{8,64}$/;

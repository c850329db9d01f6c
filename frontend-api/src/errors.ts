/**
 * A failed Pergola call: the HTTP status, the envelope's non-zero `code` and
 * `msg`, and the request's log id from the `X-Tt-Logid` header.
 *
 * Codes (see the idl's `Error` schema): 4000 invalid input (msg starts with
 * the field, e.g. `email: ...`), 4001 body too large, 4013 rate limited,
 * 4100 unauthenticated, 4101 forbidden, 4200 not found, 4300 conflict,
 * 5000 internal, 5030 unavailable. Answers that are not a Pergola envelope
 * (a proxy's HTML page, a dropped connection) use code -1; a request that
 * never got an answer has status 0.
 */
export class PergolaError extends Error {
  override readonly name = "PergolaError";
  readonly status: number;
  readonly code: number;
  readonly msg: string;
  readonly logId: string;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    status: number;
    code: number;
    msg: string;
    logId?: string;
    method: string;
    path: string;
    cause?: unknown;
  }) {
    super(
      `${init.method} ${init.path}: HTTP ${init.status}, code ${init.code}: ${init.msg}` +
        (init.logId ? ` (logid ${init.logId})` : ""),
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.status = init.status;
    this.code = init.code;
    this.msg = init.msg;
    this.logId = init.logId ?? "";
    this.method = init.method;
    this.path = init.path;
  }
}

/** The envelope codes Pergola answers with, by name. */
export const ErrorCode = {
  Invalid: 4000,
  BodyTooLarge: 4001,
  RateLimited: 4013,
  Unauthenticated: 4100,
  Forbidden: 4101,
  NotFound: 4200,
  Conflict: 4300,
  Internal: 5000,
  Unavailable: 5030,
  /** Not a Pergola envelope, or no answer at all. */
  NotAnEnvelope: -1,
} as const;

/** True when err is a PergolaError, optionally with this envelope code. */
export function isPergolaError(err: unknown, code?: number): err is PergolaError {
  return err instanceof PergolaError && (code === undefined || err.code === code);
}

/** How a surface reports failures: Pergola's and Coze's envelope, or OpenAI's `{"error": {...}}`. */
export type ErrorStyle = "envelope" | "openai";

/**
 * A failed call of an OpenAI route (/v1/chat/completions, /v1/models,
 * /v1/responses): the HTTP status and the `error` object OpenAI's clients
 * read, `{message, type, code, param}` (code e.g. "model_not_found", type
 * e.g. "invalid_request_error"). An answer without that object keeps its
 * text as the message, with type "" and code null.
 */
export class OpenAIError extends Error {
  override readonly name = "OpenAIError";
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly logId: string;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    status: number;
    message: string;
    type: string;
    code: string | null;
    param: string | null;
    logId?: string;
    method: string;
    path: string;
  }) {
    super(
      `${init.method} ${init.path}: HTTP ${init.status}, ${init.type || "error"} ${init.code ?? ""}: ${init.message}`,
    );
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param;
    this.logId = init.logId ?? "";
    this.method = init.method;
    this.path = init.path;
  }

  /** The error an OpenAI route's failed answer (parsed JSON, and its text) stands for. */
  static fromBody(
    where: { method: string; path: string; status: number; logId: string },
    body: unknown,
    text: string,
  ): OpenAIError {
    const e = (body as { error?: Record<string, unknown> } | undefined)?.error;
    if (typeof e !== "object" || e === null) {
      return new OpenAIError({ ...where, message: text.slice(0, 200), type: "", code: null, param: null });
    }
    const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? null : String(v));
    return new OpenAIError({
      ...where,
      message: str(e["message"]) ?? "",
      type: str(e["type"]) ?? "",
      code: str(e["code"]),
      param: str(e["param"]),
    });
  }
}

/** True when err is an OpenAIError, optionally with this code (e.g. "model_not_found"). */
export function isOpenAIError(err: unknown, code?: string): err is OpenAIError {
  return err instanceof OpenAIError && (code === undefined || err.code === code);
}

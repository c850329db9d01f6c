// The one place that talks HTTP: builds the URL, sends the request with the
// bearer token, and reads the answer in the shape of the surface called:
// Pergola's and Coze's {"code","msg","data"} envelope (request, requestWhole),
// plain JSON with OpenAI's {"error":{...}} on failure (requestOpenAI), text
// (requestText) or a Server-Sent Events stream (stream). Failures throw
// PergolaError or OpenAIError.
import { ErrorCode, OpenAIError, PergolaError, type ErrorStyle } from "./errors.js";
import { readSSE, type SSEEvent } from "./sse.js";

export type TokenSource = string | undefined | (() => string | undefined | Promise<string | undefined>);

export interface TransportOptions {
  /** The server, e.g. http://127.0.0.1:8888 (a trailing slash is ignored). */
  baseURL: string;
  /** A personal access token (pat_...) or a console session (ses_...), or a function returning one. */
  token?: TokenSource;
  /** fetch to use; the global one by default. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Abort each request after this many milliseconds (default 30000; 0 for none). */
  timeoutMs?: number;
}

export interface RawRequest {
  method: string;
  /** A path template such as /api/workspaces/{id}; {name} is filled from pathParams. */
  path: string;
  pathParams?: Record<string, string | number> | undefined;
  query?: Record<string, unknown> | undefined;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as it is (e.g. CSV) with its content type, instead of JSON. */
  text?: { body: string; contentType: string } | undefined;
  /** A multipart/form-data body (file uploads); fetch sets the content type. */
  form?: FormData | undefined;
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
  /** The bearer token of this request: false for none; the transport's by default. */
  auth?: string | false | undefined;
}

/** What an answer carried besides its data. */
export interface Meta {
  status: number;
  logId: string;
}

export const LOG_ID_HEADER = "X-Tt-Logid";

interface Sent {
  res: Response;
  where: { method: string; path: string };
  logId: string;
}

export class Transport {
  readonly baseURL: string;
  token: TokenSource;
  private readonly fetchImpl: typeof fetch;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;

  constructor(opts: TransportOptions) {
    if (!opts.baseURL) throw new TypeError("PergolaClient: baseURL is required");
    this.baseURL = opts.baseURL.replace(/\/+$/, "");
    this.token = opts.token;
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.headers = { ...opts.headers };
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  url(path: string, pathParams?: Record<string, string | number>, query?: Record<string, unknown>): string {
    const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = pathParams?.[name];
      if (v === undefined || v === "") throw new TypeError(`${path}: path parameter "${name}" is missing`);
      return encodeURIComponent(String(v));
    });
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) qs.set(k, v.join(","));
      else qs.set(k, String(v));
    }
    const s = qs.toString();
    return this.baseURL + filled + (s ? `?${s}` : "");
  }

  /** Sends the request and returns the envelope's data with the answer's metadata. */
  async request<T>(req: RawRequest): Promise<{ data: T; meta: Meta }> {
    const { body, meta } = await this.requestWhole<{ data?: unknown }>(req);
    return { data: (body.data ?? {}) as T, meta };
  }

  /** Sends the request and returns the whole envelope (code, msg, data and any field beside them). */
  async requestWhole<T>(req: RawRequest): Promise<{ body: T; meta: Meta }> {
    const sent = await this.send(req, "application/json");
    const text = await sent.res.text();
    const body = parseJSON(text);
    const failure = envelopeFailure(sent, body, text);
    if (failure) throw failure;
    return { body: body as T, meta: { status: sent.res.status, logId: sent.logId } };
  }

  /** Sends the request and returns the answer's text (a CSV export, a page); failures are envelopes. */
  async requestText(req: RawRequest): Promise<{ text: string; meta: Meta }> {
    const sent = await this.send(req, "*/*");
    const text = await sent.res.text();
    if (sent.res.status >= 400) throw envelopeFailure(sent, parseJSON(text), text) ?? notEnvelope(sent, text);
    return { text, meta: { status: sent.res.status, logId: sent.logId } };
  }

  /** Sends the request and returns its plain JSON answer; failures are envelopes (webhook channels). */
  async requestPlain<T>(req: RawRequest): Promise<{ body: T; meta: Meta }> {
    const sent = await this.send(req, "application/json");
    const text = await sent.res.text();
    const body = parseJSON(text);
    if (sent.res.status >= 400) throw envelopeFailure(sent, body, text) ?? notEnvelope(sent, text);
    if (body === undefined) throw notEnvelope(sent, text);
    return { body: body as T, meta: { status: sent.res.status, logId: sent.logId } };
  }

  /** Sends the request to an OpenAI route: plain JSON, OpenAIError on failure. */
  async requestOpenAI<T>(req: RawRequest): Promise<{ body: T; meta: Meta }> {
    const sent = await this.send(req, "application/json");
    const text = await sent.res.text();
    if (sent.res.status >= 400) throw openAIFailure(sent, text);
    const body = parseJSON(text);
    if (body === undefined) throw notEnvelope(sent, text);
    return { body: body as T, meta: { status: sent.res.status, logId: sent.logId } };
  }

  /**
   * Sends the request and yields the Server-Sent Events of the answer. A
   * failure before the stream starts throws in the surface's error style;
   * events (an `error` event included) are yielded as they come.
   */
  async *stream(req: RawRequest, style: ErrorStyle = "envelope"): AsyncGenerator<SSEEvent, void, undefined> {
    const sent = await this.send(req, "text/event-stream");
    const type = sent.res.headers.get("Content-Type") ?? "";
    if (sent.res.status >= 400 || !type.startsWith("text/event-stream")) {
      const text = await sent.res.text();
      if (style === "openai") throw openAIFailure(sent, text);
      throw envelopeFailure(sent, parseJSON(text), text) ?? notEnvelope(sent, text);
    }
    if (!sent.res.body) return;
    yield* readSSE(sent.res.body);
  }

  private async send(req: RawRequest, accept: string): Promise<Sent> {
    const method = req.method.toUpperCase();
    const url = this.url(req.path, req.pathParams, req.query);
    const where = { method, path: new URL(url).pathname };
    const headers: Record<string, string> = { Accept: accept, ...this.headers, ...req.headers };
    const token = await this.tokenFor(req);
    if (token) headers["Authorization"] = `Bearer ${token}`;
    let payload: string | FormData | undefined;
    if (req.form !== undefined) {
      payload = req.form;
    } else if (req.text !== undefined) {
      headers["Content-Type"] = req.text.contentType;
      payload = req.text.body;
    } else if (req.body !== undefined) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(req.body);
    }
    try {
      const res = await this.fetchImpl(url, { method, headers, body: payload, signal: this.signal(req.signal) });
      return { res, where, logId: res.headers.get(LOG_ID_HEADER) ?? "" };
    } catch (cause) {
      const msg = `no answer: ${cause instanceof Error ? cause.message : String(cause)}`;
      throw new PergolaError({ ...where, status: 0, code: ErrorCode.NotAnEnvelope, msg, cause });
    }
  }

  private async tokenFor(req: RawRequest): Promise<string | undefined> {
    if (req.auth === false) return undefined;
    if (typeof req.auth === "string") return req.auth;
    return typeof this.token === "function" ? await this.token() : this.token;
  }

  private signal(own: AbortSignal | undefined): AbortSignal | undefined {
    const signals = [own, this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  }
}

interface Envelope {
  code: number;
  msg?: string;
  data?: unknown;
}

function isEnvelope(v: unknown): v is Envelope {
  return typeof v === "object" && v !== null && typeof (v as { code?: unknown }).code === "number";
}

function parseJSON(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function notEnvelope(sent: Sent, text: string): PergolaError {
  const type = sent.res.headers.get("Content-Type") ?? "no content type";
  return new PergolaError({
    ...sent.where,
    status: sent.res.status,
    code: ErrorCode.NotAnEnvelope,
    logId: sent.logId,
    msg: `not a Pergola envelope (${type}): ${text.slice(0, 200)}`,
  });
}

/**
 * The error an envelope answer stands for, or undefined for a success. Coze
 * semantics: any non-zero code is a failure whatever the status; Pergola also
 * sends a real status, so a >= 400 with code 0 is one too.
 */
function envelopeFailure(sent: Sent, body: unknown, text: string): PergolaError | undefined {
  if (!isEnvelope(body)) return notEnvelope(sent, text);
  if (body.code === 0 && sent.res.status < 400) return undefined;
  return new PergolaError({
    ...sent.where,
    status: sent.res.status,
    code: body.code !== 0 ? body.code : ErrorCode.NotAnEnvelope,
    msg: body.msg ?? "",
    logId: sent.logId,
  });
}

function openAIFailure(sent: Sent, text: string): OpenAIError {
  return OpenAIError.fromBody({ ...sent.where, status: sent.res.status, logId: sent.logId }, parseJSON(text), text);
}

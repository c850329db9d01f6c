// The one place that talks HTTP: builds the URL, sends JSON with the bearer
// token, and unwraps the {"code","msg","data"} envelope or throws PergolaError.
import { PergolaError, ErrorCode } from "./errors.js";

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
  body?: unknown;
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
}

/** What an answer carried besides its data. */
export interface Meta {
  status: number;
  logId: string;
}

export const LOG_ID_HEADER = "X-Tt-Logid";

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
    const method = req.method.toUpperCase();
    const url = this.url(req.path, req.pathParams, req.query);
    const where = { method, path: new URL(url).pathname };
    const headers: Record<string, string> = { Accept: "application/json", ...this.headers, ...req.headers };
    const token = typeof this.token === "function" ? await this.token() : this.token;
    if (token) headers["Authorization"] = `Bearer ${token}`;
    let payload: string | undefined;
    if (req.body !== undefined) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(req.body);
    }
    const signals = [req.signal, this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];

    let res: Response;
    try {
      res = await this.fetchImpl(url, { method, headers, body: payload, signal });
    } catch (cause) {
      throw new PergolaError({
        ...where,
        status: 0,
        code: ErrorCode.NotAnEnvelope,
        msg: `no answer: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause,
      });
    }
    const logId = res.headers.get(LOG_ID_HEADER) ?? "";
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!isEnvelope(body)) {
      throw new PergolaError({
        ...where,
        status: res.status,
        code: ErrorCode.NotAnEnvelope,
        logId,
        msg: `not a Pergola envelope (${res.headers.get("Content-Type") ?? "no content type"}): ${text.slice(0, 200)}`,
      });
    }
    // Coze semantics: any non-zero code is a failure whatever the status;
    // Pergola also sends a real status, so a >= 400 with code 0 is one too.
    if (body.code !== 0 || res.status >= 400) {
      throw new PergolaError({
        ...where,
        status: res.status,
        code: body.code !== 0 ? body.code : ErrorCode.NotAnEnvelope,
        msg: body.msg ?? "",
        logId,
      });
    }
    return { data: (body.data ?? {}) as T, meta: { status: res.status, logId } };
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

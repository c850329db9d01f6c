// What the resource groups (src/groups/*.ts) call: one method per way a
// surface answers. PergolaClient implements it over its Transport.
import type { Answer, CallOptions, Data, MethodOf, Path } from "./ops.js";
import type { ErrorStyle } from "./errors.js";
import type { SSEEvent } from "./sse.js";

/** A numeric id; the API sends strings and accepts numbers too. */
export type ID = string | number;

/** The options of a group method besides its arguments: signal, headers, auth. */
export type Rest<P extends Path, M extends MethodOf<P>> = Omit<CallOptions<P, M>, "path" | "query" | "body">;

/** A body sent as it is, e.g. `{ body: csv, contentType: "text/csv" }`. */
export interface TextBody {
  body: string;
  contentType: string;
}

/**
 * A call's options: the operation's parts, and optionally a text or
 * multipart body instead of JSON (then no JSON body is needed, even where
 * the operation also takes one).
 */
export type Opts<P extends Path, M extends MethodOf<P>> =
  | (CallOptions<P, M> & { text?: TextBody; form?: FormData })
  | (Omit<CallOptions<P, M>, "body"> & { body?: undefined; form: FormData });

export interface Caller {
  /** An envelope answer's `data`. */
  call<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<Data<P, M>>;
  /** A whole envelope answer: code, msg, data and the fields beside them (Coze's lists, workflow runs). */
  callWhole<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<Answer<P, M>>;
  /** A plain JSON answer; failures are envelopes (webhook channels). */
  callPlain<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<Answer<P, M>>;
  /** An OpenAI route's JSON answer (OpenAIError on failure). */
  callOpenAI<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<Answer<P, M>>;
  /** A text answer (CSV, a page, a script). */
  callText<P extends Path, M extends MethodOf<P>>(method: M, path: P, opts?: Opts<P, M>): Promise<string>;
  /** A Server-Sent Events answer; failures before the stream in the surface's style. */
  callStream<P extends Path, M extends MethodOf<P>>(
    method: M,
    path: P,
    opts?: Opts<P, M>,
    style?: ErrorStyle,
  ): AsyncGenerator<SSEEvent, void, undefined>;
}

/** A path parameter as the API takes it. */
export const s = (id: ID): string => String(id);

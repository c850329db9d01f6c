// Type-level helpers that read request and answer types out of the generated
// schema (src/schema.d.ts), so that every client method is typed by the idl:
//
//   Data<"/api/workspaces", "post">   the envelope's `data` of the success answer
//   Body<"/api/workspaces", "post">   the JSON request body
//   Query<"/api/workspaces", "get">   the query parameters
//   PathParams<"/api/workspaces/{id}", "get">
//
// Adding a resource is: change the idl, `npm run gen`, add one line per
// operation in client.ts calling `this.call(method, path, ...)`.
import type { components, paths } from "./schema.js";

export type { components, paths };

/** The schemas of the contract, e.g. Schema<"Workspace">. */
export type Schema<K extends keyof components["schemas"]> = components["schemas"][K];

export type HttpMethod = "get" | "put" | "post" | "delete" | "patch";

/** Every path of the contract. */
export type Path = keyof paths;

/** The methods a path has. */
export type MethodOf<P extends Path> = {
  [M in HttpMethod]: paths[P] extends { [K in M]: infer O } ? ([O] extends [never | undefined] ? never : M) : never;
}[HttpMethod];

/** The operation object of a path and method. */
export type Operation<P extends Path, M extends MethodOf<P>> = NonNullable<paths[P][M]>;

type SuccessStatus = 200 | 201 | 202 | 204;

type SuccessResponse<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? R[S] : never }[keyof R]
  : never;

type JSONContent<R> = R extends { content: { "application/json": infer J } } ? J : never;

/** The JSON body of the success answer, envelope included. */
export type Answer<P extends Path, M extends MethodOf<P>> = JSONContent<SuccessResponse<Operation<P, M>>>;

/** The envelope's `data` in the success answer (or the whole body when it has none). */
export type Data<P extends Path, M extends MethodOf<P>> = "data" extends keyof Answer<P, M>
  ? NonNullable<Answer<P, M>["data" & keyof Answer<P, M>]>
  : Answer<P, M>;

/** The JSON request body; never when the operation takes none. */
export type Body<P extends Path, M extends MethodOf<P>> = JSONContent<
  NonNullable<Operation<P, M> extends { requestBody?: infer RB } ? RB : never>
>;

type FormContent<R> = R extends { content: { "multipart/form-data": infer F } } ? F : never;

/** The multipart/form-data fields of the request; never when the operation takes none. */
export type FormFields<P extends Path, M extends MethodOf<P>> = FormContent<
  NonNullable<Operation<P, M> extends { requestBody?: infer RB } ? RB : never>
>;

/** The query parameters; never when the operation takes none. */
export type Query<P extends Path, M extends MethodOf<P>> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The path parameters; never when the path has none. */
export type PathParams<P extends Path, M extends MethodOf<P>> =
  Operation<P, M> extends { parameters: { path: infer PP } } ? NonNullable<PP> : never;

/** The options of a call: the parts the operation has, required when the idl says so. */
export type CallOptions<P extends Path, M extends MethodOf<P>> = ([PathParams<P, M>] extends [never]
  ? { path?: undefined }
  : { path: PathParams<P, M> }) &
  ([Query<P, M>] extends [never] ? { query?: undefined } : { query?: Query<P, M> }) &
  ([Body<P, M>] extends [never] ? { body?: undefined } : { body: Body<P, M> }) & {
    /** Abort the call (e.g. AbortSignal.timeout(5000)). */
    signal?: AbortSignal;
    /** Extra request headers. */
    headers?: Record<string, string>;
    /** The bearer token of this call: false for none; the client's by default. */
    auth?: string | false;
  };

// @pergola/frontend-api: a typed client for every surface of Pergola's HTTP
// API (console, admin, builder resources, web chat, Coze and OpenAI
// compatible routes), generated from idl/ (src/schema.d.ts).
export { PergolaClient, paginate } from "./client.js";
export type {
  App,
  AppValues,
  Bot,
  BotClientTool,
  BotConfig,
  BotSummary,
  BotVariableDefinition,
  BotVersion,
  Channel,
  Chat,
  ChatCompletion,
  ChatCompletionChunk,
  ClientOptions,
  CozeImportResult,
  Delivery,
  ID,
  ImportFileFields,
  Member,
  Model,
  ModelChoice,
  NewToken,
  OpenAIModel,
  OpenAIResponse,
  Page,
  Plugin,
  Role,
  Scope,
  Session,
  Span,
  Table,
  TableRow,
  Trace,
  Token,
  UsageReport,
  User,
  Workflow,
  WorkflowDefinition,
  WorkflowRunSummary,
  WorkflowTestRun,
  WorkflowVersion,
  Workspace,
} from "./client.js";
export type { Caller, Opts, Rest, TextBody } from "./caller.js";
export { PergolaError, OpenAIError, ErrorCode, isPergolaError, isOpenAIError } from "./errors.js";
export type { ErrorStyle } from "./errors.js";
export { eventJSON, readSSE } from "./sse.js";
export type { SSEEvent } from "./sse.js";
export { webhookSignature } from "./groups/webchat.js";
export { Transport, LOG_ID_HEADER } from "./transport.js";
export type { Meta, RawRequest, TokenSource, TransportOptions } from "./transport.js";
export type * from "./ops.js";

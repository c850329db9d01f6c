// @pergola/frontend-api: a typed client for Pergola's console and admin API.
export { PergolaClient, paginate } from "./client.js";
export type {
  Bot,
  BotClientTool,
  BotConfig,
  BotSummary,
  BotVariableDefinition,
  BotVersion,
  ClientOptions,
  ID,
  Member,
  Model,
  ModelChoice,
  NewToken,
  Page,
  Role,
  Scope,
  Session,
  Token,
  User,
  Workflow,
  WorkflowDefinition,
  WorkflowTestRun,
  WorkflowVersion,
  Workspace,
} from "./client.js";
export { PergolaError, ErrorCode, isPergolaError } from "./errors.js";
export { Transport, LOG_ID_HEADER } from "./transport.js";
export type { Meta, RawRequest, TokenSource, TransportOptions } from "./transport.js";
export type * from "./ops.js";

package trace

import semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

// SemconvVersion is the version of OpenTelemetry's semantic conventions
// the gen_ai.* attributes follow: v1.41.0 is the last release whose Go
// package carries the GenAI conventions (v1.42.0 moved them to the
// semantic-conventions-genai repository, which has no release yet).
const SemconvVersion = "1.41.0"

// Span attributes: OpenTelemetry's GenAI semantic conventions (names from
// the semconv Go package) where one exists, pergola.* otherwise.
const (
	AttrOperation          = string(semconv.GenAIOperationNameKey) // invoke_agent, chat, execute_tool, invoke_workflow
	AttrProvider           = string(semconv.GenAIProviderNameKey)
	AttrAgentID            = string(semconv.GenAIAgentIDKey) // the bot
	AttrAgentName          = string(semconv.GenAIAgentNameKey)
	AttrAgentDescription   = string(semconv.GenAIAgentDescriptionKey)
	AttrAgentVersion       = string(semconv.GenAIAgentVersionKey)
	AttrConversation       = string(semconv.GenAIConversationIDKey)
	AttrRequestModel       = string(semconv.GenAIRequestModelKey)
	AttrRequestTemperature = string(semconv.GenAIRequestTemperatureKey)
	AttrRequestTopP        = string(semconv.GenAIRequestTopPKey)
	AttrRequestMaxTokens   = string(semconv.GenAIRequestMaxTokensKey)
	AttrRequestStream      = string(semconv.GenAIRequestStreamKey)
	AttrOutputType         = string(semconv.GenAIOutputTypeKey)
	AttrResponseModel      = string(semconv.GenAIResponseModelKey)
	AttrResponseID         = string(semconv.GenAIResponseIDKey)
	AttrFinishReasons      = string(semconv.GenAIResponseFinishReasonsKey)
	AttrTimeToFirstChunk   = string(semconv.GenAIResponseTimeToFirstChunkKey) // seconds
	AttrInputTokens        = string(semconv.GenAIUsageInputTokensKey)
	AttrOutputTokens       = string(semconv.GenAIUsageOutputTokensKey)
	AttrServerAddress      = string(semconv.ServerAddressKey)
	AttrServerPort         = string(semconv.ServerPortKey)
	AttrErrorType          = string(semconv.ErrorTypeKey)
	AttrToolName           = string(semconv.GenAIToolNameKey)
	AttrToolCallID         = string(semconv.GenAIToolCallIDKey)
	AttrToolType           = string(semconv.GenAIToolTypeKey) // function, extension, datastore
	AttrToolDescription    = string(semconv.GenAIToolDescriptionKey)
	AttrWorkflowName       = string(semconv.GenAIWorkflowNameKey)
	AttrSystem             = string(semconv.GenAISystemInstructionsKey) // content
	AttrPrompt             = string(semconv.GenAIInputMessagesKey)      // content
	AttrCompletion         = string(semconv.GenAIOutputMessagesKey)     // content
	AttrToolArgs           = string(semconv.GenAIToolCallArgumentsKey)  // content
	AttrToolResult         = string(semconv.GenAIToolCallResultKey)     // content
	AttrDataSourceID       = string(semconv.GenAIDataSourceIDKey)       // the knowledge base a recall searched
	AttrQuery              = string(semconv.GenAIRetrievalQueryTextKey) // content
	AttrHits               = string(semconv.GenAIRetrievalDocumentsKey) // content: the chunks recalled

	AttrModelID     = "pergola.model.id" // the model's id in Pergola (GET /api/models)
	AttrChatID      = "pergola.chat.id"
	AttrOutcome     = "pergola.outcome" // completed, failed, requires_action, question; a run's status
	AttrResumed     = "pergola.resumed"
	AttrTTFT        = "pergola.time_to_first_token_ms"
	AttrPluginID    = "pergola.plugin.id"
	AttrToolOrigin  = "pergola.tool.origin" // workflow, table, variable, client
	AttrWorkflowID  = "pergola.workflow.id"
	AttrExecuteID   = "pergola.workflow.execute_id"
	AttrRunMode     = "pergola.workflow.mode"
	AttrNodeID      = "pergola.node.id"
	AttrNodeType    = "pergola.node.type"
	AttrNodeParent  = "pergola.node.parent"
	AttrNodeIndex   = "pergola.node.index"
	AttrNodeStatus  = "pergola.node.status"
	AttrAttempts    = "pergola.node.attempts"
	AttrRetries     = "pergola.node.retries"
	AttrNodeInputs  = "pergola.node.inputs"  // content
	AttrNodeOutputs = "pergola.node.outputs" // content
	AttrInterrupt   = "pergola.interrupt"    // content: what a question or input node asked
	AttrTruncated   = "pergola.truncated"
	AttrHitCount    = "pergola.retrieval.hit_count"
	AttrKnowledge   = "pergola.knowledge.ids" // the knowledge bases a recall searched
	AttrDropped     = "pergola.spans_dropped"
)

// GenAI operation names and tool types (the conventions' well-known
// values; attrs_test checks them against the semconv package).
const (
	OpInvokeAgent    = "invoke_agent"
	OpChat           = "chat"
	OpExecuteTool    = "execute_tool"
	OpInvokeWorkflow = "invoke_workflow"
	OpRetrieval      = "retrieval"

	ToolFunction  = "function"
	ToolExtension = "extension"
	ToolDatastore = "datastore"
)

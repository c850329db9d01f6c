package trace

// Span attributes: OpenTelemetry's GenAI semantic conventions where one
// exists, pergola.* otherwise.
const (
	AttrOperation     = "gen_ai.operation.name" // invoke_agent, chat, execute_tool
	AttrProvider      = "gen_ai.provider.name"
	AttrAgentID       = "gen_ai.agent.id" // the bot
	AttrConversation  = "gen_ai.conversation.id"
	AttrRequestModel  = "gen_ai.request.model"
	AttrResponseModel = "gen_ai.response.model"
	AttrInputTokens   = "gen_ai.usage.input_tokens"
	AttrOutputTokens  = "gen_ai.usage.output_tokens"
	AttrToolName      = "gen_ai.tool.name"
	AttrToolCallID    = "gen_ai.tool.call.id"
	AttrPrompt        = "gen_ai.input.messages"      // content
	AttrCompletion    = "gen_ai.output.messages"     // content
	AttrToolArgs      = "gen_ai.tool.call.arguments" // content
	AttrToolResult    = "gen_ai.tool.call.result"    // content

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
	AttrQuery       = "pergola.retrieval.query" // content
	AttrHits        = "pergola.retrieval.hits"  // content: the chunks recalled
	AttrHitCount    = "pergola.retrieval.hit_count"
	AttrDropped     = "pergola.spans_dropped"
)

// GenAI operation names.
const (
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

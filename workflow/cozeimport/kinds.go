package cozeimport

// kind is how one Coze node type converts.
type kind struct {
	name    string // Coze's name for the type, for messages
	pergola string // the DSL node type it becomes
	convert func(nc *nodeConv) error
}

// kindOf returns the conversion of a Coze node type (node_meta.go's
// numeric ids). Types missing here are reported as unsupported.
func kindOf(cozeType string) (kind, bool) {
	switch cozeType {
	case "1":
		return kind{"start", "start", convertStart}, true
	case "2":
		return kind{"end", "end", convertEnd}, true
	case "3":
		return kind{"LLM", "llm", convertLLM}, true
	case "4":
		return kind{"plugin", "plugin", convertPlugin}, true
	case "5":
		return kind{"code", "code", convertCode}, true
	case "6":
		return kind{"knowledge retriever", "knowledge_retrieve", convertRetriever}, true
	case "8":
		return kind{"selector", "condition", convertSelector}, true
	case "9":
		return kind{"sub-workflow", "sub_workflow", convertSubWorkflow}, true
	case "12":
		return kind{"database custom SQL", "table_sql", convertTableSQL}, true
	case "13":
		return kind{"output emitter", "message", convertEmitter}, true
	case "15":
		return kind{"text processor", "text", convertText}, true
	case "18":
		return kind{"question", "question", convertQuestion}, true
	case "19":
		return kind{"break", "break", convertPlain}, true
	case "20":
		return kind{"loop variable assigner", "set_variable", convertLoopSet}, true
	case "21":
		return kind{"loop", "loop", convertLoop}, true
	case "22":
		return kind{"intent detector", "intent", convertIntent}, true
	case "27":
		return kind{"knowledge writer", "knowledge_write", convertWriter}, true
	case "28":
		return kind{"batch", "batch", convertBatch}, true
	case "29":
		return kind{"continue", "continue", convertPlain}, true
	case "30":
		return kind{"input", "input", convertInputNode}, true
	case "32":
		return kind{"variable aggregator", "variable_aggregate", convertAggregator}, true
	case "40":
		return kind{"variable assigner", "variable_assign", convertAssigner}, true
	case "42":
		return kind{"database update", "table_update", convertTableUpdate}, true
	case "43":
		return kind{"database query", "table_query", convertTableSelect}, true
	case "44":
		return kind{"database delete", "table_delete", convertTableDelete}, true
	case "45":
		return kind{"HTTP requester", "http", convertHTTP}, true
	case "46":
		return kind{"database insert", "table_insert", convertTableInsert}, true
	case "58":
		return kind{"JSON serialization", "json_stringify", convertJSONStringify}, true
	case "37", "38", "39", "51", "52", "53", "54", "55", "56", "57":
		return kind{conversationOps[cozeType].name, "conversation", convertConversation}, true
	case "59":
		return kind{"JSON deserialization", "json_parse", convertJSONParse}, true
	case "60":
		return kind{"knowledge deleter", "knowledge_delete", convertDeleter}, true
	}
	return kind{}, false
}

// convertPlain converts a node without settings (break, continue).
func convertPlain(*nodeConv) error { return nil }

// unsupportedName names the Coze node types without a Pergola equivalent,
// for the report.
func unsupportedName(cozeType string) string {
	switch cozeType {
	case "7":
		return "local plugin"
	case "16", "17", "23":
		return "image"
	case "34", "35", "36":
		return "trigger"
	}
	return ""
}

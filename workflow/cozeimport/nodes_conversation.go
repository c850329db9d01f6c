package cozeimport

// conversationOp is how a Coze conversation or message node converts: its
// name and the op of the DSL's conversation node.
type conversationOp struct{ name, op string }

// conversationOps maps Coze's conversation and message node types.
var conversationOps = map[string]conversationOp{
	"37": {"message list", "message_list"},
	"38": {"clear conversation history", "clear"},
	"39": {"create conversation", "create"},
	"51": {"update conversation", "update"},
	"52": {"delete conversation", "delete"},
	"53": {"conversation list", "list"},
	"54": {"conversation history", "history"},
	"55": {"create message", "message_create"},
	"56": {"edit message", "message_edit"},
	"57": {"delete message", "message_delete"},
}

// convertConversation: the inputs keep Coze's names, as do the node's
// outputs.
func convertConversation(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	return nc.config(map[string]string{"op": conversationOps[string(nc.n.Type)].op})
}

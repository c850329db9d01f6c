package workflow

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// conversationKind manages the named conversations of the run's end user
// in the run's app, and their messages, as Coze Studio's conversation and
// message nodes do; its outputs keep Coze's names.
type conversationKind struct{}

type conversationConfig struct {
	Op string `json:"op" jsonschema:"required,enum=create,enum=update,enum=delete,enum=list,enum=history,enum=clear,enum=message_create,enum=message_edit,enum=message_delete,enum=message_list"`
}

// convOp is one operation: the inputs it takes (required first) and its
// outputs.
type convOp struct {
	required []string
	optional []string
	outputs  []Param
	run      func(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error)
}

var (
	pSuccess      = P("isSuccess", TypeBoolean)
	messageSchema = Schema{Type: TypeObject, Properties: []Param{P("messageId", TypeString), P("role", TypeString),
		P("contentType", TypeString), P("content", TypeString)}}
)

var convOps = map[string]convOp{
	"create": {required: []string{"conversationName"}, outputs: []Param{pSuccess, P("isExisted", TypeBoolean), P("conversationId", TypeString)},
		run: convCreate},
	"update": {required: []string{"conversationName", "newConversationName"},
		outputs: []Param{pSuccess, P("isExisted", TypeBoolean), P("conversationId", TypeString)}, run: convUpdate},
	"delete": {required: []string{"conversationName"}, outputs: []Param{pSuccess}, run: convDelete},
	"list": {outputs: []Param{{Name: "conversationList", Schema: ArrayOf(Schema{Type: TypeObject,
		Properties: []Param{P("conversationName", TypeString), P("conversationId", TypeString)}})}}, run: convList},
	"history": {required: []string{"conversationName"}, optional: []string{"rounds"}, outputs: []Param{{Name: "messageList",
		Schema: ArrayOf(Schema{Type: TypeObject, Properties: []Param{P("role", TypeString), P("content", TypeString)}})}}, run: convHistory},
	"clear":          {required: []string{"conversationName"}, outputs: []Param{pSuccess}, run: convClear},
	"message_create": {required: []string{"conversationName", "role", "content"}, outputs: []Param{pSuccess, {Name: "message", Schema: messageSchema}}, run: msgCreate},
	"message_edit":   {required: []string{"conversationName", "messageId", "newContent"}, outputs: []Param{pSuccess}, run: msgEdit},
	"message_delete": {required: []string{"conversationName", "messageId"}, outputs: []Param{pSuccess}, run: msgDelete},
	"message_list": {required: []string{"conversationName"}, optional: []string{"limit", "beforeId", "afterId"},
		outputs: []Param{{Name: "messageList", Schema: ArrayOf(messageSchema)}, P("firstId", TypeString), P("lastId", TypeString),
			P("hasMore", TypeBoolean)}, run: msgList},
}

func (conversationKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "conversation", Title: "Conversation", Category: categoryIO,
		Description: "Manages the end user's named conversations of the run's app (app_id) and their messages, as Coze " +
			"Studio's conversation and message nodes: op create, update (rename), delete, list, history, clear, " +
			"message_create, message_edit, message_delete, message_list. \"Default\" always exists and is neither " +
			"renamed nor deleted. Without an app, a run that is a conversation's turn (a chatflow, a bot's workflow tool) " +
			"reaches that conversation as \"Default\" through the message_* ops only, as in Coze's agent scenario. " +
			"Inputs and outputs keep Coze's names (conversationName, messageId, isSuccess…).",
		ConfigSchema: configSchema(&conversationConfig{})}
}

func (conversationKind) check(c *checker, n *Node) *nodeSpec {
	var cfg conversationConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	op, ok := convOps[cfg.Op]
	if !ok {
		c.fail(nodeField(n, "config.op"), "must be one of create, update, delete, list, history, clear, message_create, "+
			"message_edit, message_delete, message_list; got %q", cfg.Op)
		return nil
	}
	for name := range n.Inputs {
		if !slices.Contains(op.required, name) && !slices.Contains(op.optional, name) {
			c.fail(nodeField(n, "inputs."+name), "is not an input of op %s (it takes %s)", cfg.Op, strings.Join(append(op.required, op.optional...), ", "))
		}
	}
	return &nodeSpec{outputs: op.outputs, required: op.required, blocking: true,
		runner: runFunc(func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			st, s := x.rc.eng.ports.Convs, x.rc.in.Scope
			if st == nil {
				return nil, permanent(errors.New("conversations are not available in this process"))
			}
			if s.AppID == 0 {
				if err := checkAgentScenario(cfg.Op, s, in); err != nil {
					return nil, permanent(err)
				}
			}
			return op.run(ctx, st, s, in)
		})}
}

package workflow

import (
	"errors"
	"fmt"
	"strings"
)

// DefaultConversation is the conversation every run's end user has. In a
// run with no app that is a conversation's turn, it is that conversation.
const DefaultConversation = "Default"

// checkAgentScenario decides whether a conversation node may run in a run
// with no app. As in Coze Studio's agent scenario (a chatflow run for a
// bot, a bot's workflow tool), a run that is a turn of a conversation
// reaches that conversation as "Default" through the message operations;
// other names, and the operations on conversations (create, update,
// delete, list, history, clear), are refused. A run that is no
// conversation's turn needs an app.
func checkAgentScenario(op string, s Scope, in map[string]any) error {
	if s.ConversationID == 0 {
		return errors.New("conversation nodes need an app: run the workflow with app_id")
	}
	if !strings.HasPrefix(op, "message_") {
		return fmt.Errorf("op %s is not available in a run without an app: such a run reaches only the conversation "+
			"it is a turn of, as %q, through the message operations; run the workflow with app_id", op, DefaultConversation)
	}
	if name := text(in["conversationName"]); name != DefaultConversation {
		return fmt.Errorf("only the %q conversation (the one this run is a turn of) is available in a run without an app; got %q",
			DefaultConversation, name)
	}
	return nil
}

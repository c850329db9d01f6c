package app

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	wf "github.com/pergola-ai/pergola/workflow"
)

var _ wf.ChatHistorian = Conversations{}

// ChatHistory returns the last rounds of the conversation a chatflow run
// is a turn of, before the question (or questions) that started the turn,
// oldest first. The conversation must be of the run's workspace.
func (c Conversations) ChatHistory(ctx context.Context, s wf.Scope, rounds int) ([]wf.ConversationMessage, error) {
	conv, err := c.turnConversation(ctx, s)
	if err != nil {
		return nil, err
	}
	if conv == nil {
		return nil, errs.NotFound("conversation", strconv.FormatInt(s.ConversationID, 10))
	}
	rounds = min(max(rounds, 1), wf.MaxChatHistoryRounds)
	msgs, err := c.d.Msgs.History(ctx, conv.ID, conv.SectionID, rounds+1)
	if err != nil {
		return nil, err
	}
	return nodeMessages(lastRounds(unanswered(msgs), rounds)), nil
}

// unanswered leaves out the trailing questions no answer follows: the
// turn being run.
func unanswered(msgs []conversation.Message) []conversation.Message {
	n := len(msgs)
	for n > 0 && msgs[n-1].Type == conversation.TypeQuestion {
		n--
	}
	return msgs[:n]
}

// lastRounds keeps the messages of the last rounds, a round starting at
// each question that follows an answer (or at the first message).
func lastRounds(msgs []conversation.Message, rounds int) []conversation.Message {
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == conversation.TypeQuestion && (i == 0 || msgs[i-1].Type != conversation.TypeQuestion) {
			if seen++; seen == rounds {
				return msgs[i:]
			}
		}
	}
	return msgs
}

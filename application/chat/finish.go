package chat

import (
	"context"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// finishAnswer completes the answer of a turn that ended without waiting
// for a client tool: the verbose message that says the answer is done,
// then the follow-up suggestions when the bot makes them (followup.go).
func (s *Service) finishAnswer(ctx context.Context, t *turn, rs *runState) {
	s.answerFinished(t, rs)
	if t.cfg.SuggestReply.Enabled {
		s.followUps(ctx, t, rs)
	}
}

// finishedVerbose is the verbose message Coze sends when an answer is
// complete; clients that wait for it before showing follow-ups find it.
const finishedVerbose = `{"msg_type":"generate_answer_finish","data":"{\"finish_reason\":0,\"fin_data\":\"\"}","from_unit":""}`

func (s *Service) answerFinished(t *turn, rs *runState) {
	m := t.newMessage(s, conversation.TypeVerbose, finishedVerbose)
	rs.mu.Lock()
	rs.out = append(rs.out, m)
	rs.mu.Unlock()
	t.sink.Send(Event{Kind: EventMessageDone, Message: m})
}

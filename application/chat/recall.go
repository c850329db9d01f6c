package chat

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Recaller recalls the chunks of knowledge bases that answer a query; the
// knowledge service implements it (through an adapter in the wiring).
type Recaller interface {
	// Recall returns the best chunks of q's knowledge bases, best first,
	// with their document names; finding none is not an error. It fails
	// when the embedding or rerank model cannot be reached, among others.
	Recall(ctx context.Context, q RecallQuery) ([]knowledge.Recalled, error)
}

// RecallQuery is one retrieval for a turn: the knowledge bases of the
// bot's workspace it may touch, the query, the conversation's last texts
// (for query rewrite, by the bot's own model) and the bot's retrieval
// settings.
type RecallQuery struct {
	WorkspaceID  int64
	KnowledgeIDs []int64
	Query        string
	History      []string
	Retrieval    knowledge.Retrieval
	RewriteModel string
}

// errNoRecaller is a recall on a server wired without knowledge.
var errNoRecaller = errors.New("knowledge bases are not available on this server")

// autoRecall is the automatic knowledge step of a new turn (Coze's
// auto_call): it recalls with the user's message before the model runs and
// quotes the chunks in the prompt. When nothing is recalled and the bot
// has a no-recall reply, it answers that and reports true: the model is not
// called. A failed recall leaves the turn to go on without knowledge.
func (s *Service) autoRecall(ctx context.Context, t *turn, rs *runState) bool {
	k := t.cfg.Knowledge
	// A turn continuing with tool outputs ends with them, not with a
	// question: its transcript already quotes what was recalled.
	if !k.Enabled() || !k.AutoCall || len(t.input) == 0 || t.input[len(t.input)-1].Role != schema.User {
		return false
	}
	query, history := turnQuery(t.input)
	if strings.TrimSpace(query) == "" {
		return false
	}
	hits, err := s.recall(ctx, rs, k, query, history, "")
	switch {
	case err != nil:
		return false
	case len(hits) == 0 && k.NoRecallReply != "":
		rs.directAnswer(ctx, k.NoRecallReply)
		return true
	case len(hits) > 0:
		t.input = withKnowledge(t.input, hits)
	}
	return false
}

// recall runs one retrieval for the run and records it: a step for hooks
// (the trace's retrieval span, with callID when a tool asked), and, when
// chunks came back, the knowledge_recall verbose message and the sources
// of the answer. A failure is logged and returned; callers go on without
// knowledge.
func (s *Service) recall(ctx context.Context, rs *runState, k bot.KnowledgeSettings, query string, history []string, callID string) ([]knowledge.Recalled, error) {
	c := rs.t.chat
	start := time.Now()
	var hits []knowledge.Recalled
	err := errNoRecaller
	if s.d.Knowledge != nil {
		hits, err = s.d.Knowledge.Recall(ctx, RecallQuery{WorkspaceID: c.WorkspaceID, KnowledgeIDs: k.KnowledgeIDs,
			Query: query, History: history, Retrieval: k.Retrieval, RewriteModel: rs.t.compiled.modelID})
	}
	s.hook(ctx, Step{Kind: StepRetrieval, ChatID: c.ID, BotID: c.BotID, Text: query, ToolCallID: callID,
		Recalled: hits, KnowledgeIDs: k.KnowledgeIDs, Duration: time.Since(start), Err: err})
	if err != nil {
		s.d.Log.Warn("chat: knowledge recall failed; the turn goes on without knowledge",
			"chat_id", c.ID, "bot_id", c.BotID, "err", err)
		return nil, err
	}
	if len(hits) > 0 {
		rs.recordRecall(query, hits, k.ShowSource)
	}
	return hits, nil
}

// turnQuery is the text of the user's last message, the query, and the
// texts of the conversation before it, oldest first, for query rewrite.
func turnQuery(input []*schema.Message) (string, []string) {
	last := -1
	for i := len(input) - 1; i >= 0; i-- {
		if input[i].Role == schema.User {
			last = i
			break
		}
	}
	if last < 0 {
		return "", nil
	}
	var history []string
	for _, m := range input[:last] {
		if m.Role == schema.User || m.Role == schema.Assistant {
			if text := messageText(m); text != "" {
				history = append(history, text)
			}
		}
	}
	return messageText(input[last]), history
}

// messageText is the text of a model message, its text parts joined when
// it has several (a message with files).
func messageText(m *schema.Message) string {
	if m.Content != "" || len(m.UserInputMultiContent) == 0 {
		return m.Content
	}
	var parts []string
	for _, p := range m.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// withKnowledge returns the model's input with the recalled chunks added
// to the system prompt (the first message), quoted as reference material.
func withKnowledge(input []*schema.Message, hits []knowledge.Recalled) []*schema.Message {
	out := append([]*schema.Message{}, input...)
	block := knowledgePrompt(hits)
	if len(out) > 0 && out[0].Role == schema.System {
		out[0] = schema.SystemMessage(out[0].Content + "\n\n" + block)
		return out
	}
	return append([]*schema.Message{schema.SystemMessage(block)}, out...)
}

package bots

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
)

// FeedbackReader lists the feedback given to a bot's answers.
type FeedbackReader interface {
	ListFeedback(ctx context.Context, p identity.Principal, botID int64, page identity.Page) ([]convapp.FeedbackItem, int64, error)
}

// Feedback serves the builders' read of end users' feedback.
type Feedback struct{ Svc FeedbackReader }

// FeedbackMessageDTO is a message as the feedback list shows it.
type FeedbackMessageDTO struct {
	ID          string `json:"id"`
	Content     string `json:"content"`
	ContentType string `json:"content_type"`
	CreatedAt   int64  `json:"created_at"`
}

// FeedbackDTO is one answer's feedback with the answer and its question.
type FeedbackDTO struct {
	ConversationID string              `json:"conversation_id"`
	ChatID         string              `json:"chat_id"`
	FeedbackType   string              `json:"feedback_type"`
	ReasonTypes    []string            `json:"reason_types"`
	Comment        string              `json:"comment"`
	CreatedAt      int64               `json:"created_at"`
	Answer         FeedbackMessageDTO  `json:"answer"`
	Question       *FeedbackMessageDTO `json:"question"`
}

func newFeedbackMessage(m *conversation.Message) *FeedbackMessageDTO {
	if m == nil {
		return nil
	}
	return &FeedbackMessageDTO{ID: strconv.FormatInt(m.ID, 10), Content: m.Content, ContentType: m.ContentType,
		CreatedAt: httpx.Unix(m.CreatedAt)}
}

func newFeedbackDTO(it *convapp.FeedbackItem) FeedbackDTO {
	a := &it.Answer
	d := FeedbackDTO{ConversationID: strconv.FormatInt(a.ConversationID, 10), ChatID: strconv.FormatInt(a.ChatID, 10),
		ReasonTypes: []string{}, Answer: *newFeedbackMessage(a), Question: newFeedbackMessage(it.Question)}
	if f := a.Feedback; f != nil {
		d.FeedbackType, d.Comment, d.CreatedAt = f.Type, f.Comment, httpx.Unix(f.CreatedAt)
		d.ReasonTypes = append(d.ReasonTypes, f.ReasonTypes...)
	}
	return d
}

// List answers GET /api/bots/:id/feedback?page_num&page_size: the answers
// end users judged, the latest first, each with its question.
func (h Feedback) List(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	items, total, err := h.Svc.ListFeedback(ctx, httpx.Caller(c), id, page)
	if err != nil {
		return err
	}
	out := make([]FeedbackDTO, len(items))
	for i := range items {
		out[i] = newFeedbackDTO(&items[i])
	}
	httpx.OK(c, httpx.List[FeedbackDTO]{Items: out, Total: total})
	return nil
}

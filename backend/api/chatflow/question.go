package chatflow

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/pergola-ai/pergola/backend/api/chat"
	"github.com/pergola-ai/pergola/backend/api/conversations"
	"github.com/pergola-ai/pergola/domain/conversation"
	wf "github.com/pergola-ai/pergola/workflow"
)

// chatEvent is a chat as Coze's chatflow events carry it: with the run's
// execute_id.
type chatEvent struct {
	chat.Chat
	ExecuteID string `json:"execute_id,omitempty"`
}

func (t *turn) chatEvent() chatEvent {
	e := chatEvent{Chat: chat.NewChat(&t.chat)}
	if t.runID != 0 {
		e.ExecuteID = strconv.FormatInt(t.runID, 10)
	}
	return e
}

// ask shows the question a run stopped at as the bot's answer, kept in
// the conversation, as Coze Studio does: a question without options is
// text (a delta, then completed); a question with options, and an input
// node's form, are a card (completed only).
func (t *turn) ask(ctx context.Context, in *wf.Interrupt) {
	content, contentType := questionContent(in)
	m := t.store(ctx, content, contentType)
	if contentType == conversation.ContentText {
		t.send("conversation.message.delta", conversations.NewMessage(m))
	}
	t.send("conversation.message.completed", conversations.NewMessage(m))
}

// Coze's card of a question or a form: its envelope, with what the card
// shows in x_properties.workflow_card_info.
const (
	cardType         = 3
	cardContentType  = 50
	cardTemplateID   = 7383997384420262000 // Coze's template of workflow cards
	cardQuestionKind = "QUESTION"
	cardInputKind    = "INPUT"
)

type card struct {
	CardType     int               `json:"card_type"`
	ContentType  int               `json:"content_type"`
	ResponseType string            `json:"response_type"`
	TemplateID   int64             `json:"template_id"`
	TemplateURL  string            `json:"template_url"`
	Data         string            `json:"data"`
	XProperties  map[string]string `json:"x_properties"`
}

type cardOption struct {
	Name string `json:"name"`
}

type questionCard struct {
	CardType string `json:"card_type"`
	Data     struct {
		Title   string       `json:"Title"`
		Options []cardOption `json:"Options"`
	} `json:"question_card_data"`
}

type cardField struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

type inputCard struct {
	CardType string      `json:"card_type"`
	Fields   []cardField `json:"input_card_data"`
}

// questionContent is the message showing an interrupt, and its content
// type.
func questionContent(in *wf.Interrupt) (string, string) {
	if in.Kind == wf.InterruptInput {
		return cardOf(inputCardOf(in)), conversation.ContentCard
	}
	if len(in.Options) == 0 {
		return in.Question, conversation.ContentText
	}
	q := questionCard{CardType: cardQuestionKind}
	q.Data.Title = in.Question
	for _, o := range in.Options {
		q.Data.Options = append(q.Data.Options, cardOption{Name: o})
	}
	return cardOf(q), conversation.ContentCard
}

func inputCardOf(in *wf.Interrupt) inputCard {
	c := inputCard{CardType: cardInputKind, Fields: []cardField{}}
	for _, f := range in.Fields {
		c.Fields = append(c.Fields, cardField{Type: cozeType(f.Type), Name: f.Name, Required: f.Required})
	}
	return c
}

// cardOf wraps what a card shows in Coze's envelope. Data holds it too:
// Pergola has no card renderer of its own.
func cardOf(info any) string {
	b, _ := json.Marshal(info)
	c := card{CardType: cardType, ContentType: cardContentType, ResponseType: "card", TemplateID: cardTemplateID,
		Data: string(b), XProperties: map[string]string{"workflow_card_info": string(b)}}
	out, _ := json.Marshal(c)
	return string(out)
}

// cozeType names a field's type as Coze's forms do.
func cozeType(t wf.Type) string {
	switch t {
	case wf.TypeNumber:
		return "float"
	case wf.TypeArray:
		return "list"
	case wf.TypeAny:
		return "string"
	}
	return string(t)
}

package workflow

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Extraction from answers, as Coze Studio's question node does it: a model
// reads the declared outputs out of the conversation so far and replies
// {"fields": {...}} once every required field is known, or
// {"question": "..."} to ask a follow-up, which interrupts the run again.
// The follow-up questions are kept in the checkpoint, so a resumed run
// asks the model only about the newest answer.

// defaultMaxAnswers is how many answers an extracting question takes
// before it fails.
const defaultMaxAnswers = 3

// roundKey is the key the i-th answer of a question execution is filed
// under: the execution's own key first, then key#1, key#2...
func roundKey(key string, i int) string {
	if i == 0 {
		return key
	}
	return key + "#" + strconv.Itoa(i)
}

// followUpKey keeps the question the model asked after n answers.
func followUpKey(key string, n int) string { return key + "#q" + strconv.Itoa(n) }

// runExtract asks until the model has every required field.
func (r *questionRunner) runExtract(ctx context.Context, x *nodeCtx, key, first string) (map[string]any, error) {
	questions, answers := []string{first}, []string(nil)
	for i := 0; ; i++ {
		answer, ok := x.rc.answer(roundKey(key, i))
		if !ok {
			r.ask(x, roundKey(key, i), questions[i])
			return nil, errInterrupted
		}
		answers = append(answers, answer)
		next, fields, err := r.nextStep(ctx, x, key, questions, answers)
		if err != nil {
			return nil, err
		}
		if next == "" {
			return r.extracted(fields, answer), nil
		}
		if len(answers) >= r.maxAnswers() {
			return nil, permanent(fmt.Errorf("%d answers did not give the required fields (%s); the model still asks %q",
				len(answers), strings.Join(r.required(), ", "), next))
		}
		questions = append(questions, next)
	}
}

func (r *questionRunner) maxAnswers() int {
	if r.cfg.MaxAnswers > 0 {
		return r.cfg.MaxAnswers
	}
	return defaultMaxAnswers
}

// extracted is the node's output: the declared fields and the last answer.
func (r *questionRunner) extracted(fields map[string]any, answer string) map[string]any {
	out := map[string]any{"answer": answer}
	for _, p := range r.extract {
		out[p.Name] = fields[p.Name]
	}
	return out
}

// nextStep returns the follow-up the model asked after these answers (kept
// from an earlier pass of a resumed run), or else asks the model: its
// follow-up, or the fields it extracted.
func (r *questionRunner) nextStep(ctx context.Context, x *nodeCtx, key string, questions, answers []string) (string, map[string]any, error) {
	fk := followUpKey(key, len(answers))
	if d, ok := x.rc.replayed(fk); ok {
		q, _ := d.Out["question"].(string)
		return q, nil, nil
	}
	reply, err := r.callExtractor(ctx, x, questions, answers)
	if err != nil {
		return "", nil, err
	}
	if q, _ := reply["question"].(string); strings.TrimSpace(q) != "" {
		x.rc.noteDone(fk, map[string]any{"question": q}, "")
		return q, nil, nil
	}
	if fields, ok := reply["fields"].(map[string]any); ok {
		return "", fields, nil
	}
	return "", reply, nil
}

// callExtractor gives the model the fields and the conversation so far.
func (r *questionRunner) callExtractor(ctx context.Context, x *nodeCtx, questions, answers []string) (map[string]any, error) {
	cm, err := chatModel(ctx, x, r.cfg.ModelID)
	if err != nil {
		return nil, err
	}
	msgs := []*schema.Message{schema.SystemMessage(r.extractPrompt())}
	for i, a := range answers {
		if i == len(answers)-1 {
			a += "\n\n(Required fields: " + strings.Join(r.required(), ", ") + ". Reply in JSON only.)"
		}
		msgs = append(msgs, schema.AssistantMessage(questions[i], nil), schema.UserMessage(a))
	}
	msg, err := generate(ctx, x, cm, msgs, nil)
	if err != nil {
		return nil, err
	}
	return parseJSONReply(msg.Content)
}

func (r *questionRunner) extractPrompt() string {
	var b strings.Builder
	b.WriteString("You extract the values of these fields from the user's answers:\n")
	for _, p := range r.extract {
		fmt.Fprintf(&b, "- %s (%s", p.Name, p.Schema)
		if p.Required {
			b.WriteString(", required")
		}
		b.WriteString(")")
		if p.Description != "" {
			b.WriteString(": " + p.Description)
		}
		b.WriteString("\n")
	}
	b.WriteString("Reply with one JSON object: {\"fields\": {the fields found so far}} and, while a required field " +
		"is still unknown, \"question\": a follow-up question asking only for the missing required fields, in the " +
		"user's language. Do not repeat a question already asked.")
	if r.cfg.Persona != "" {
		b.WriteString("\n\nAsk follow-up questions as: " + r.cfg.Persona)
	}
	return b.String()
}

func (r *questionRunner) required() []string {
	var names []string
	for _, p := range r.extract {
		if p.Required {
			names = append(names, p.Name)
		}
	}
	return names
}

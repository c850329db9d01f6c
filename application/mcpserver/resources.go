package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// The resources' URIs: a bot's or a workflow's tool described, and a
// conversation's messages.
const (
	uriScheme        = "pergola://"
	botURI           = uriScheme + "bots/"
	workflowURI      = uriScheme + "workflows/"
	conversationURI  = uriScheme + "conversations/"
	messagesSuffix   = "/messages"
	resourceMIMEType = "application/json"
	// maxMessages is how many of a conversation's latest messages its
	// resource holds (the conversation API's page size).
	maxMessages = 50
)

// ErrUnknownResource is returned by ReadResource for a URI the caller has
// no resource at (never existed, or out of its reach: the two read alike).
var ErrUnknownResource = errors.New("unknown resource")

// Conversations reads conversations with the caller's rights
// (conversation.Service).
type Conversations interface {
	Get(ctx context.Context, p identity.Principal, id int64) (*conversation.Conversation, error)
	ListMessages(ctx context.Context, p identity.Principal, conversationID int64, q conversation.MessageQuery) ([]conversation.Message, bool, error)
}

// Resource is one resource as a client lists it.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// Template is a resource template: the URIs a client may read, of which
// the list holds only the bots and workflows.
type Template struct {
	URITemplate string
	Name        string
	Description string
	MIMEType    string
}

// Templates lists the resource templates.
func Templates() []Template {
	return []Template{
		{URITemplate: botURI + "{id}", Name: "bot", MIMEType: resourceMIMEType,
			Description: "A published bot as its chat_* tool: name, description, input and output schema."},
		{URITemplate: workflowURI + "{id}", Name: "workflow", MIMEType: resourceMIMEType,
			Description: "A published workflow as its wf_* tool: name, description, input schema (the start node's parameters)."},
		{URITemplate: conversationURI + "{conversation_id}" + messagesSuffix, Name: "conversation messages", MIMEType: resourceMIMEType,
			Description: "The latest messages of a conversation you started (the conversation_id of a chat_* answer), oldest first."},
	}
}

// Resources lists one resource per tool of the caller: what the tool is
// and takes, as JSON.
func (s *Service) Resources(ctx context.Context, p identity.Principal) ([]Resource, error) {
	tools, err := s.Tools(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]Resource, 0, len(tools))
	for _, t := range tools {
		out = append(out, Resource{URI: t.uri(), Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: resourceMIMEType})
	}
	return out, nil
}

func (t *Tool) uri() string {
	prefix := botURI
	if t.kind == workflowTool {
		prefix = workflowURI
	}
	return prefix + strconv.FormatInt(t.id, 10)
}

// ReadResource returns the JSON text of the resource at uri: a tool's
// description, or the messages of a conversation the caller started. A
// URI out of the caller's reach is ErrUnknownResource.
func (s *Service) ReadResource(ctx context.Context, p identity.Principal, uri string) (string, error) {
	if rest, ok := strings.CutPrefix(uri, conversationURI); ok {
		id, err := strconv.ParseInt(strings.TrimSuffix(rest, messagesSuffix), 10, 64)
		if err != nil || !strings.HasSuffix(rest, messagesSuffix) || id <= 0 {
			return "", fmt.Errorf("%w %q", ErrUnknownResource, uri)
		}
		return s.messages(ctx, p, id, uri)
	}
	tools, err := s.Tools(ctx, p)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.uri() == uri })
	if i < 0 {
		return "", fmt.Errorf("%w %q", ErrUnknownResource, uri)
	}
	return toolJSON(&tools[i])
}

// toolJSON describes a tool: its name, what it is and what it takes.
func toolJSON(t *Tool) (string, error) {
	kind := "bot"
	if t.kind == workflowTool {
		kind = "workflow"
	}
	doc := map[string]any{"id": strconv.FormatInt(t.id, 10), "kind": kind, "name": t.Title, "tool": t.Name,
		"description": t.Description, "workspace_id": strconv.FormatInt(t.workspaceID, 10), "input_schema": t.InputSchema}
	if t.OutputSchema != nil {
		doc["output_schema"] = t.OutputSchema
	}
	if t.kind == workflowTool {
		doc["version"] = t.version
	}
	b, err := json.Marshal(doc)
	return string(b), err
}

// messages returns the latest messages of conversation id, oldest first,
// when the caller may read it (as the conversation API checks) and is the
// user who started it: another member's conversations with a bot are
// theirs.
func (s *Service) messages(ctx context.Context, p identity.Principal, id int64, uri string) (string, error) {
	if s.d.Conversations == nil {
		return "", fmt.Errorf("%w %q", ErrUnknownResource, uri)
	}
	c, err := s.d.Conversations.Get(ctx, p, id)
	if errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrForbidden) || err == nil && c.CreatorID != p.UserID {
		return "", fmt.Errorf("%w %q", ErrUnknownResource, uri)
	}
	if err != nil {
		return "", err
	}
	list, _, err := s.d.Conversations.ListMessages(ctx, p, id, conversation.MessageQuery{Order: conversation.OrderDesc, Limit: maxMessages})
	if err != nil {
		return "", err
	}
	out := make([]map[string]any, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		m := list[i]
		if m.Type == conversation.TypeVerbose {
			continue // the run's bookkeeping, not what was said
		}
		out = append(out, map[string]any{"id": strconv.FormatInt(m.ID, 10), "chat_id": strconv.FormatInt(m.ChatID, 10),
			"role": m.Role, "type": m.Type, "content": m.Content, "content_type": m.ContentType,
			"created_at": m.CreatedAt.UTC().Format(time.RFC3339)})
	}
	b, err := json.Marshal(map[string]any{"conversation_id": strconv.FormatInt(id, 10), "messages": out})
	return string(b), err
}

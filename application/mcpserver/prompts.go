package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/identity"
)

// ErrUnknownPrompt is returned by GetPrompt for a name the caller has no
// prompt of.
var ErrUnknownPrompt = errors.New("unknown prompt")

// Prompt is a bot's published prompt (its persona) offered as an MCP
// prompt, named as the bot's tool.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Text        string
}

// Prompts lists the prompts of the caller's bots that have one.
func (s *Service) Prompts(ctx context.Context, p identity.Principal) ([]Prompt, error) {
	tools, err := s.Tools(ctx, p)
	if err != nil {
		return nil, err
	}
	var out []Prompt
	for _, t := range tools {
		if t.kind != botTool || strings.TrimSpace(t.prompt) == "" {
			continue
		}
		out = append(out, Prompt{Name: t.Name, Title: t.Title, Text: t.prompt,
			Description: fmt.Sprintf("The published prompt of the bot %s: %s", t.Title, t.Description)})
	}
	return out, nil
}

// GetPrompt returns the caller's prompt called name, or ErrUnknownPrompt.
func (s *Service) GetPrompt(ctx context.Context, p identity.Principal, name string) (*Prompt, error) {
	list, err := s.Prompts(ctx, p)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].Name == name {
			return &list[i], nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownPrompt, name)
}

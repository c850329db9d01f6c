package chat

import (
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/variable"
)

// systemPrompt is the persona with its {{keyword}} placeholders filled,
// the variables the bot shows the model, and the current time.
func systemPrompt(cfg *bot.Config, values map[string]string, now time.Time) string {
	var b strings.Builder
	if p := strings.TrimSpace(variable.Render(cfg.Prompt, values)); p != "" {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	var shown []variable.Definition
	for _, d := range cfg.Variables {
		if d.ShowInPrompt {
			shown = append(shown, d)
		}
	}
	if len(shown) > 0 {
		b.WriteString("# What you remember about the user\n")
		for _, d := range shown {
			b.WriteString("- " + d.Keyword)
			if d.Description != "" {
				b.WriteString(" (" + d.Description + ")")
			}
			b.WriteString(": " + values[d.Keyword] + "\n")
		}
		b.WriteString("\n")
	}
	if len(cfg.Variables) > 0 {
		b.WriteString("When the user tells you something worth remembering for these variables, save it with the " +
			bot.KeywordMemoryTool + " tool.\n\n")
	}
	b.WriteString("Current time: " + now.UTC().Format("2006-01-02 15:04 MST (Monday)"))
	return b.String()
}

package sqlstore

import "github.com/pergola-ai/pergola/domain/bot"

// subAgentDoc is one sub-agent of a stored bot configuration.
type subAgentDoc struct {
	BotID          int64  `json:"bot_id"`
	Description    string `json:"description"`
	ReturnDirectly bool   `json:"return_directly,omitempty"`
}

func encodeSubAgents(in []bot.SubAgent) []subAgentDoc {
	var out []subAgentDoc
	for _, s := range in {
		out = append(out, subAgentDoc{BotID: s.BotID, Description: s.Description, ReturnDirectly: s.ReturnDirectly})
	}
	return out
}

func decodeSubAgents(in []subAgentDoc) []bot.SubAgent {
	var out []bot.SubAgent
	for _, d := range in {
		out = append(out, bot.SubAgent{BotID: d.BotID, Description: d.Description, ReturnDirectly: d.ReturnDirectly})
	}
	return out
}

package bots

import (
	"strconv"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
)

// SubAgentDTO is one sub-agent of a bot: another bot of the workspace the
// model calls as a tool, with the description the model sees.
type SubAgentDTO struct {
	BotID          idText `json:"bot_id"`
	Description    string `json:"description"`
	ReturnDirectly bool   `json:"return_directly"`
}

// subAgentsToDomain reads a list of sub-agents; a wrong id names its
// place, e.g. "sub_agents[1].bot_id".
func subAgentsToDomain(in []SubAgentDTO) ([]bot.SubAgent, error) {
	var out []bot.SubAgent
	for i, s := range in {
		id, err := s.BotID.parse("sub_agents["+strconv.Itoa(i)+"].bot_id", true)
		if err != nil {
			return nil, err
		}
		out = append(out, bot.SubAgent{BotID: id, Description: s.Description, ReturnDirectly: s.ReturnDirectly})
	}
	return out, nil
}

// newSubAgentDTOs shows a configuration's sub-agents; never null.
func newSubAgentDTOs(in []bot.SubAgent) []SubAgentDTO {
	out := []SubAgentDTO{}
	for _, s := range in {
		out = append(out, SubAgentDTO{BotID: idText(strconv.FormatInt(s.BotID, 10)), Description: s.Description, ReturnDirectly: s.ReturnDirectly})
	}
	return out
}

// cozeSubAgentOut is a sub-agent in Coze's Bot object, its ids strings.
type cozeSubAgentOut struct {
	BotID          httpx.ID `json:"bot_id"`
	Description    string   `json:"description"`
	ReturnDirectly bool     `json:"return_directly"`
}

func cozeSubAgents(in []bot.SubAgent) []cozeSubAgentOut {
	out := []cozeSubAgentOut{}
	for _, s := range in {
		out = append(out, cozeSubAgentOut{BotID: httpx.ID(s.BotID), Description: s.Description, ReturnDirectly: s.ReturnDirectly})
	}
	return out
}

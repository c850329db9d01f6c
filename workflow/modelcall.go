package workflow

import (
	"fmt"

	"github.com/cloudwego/eino/schema"
)

// responseIDKey is where eino-ext's OpenAI client keeps the provider's
// completion id in a message's Extra.
const responseIDKey = "openai-request-id"

// reply notes what the model answered: the message, the completion's id
// and why it stopped. A nil call (a model called outside an llm node's
// bookkeeping) notes nothing.
func (c *ModelCall) reply(msg *schema.Message) {
	if c == nil || msg == nil {
		return
	}
	c.Output = msg
	if id, ok := msg.Extra[responseIDKey]; ok {
		c.ResponseID = fmt.Sprint(id)
	}
	if msg.ResponseMeta != nil && msg.ResponseMeta.FinishReason != "" {
		c.FinishReasons = []string{msg.ResponseMeta.FinishReason}
	}
}

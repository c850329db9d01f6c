package workflow

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// intentKind lets a model route the run to one of named branches.
type intentKind struct{}

type intentConfig struct {
	ModelID string        `json:"model_id" jsonschema:"required"`
	Intents []intentEntry `json:"intents" jsonschema:"required,minItems=1,description=each intent is a port"`
	System  string        `json:"system,omitempty" jsonschema:"description=extra instructions for the classification"`
}

type intentEntry struct {
	Name        string `json:"name" jsonschema:"required,description=the intent\\, also its port"`
	Description string `json:"description,omitempty"`
}

// OtherPort is the port an intent node takes when no intent fits.
const OtherPort = "other"

func (intentKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "intent", Title: "Intent", Category: categoryAI,
		Description: "A model classifies input query into one of the named intents; the run follows the port of that " +
			"name, or \"other\". Outputs the intent's name.",
		ConfigSchema: configSchema(&intentConfig{}),
		Inputs:       []InputInfo{{Name: "query", Type: TypeString, Required: true, Description: "the text classified"}},
		Outputs:      []Param{P("intent", TypeString)},
		Ports:        []string{"<intent name>", OtherPort}}
}

func (intentKind) check(c *checker, n *Node) *nodeSpec {
	var cfg intentConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	if cfg.ModelID == "" {
		c.fail(nodeField(n, "config.model_id"), "is required: a model of GET /api/models")
	}
	if len(cfg.Intents) == 0 {
		c.fail(nodeField(n, "config.intents"), "needs at least one intent")
		return nil
	}
	var ports []string
	for i, it := range cfg.Intents {
		if !inputNamePattern.MatchString(it.Name) || it.Name == OtherPort || it.Name == ErrorPort || slices.Contains(ports, it.Name) {
			c.fail(nodeField(n, "config.intents["+strconv.Itoa(i)+"].name"),
				"must be a unique name of letters, digits and _ (not other or error); got %q", it.Name)
		}
		ports = append(ports, it.Name)
	}
	r := &intentRunner{cfg: cfg, names: ports}
	return &nodeSpec{outputs: []Param{P("intent", TypeString)}, ports: append(ports, OtherPort), blocking: true,
		required: []string{"query"}, want: map[string]Schema{"query": S(TypeString)}, runner: r}
}

type intentRunner struct {
	cfg   intentConfig
	names []string
}

func (r *intentRunner) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	cm, err := chatModel(ctx, x, r.cfg.ModelID)
	if err != nil {
		return nil, err
	}
	query, _ := in["query"].(string)
	msgs := []*schema.Message{schema.SystemMessage(r.prompt()), schema.UserMessage(query)}
	reply, err := generate(ctx, x, cm, msgs, nil)
	if err != nil {
		return nil, err
	}
	x.port = r.match(reply.Content)
	return map[string]any{"intent": x.port}, nil
}

func (r *intentRunner) prompt() string {
	var b strings.Builder
	b.WriteString("Classify the user's message into exactly one of these intents:\n")
	for _, it := range r.cfg.Intents {
		b.WriteString("- " + it.Name)
		if it.Description != "" {
			b.WriteString(": " + it.Description)
		}
		b.WriteString("\n")
	}
	b.WriteString("Reply with the intent's name only, or \"other\" when none fits.")
	if r.cfg.System != "" {
		b.WriteString("\n\n" + r.cfg.System)
	}
	return b.String()
}

// match finds the intent a reply names: the reply itself, a JSON object's
// "intent", or the first intent name the reply mentions.
func (r *intentRunner) match(reply string) string {
	s := strings.Trim(strings.TrimSpace(reply), "\"'`.")
	var obj struct {
		Intent string `json:"intent"`
	}
	if json.Unmarshal([]byte(reply), &obj) == nil && obj.Intent != "" {
		s = obj.Intent
	}
	for _, name := range r.names {
		if strings.EqualFold(s, name) {
			return name
		}
	}
	lower := strings.ToLower(reply)
	for _, name := range r.names {
		if strings.Contains(lower, strings.ToLower(name)) {
			return name
		}
	}
	return OtherPort
}

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
	Name        string `json:"name" jsonschema:"required,description=the intent\\, also its port unless port is set"`
	Description string `json:"description,omitempty"`
	Port        string `json:"port,omitempty" jsonschema:"description=the port of the intent when the name is free text"`
}

// OtherPort is the port an intent node takes when no intent fits.
const OtherPort = "other"

func (intentKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "intent", Title: "Intent", Category: categoryAI,
		Description: "A model classifies input query into one of the named intents; the run follows the port of that " +
			"intent, or \"other\". Outputs the intent's name, its classification_id (1 for the first intent, 0 for " +
			"other) and the model's reason.",
		ConfigSchema: configSchema(&intentConfig{}),
		Inputs:       []InputInfo{{Name: "query", Type: TypeString, Required: true, Description: "the text classified"}},
		Outputs:      intentOutputs,
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
		at, port := nodeField(n, "config.intents["+strconv.Itoa(i)+"]"), it.Port
		if port == "" {
			at, port = at+".name", it.Name
		} else {
			at += ".port" // with a port the name may be any text, even empty (as in Coze Studio)
		}
		if !inputNamePattern.MatchString(port) || port == OtherPort || port == ErrorPort || slices.Contains(ports, port) {
			c.fail(at, "must be a unique name of letters, digits and _ (not other or error); got %q", port)
		}
		ports = append(ports, port)
	}
	r := &intentRunner{cfg: cfg, ports: ports}
	return &nodeSpec{outputs: intentOutputs, ports: append(ports, OtherPort), blocking: true,
		required: []string{"query"}, want: map[string]Schema{"query": S(TypeString)}, runner: r}
}

type intentRunner struct {
	cfg   intentConfig
	ports []string // of each intent
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
	c := r.classify(reply.Content)
	x.port = OtherPort
	out := map[string]any{"intent": OtherPort, "classification_id": int64(c.id), "reason": c.reason}
	if c.id > 0 {
		x.port, out["intent"] = r.ports[c.id-1], r.cfg.Intents[c.id-1].Name
	}
	return out, nil
}

// intentOutputs are the outputs of every intent node.
var intentOutputs = []Param{P("intent", TypeString), P("classification_id", TypeInteger), P("reason", TypeString)}

// prompt lists the intents by classification id and asks for a JSON reply
// naming one with a reason (the protocol Coze Studio's detector uses).
func (r *intentRunner) prompt() string {
	var b strings.Builder
	b.WriteString("Classify the user's message into exactly one of these intents:\n")
	b.WriteString(`{"classificationId": 0, "content": "none of the others"}` + "\n")
	for i, it := range r.cfg.Intents {
		content := it.Name
		if it.Description != "" {
			content += ": " + it.Description
		}
		line, _ := json.Marshal(map[string]any{"classificationId": i + 1, "content": content})
		b.Write(append(line, '\n'))
	}
	b.WriteString(`Reply with one JSON object only: {"classificationId": <the id>, "reason": "<why, briefly>"}.`)
	if r.cfg.System != "" {
		b.WriteString("\n\n" + r.cfg.System)
	}
	return b.String()
}

// classification is the intent a reply picks (0: none) and the reason.
type classification struct {
	id     int
	reason string
}

// classify reads a reply: a JSON object with classificationId (and reason)
// or intent; else the reply as an intent's name, a bare id, or the first
// intent name the reply mentions.
func (r *intentRunner) classify(reply string) classification {
	var obj struct {
		ID     *json.Number `json:"classificationId"`
		Intent string       `json:"intent"`
		Reason string       `json:"reason"`
	}
	s := strings.Trim(strings.TrimSpace(reply), "\"'`.")
	if start, end := strings.Index(reply, "{"), strings.LastIndex(reply, "}"); start >= 0 && end > start &&
		json.Unmarshal([]byte(reply[start:end+1]), &obj) == nil {
		if obj.ID != nil {
			return classification{id: r.byID(obj.ID.String()), reason: obj.Reason}
		}
		s = obj.Intent
	}
	if id := r.byID(s); id > 0 {
		return classification{id: id, reason: obj.Reason}
	}
	return classification{id: r.byName(s, reply), reason: obj.Reason}
}

// byID returns the intent a classification id names, or 0.
func (r *intentRunner) byID(s string) int {
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || n != float64(int(n)) || n < 1 || int(n) > len(r.cfg.Intents) {
		return 0
	}
	return int(n)
}

// byName returns the intent named s, or else the first one reply
// mentions, or 0.
func (r *intentRunner) byName(s, reply string) int {
	for i, it := range r.cfg.Intents {
		if strings.EqualFold(s, it.Name) || strings.EqualFold(s, r.ports[i]) {
			return i + 1
		}
	}
	lower := strings.ToLower(reply)
	for i, it := range r.cfg.Intents {
		if strings.Contains(lower, strings.ToLower(it.Name)) {
			return i + 1
		}
	}
	return 0
}

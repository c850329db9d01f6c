package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/eino-contrib/jsonschema"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Knowledge nodes (Coze's knowledge retriever, writer and deleter) and
// the knowledge of llm nodes reach the knowledge bases of the run's
// workspace through the Knowledge port.

// maxKnowledgeBases bounds the knowledge bases one node searches.
const maxKnowledgeBases = 20

// knowledgeIDs is a list of knowledge base ids, each a JSON number or a
// string of digits; checkKnowledgeIDs reads them, naming a bad one.
type knowledgeIDs []json.RawMessage

// JSONSchema describes the list for the config schemas.
func (knowledgeIDs) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", MinItems: ptrUint(1), Items: idValue(0).JSONSchema()}
}

func ptrUint(n uint64) *uint64 { return &n }

// recallConfig is how knowledge is recalled, shared by the retrieve node
// and llm nodes.
type recallConfig struct {
	KnowledgeIDs knowledgeIDs `json:"knowledge_ids" jsonschema:"required,description=the knowledge bases searched (ids of the workspace's knowledge bases)"`
	TopK         int          `json:"top_k,omitempty" jsonschema:"minimum=0,maximum=50,description=at most this many chunks (0: 5)"`
	MinScore     float64      `json:"min_score,omitempty" jsonschema:"minimum=0,maximum=1,description=chunks scoring below are dropped"`
	Strategy     string       `json:"strategy,omitempty" jsonschema:"enum=semantic,enum=hybrid,enum=full_text,description=semantic (default): by meaning; full_text: by words; hybrid: both fused"`
	Rerank       bool         `json:"rerank,omitempty" jsonschema:"description=reorder the hits with the platform's rerank model"`
	Rewrite      bool         `json:"rewrite,omitempty" jsonschema:"description=rewrite the query from the conversation first (needs chat history)"`
}

// recall is a checked recallConfig.
type recall struct {
	ids      []int64
	topK     int
	minScore float64
	strategy KnowledgeStrategy
	rerank   bool
	rewrite  bool
}

// checkRecall checks a recall config under field (config or
// config.knowledge).
func (c *checker) checkRecall(n *Node, field string, cfg recallConfig) recall {
	r := recall{ids: c.checkKnowledgeIDs(n, field+".knowledge_ids", cfg.KnowledgeIDs), topK: cfg.TopK,
		minScore: cfg.MinScore, strategy: KnowledgeStrategy(cfg.Strategy), rerank: cfg.Rerank, rewrite: cfg.Rewrite}
	if cfg.TopK < 0 || cfg.TopK > 50 {
		c.fail(nodeField(n, field+".top_k"), "must be between 0 (5) and 50")
	}
	if cfg.MinScore < 0 || cfg.MinScore > 1 {
		c.fail(nodeField(n, field+".min_score"), "must be between 0 and 1")
	}
	switch r.strategy {
	case "":
		r.strategy = StrategySemantic
	case StrategySemantic, StrategyHybrid, StrategyFullText:
	default:
		c.fail(nodeField(n, field+".strategy"), "must be semantic, hybrid or full_text; got %q", cfg.Strategy)
	}
	if r.topK == 0 {
		r.topK = 5
	}
	return r
}

// checkKnowledgeIDs reads the ids of a list, reporting an empty list, an
// id that is not one and a repeated one.
func (c *checker) checkKnowledgeIDs(n *Node, field string, raw knowledgeIDs) []int64 {
	if len(raw) == 0 {
		c.fail(nodeField(n, field), "is required: at least one knowledge base id")
		return nil
	}
	if len(raw) > maxKnowledgeBases {
		c.fail(nodeField(n, field), "lists %d knowledge bases; at most %d", len(raw), maxKnowledgeBases)
	}
	ids := make([]int64, 0, len(raw))
	seen := map[int64]bool{}
	for i, b := range raw {
		at := nodeField(n, field+"["+strconv.Itoa(i)+"]")
		var v idValue
		if err := v.UnmarshalJSON(b); err != nil || v == 0 {
			c.fail(at, "must be a knowledge base id (digits); got %s", b)
			continue
		}
		if seen[int64(v)] {
			c.fail(at, "knowledge base %d is listed twice", v)
		}
		seen[int64(v)] = true
		ids = append(ids, int64(v))
	}
	return ids
}

// query is the retrieval of text under r.
func (r recall) query(s Scope, text string) KnowledgeQuery {
	return KnowledgeQuery{Scope: s, KnowledgeIDs: r.ids, Query: text, Strategy: r.strategy, TopK: r.topK,
		MinScore: r.minScore, Rerank: r.rerank, Rewrite: r.rewrite}
}

// knowledgePort returns the Knowledge port, or the error a node without
// it fails with.
func knowledgePort(x *nodeCtx) (Knowledge, error) {
	k := x.rc.eng.ports.Knowledge
	if k == nil {
		return nil, permanent(errors.New("knowledge bases are not available in this process"))
	}
	return k, nil
}

// knowledgeError wraps a failure of the port; one that names a missing
// knowledge base or bad input is not retried.
func knowledgeError(what string, err error) error {
	err = fmt.Errorf("%s: %w", what, err)
	if errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrInvalid) {
		return permanent(err)
	}
	return err
}

// retrieveKind is the knowledge retriever: the chunks of knowledge bases
// that best match a query.
type retrieveKind struct{}

type retrieveConfig struct {
	recallConfig
	ChatHistoryRounds int `json:"chat_history_rounds,omitempty" jsonschema:"minimum=0,maximum=50,description=in a conversation's turn: the rounds of the conversation a rewrite reads"`
}

// chunkSchema is an item of the retriever's chunks: output is the text,
// under Coze's name for it.
var chunkSchema = Schema{Type: TypeObject, Properties: []Param{P("output", TypeString), P("document_id", TypeString),
	P("document_name", TypeString), P("score", TypeNumber)}}

var retrieveOutputs = []Param{{Name: "chunks", Schema: ArrayOf(chunkSchema)}}

func (retrieveKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "knowledge_retrieve", Title: "Knowledge retrieve", Category: categoryKnowledge,
		Description: "Recalls the chunks of the knowledge bases that best match the query (semantic, full text or " +
			"hybrid; top_k, min_score, optional rerank and query rewrite): chunks, best first, each with its text " +
			"(output), document and score.",
		ConfigSchema: configSchema(&retrieveConfig{}),
		Inputs:       []InputInfo{{Name: "query", Type: TypeString, Required: true, Description: "what to look for"}},
		Outputs:      retrieveOutputs}
}

func (retrieveKind) check(c *checker, n *Node) *nodeSpec {
	var cfg retrieveConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	c.checkChatHistory(n, cfg.ChatHistoryRounds)
	p := &retrievePlan{recall: c.checkRecall(n, "config", cfg.recallConfig), rounds: cfg.ChatHistoryRounds}
	return &nodeSpec{outputs: retrieveOutputs, required: []string{"query"}, want: map[string]Schema{"query": S(TypeString)},
		blocking: true, runner: p}
}

// retrievePlan runs a retrieve node.
type retrievePlan struct {
	recall recall
	rounds int
}

func (p *retrievePlan) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	k, err := knowledgePort(x)
	if err != nil {
		return nil, err
	}
	text, _ := in["query"].(string)
	q := p.recall.query(x.rc.in.Scope, text)
	if p.recall.rewrite {
		if q.History, err = conversationHistory(ctx, x, p.rounds); err != nil {
			return nil, err
		}
	}
	var chunks []KnowledgeChunk
	if strings.TrimSpace(text) != "" {
		if chunks, err = k.Retrieve(ctx, q); err != nil {
			return nil, knowledgeError("knowledge retrieval", err)
		}
	}
	list := make([]any, len(chunks))
	for i, ch := range chunks {
		list[i] = map[string]any{"output": ch.Text, "document_id": strconv.FormatInt(ch.DocumentID, 10),
			"document_name": ch.DocumentName, "score": ch.Score}
	}
	return map[string]any{"chunks": list}, nil
}

// conversationHistory returns the last rounds of the run's conversation,
// oldest first; none outside a conversation.
func conversationHistory(ctx context.Context, x *nodeCtx, rounds int) ([]ConversationMessage, error) {
	s := x.rc.in.Scope
	h, ok := x.rc.eng.ports.Convs.(ChatHistorian)
	if rounds == 0 || s.ConversationID == 0 || !ok {
		return nil, nil
	}
	msgs, err := h.ChatHistory(ctx, s, rounds)
	if err != nil {
		return nil, fmt.Errorf("chat history: %w", err)
	}
	return msgs, nil
}

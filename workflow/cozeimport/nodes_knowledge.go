package cozeimport

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Knowledge nodes: Coze's retriever (6), writer (27) and deleter (60),
// and the knowledge of LLM nodes (fcParam.knowledgeFCParam). A canvas
// names Coze datasets; Options.Knowledge maps them to Pergola knowledge
// bases, as Options.Workflows maps workflows.

// knowledgeStrategy is the writer's strategyParam; parsing settings
// (fast or accurate, OCR, images, tables) have no counterpart: Pergola
// parses every file the one way.
type knowledgeStrategy struct {
	ChunkStrategy *struct {
		ChunkType string  `json:"chunkType"`
		Separator string  `json:"separator"`
		MaxToken  int     `json:"maxToken"`
		Overlap   float64 `json:"overlap"` // a share of maxToken
	} `json:"chunkStrategy"`
}

// chatHistorySetting is the retriever's chat history, which a query
// rewrite reads.
type chatHistorySetting struct {
	EnableChatHistory bool `json:"enableChatHistory"`
	ChatHistoryRound  int  `json:"chatHistoryRound"`
}

// datasetIDs reads datasetParam's datasetList and maps each Coze dataset
// to a Pergola knowledge base.
func (nc *nodeConv) datasetIDs() ([]int64, error) {
	const field = "data.inputs.datasetParam"
	p := findParam(nc.in.DatasetParam, "datasetList")
	if p == nil || p.Input == nil || p.Input.Value == nil {
		return nil, errs.Invalid(nc.at+"."+field, "names no datasetList: the node names no knowledge base")
	}
	var coze []flexString
	if err := json.Unmarshal(p.Input.Value.Content, &coze); err != nil {
		return nil, errs.Invalid(nc.at+"."+field+".datasetList", "is not a list of dataset ids: %v", err)
	}
	if len(coze) == 0 {
		return nil, errs.Invalid(nc.at+"."+field+".datasetList", "is empty: the node names no knowledge base")
	}
	ids := make([]int64, 0, len(coze))
	for _, c := range coze {
		id, err := nc.knowledgeID(string(c), field+".datasetList")
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// knowledgeID maps one Coze dataset. An unmapped one is unsupported with
// RequireKnowledgeMappings, else kept and reported as needing conversion.
func (nc *nodeConv) knowledgeID(coze, field string) (int64, error) {
	if id, ok := nc.c.opts.Knowledge[coze]; ok {
		return id, nil
	}
	if nc.c.opts.RequireKnowledgeMappings {
		return 0, unsupported("%s: Coze dataset %s is not mapped: map it to a Pergola knowledge base in mappings.knowledge", field, coze)
	}
	nc.flag("dataset %s is a Coze Studio dataset: map it to a Pergola knowledge base", coze)
	id, _ := strconv.ParseInt(coze, 10, 64)
	return id, nil
}

// datasetLiteral returns a named literal of datasetParam.
func (nc *nodeConv) datasetLiteral(name string) (string, bool) {
	return paramText(nc.in.DatasetParam, name)
}

// convertRetriever: the datasets and the retrieval settings; Query is the
// query input.
func convertRetriever(nc *nodeConv) error {
	ids, err := nc.datasetIDs()
	if err != nil {
		return err
	}
	cfg := map[string]any{"knowledge_ids": ids}
	if t, ok := nc.datasetLiteral("topK"); ok {
		if n, err := strconv.Atoi(t); err == nil && n > 0 {
			cfg["top_k"] = min(n, 50)
		}
	}
	if t, ok := nc.datasetLiteral("minScore"); ok {
		if f, err := strconv.ParseFloat(t, 64); err == nil && f > 0 {
			cfg["min_score"] = f
		}
	}
	if t, ok := nc.datasetLiteral("strategy"); ok {
		if cfg["strategy"], err = searchStrategy(t, nc.at+".data.inputs.datasetParam.strategy"); err != nil {
			return err
		}
	}
	cfg["rerank"] = nc.datasetFlag("useRerank")
	cfg["rewrite"] = nc.datasetFlag("useRewrite")
	if nc.datasetFlag("isPersonalOnly") {
		nc.flag("isPersonalOnly has no Pergola equivalent: every document of the knowledge bases is searched")
	}
	if h := nc.in.ChatHistorySetting; h != nil && h.EnableChatHistory {
		cfg["chat_history_rounds"] = historyRounds(h.ChatHistoryRound)
	}
	if err := nc.namedInput("Query", "query"); err != nil {
		return err
	}
	return nc.config(cfg)
}

func (nc *nodeConv) datasetFlag(name string) bool {
	t, _ := nc.datasetLiteral(name)
	return t == "true"
}

// historyRounds bounds Coze's chatHistoryRound.
func historyRounds(n int) int {
	if n < 1 {
		return defaultHistoryRounds
	}
	return min(n, 50)
}

// searchStrategy maps Coze's search type (0 semantic, 1 hybrid, 20 full
// text).
func searchStrategy(t, field string) (string, error) {
	switch t {
	case "", "0":
		return "semantic", nil
	case "1":
		return "hybrid", nil
	case "20":
		return "full_text", nil
	}
	return "", errs.Invalid(field, "must be 0 (semantic), 1 (hybrid) or 20 (full text); got %s", t)
}

// namedInput converts the input parameter coze under the DSL's name.
func (nc *nodeConv) namedInput(coze, name string) error {
	for i, p := range nc.in.InputParameters {
		if p == nil || p.Name != coze {
			continue
		}
		in, err := nc.input(p.Input, fmt.Sprintf("data.inputs.inputParameters[%d]", i))
		if err != nil {
			return err
		}
		nc.setInput(name, in)
		return nil
	}
	return errs.Invalid(nc.at+".data.inputs.inputParameters", "has no %s input", coze)
}

// oneDataset maps the one dataset of a writer or deleter.
func (nc *nodeConv) oneDataset() (int64, error) {
	ids, err := nc.datasetIDs()
	if err != nil {
		return 0, err
	}
	if len(ids) > 1 {
		nc.flag("the node names %d datasets; it acts on the first, as in Coze Studio", len(ids))
	}
	return ids[0], nil
}

// convertWriter: the dataset and the chunk strategy; knowledge (the file's
// URL) is the file input.
func convertWriter(nc *nodeConv) error {
	id, err := nc.oneDataset()
	if err != nil {
		return err
	}
	cfg := map[string]any{"knowledge_id": id}
	if s := nc.in.StrategyParam; s != nil && s.ChunkStrategy != nil && s.ChunkStrategy.ChunkType == "custom" {
		cs := s.ChunkStrategy
		chunking := map[string]any{"type": "custom", "separator": cs.Separator}
		if cs.MaxToken > 0 {
			chunking["max_tokens"] = min(max(cs.MaxToken, 100), 5000)
			chunking["overlap"] = int(math.Round(cs.Overlap * float64(chunking["max_tokens"].(int))))
		}
		cfg["chunking"] = chunking
	}
	if err := nc.namedInput("knowledge", "file"); err != nil {
		return err
	}
	return nc.config(cfg)
}

// convertDeleter: the dataset; documentID is the document_id input.
func convertDeleter(nc *nodeConv) error {
	id, err := nc.oneDataset()
	if err != nil {
		return err
	}
	if err := nc.namedInput("documentID", "document_id"); err != nil {
		return err
	}
	return nc.config(map[string]any{"knowledge_id": id})
}

// knowledgeFC is an LLM node's knowledgeFCParam.
type knowledgeFC struct {
	KnowledgeList []struct {
		ID flexString `json:"id"`
	} `json:"knowledgeList"`
	GlobalSetting struct {
		TopK          int        `json:"top_k"`
		MinScore      float64    `json:"min_score"`
		SearchMode    flexString `json:"search_mode"`
		UseRerank     bool       `json:"use_rerank"`
		UseRewrite    bool       `json:"use_rewrite"`
		NoRecallMode  int        `json:"no_recall_reply_mode"`
		NoRecallReply string     `json:"no_recall_reply_customize_prompt"`
	} `json:"global_setting"`
}

// llmKnowledge converts the knowledge of an LLM node; nil when it has
// none.
func (nc *nodeConv) llmKnowledge() (map[string]any, error) {
	const field = "data.inputs.fcParam.knowledgeFCParam"
	fc := nc.in.FCParam
	if fc == nil || len(fc.KnowledgeFCParam) == 0 || string(fc.KnowledgeFCParam) == "null" {
		return nil, nil
	}
	var k knowledgeFC
	if err := json.Unmarshal(fc.KnowledgeFCParam, &k); err != nil {
		return nil, errs.Invalid(nc.at+"."+field, "cannot be read: %v", err)
	}
	if len(k.KnowledgeList) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(k.KnowledgeList))
	for _, item := range k.KnowledgeList {
		id, err := nc.knowledgeID(string(item.ID), field+".knowledgeList")
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	s := k.GlobalSetting
	strategy, err := searchStrategy(string(s.SearchMode), nc.at+"."+field+".global_setting.search_mode")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"knowledge_ids": ids, "strategy": strategy, "rerank": s.UseRerank, "rewrite": s.UseRewrite}
	if s.TopK > 0 {
		out["top_k"] = min(s.TopK, 50)
	}
	if s.MinScore > 0 {
		out["min_score"] = s.MinScore
	}
	if s.NoRecallMode == 1 && s.NoRecallReply != "" {
		out["no_recall_reply"] = s.NoRecallReply
	}
	return out, nil
}

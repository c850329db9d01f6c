package workflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// writeKind is the knowledge writer: it adds the file at a URL to a
// knowledge base. The engine fetches the file through its guarded HTTP
// client (the egress rules of HTTP nodes, bounded by
// Limits.DocumentBytes), so the knowledge service never reaches out for
// a workflow.
type writeKind struct{}

type writeConfig struct {
	KnowledgeID idValue         `json:"knowledge_id" jsonschema:"required,description=the knowledge base (a text knowledge base of the workspace)"`
	Chunking    *chunkingConfig `json:"chunking,omitempty" jsonschema:"description=how the document is cut (default: automatic)"`
}

// chunkingConfig is Coze's chunk strategy of the writer.
type chunkingConfig struct {
	Type      string `json:"type,omitempty" jsonschema:"enum=auto,enum=custom,description=auto (default) or custom: cut at separator"`
	Separator string `json:"separator,omitempty" jsonschema:"description=custom: where chunks are cut (default a blank line)"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"minimum=0,maximum=5000,description=custom: at most this many tokens per chunk (100-5000; 0: 800)"`
	Overlap   int    `json:"overlap,omitempty" jsonschema:"minimum=0,description=custom: tokens a chunk repeats from the one before"`
}

var writeOutputs = []Param{P("document_id", TypeString), P("file_name", TypeString), P("file_url", TypeString)}

func (writeKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "knowledge_write", Title: "Knowledge write", Category: categoryKnowledge,
		Description: "Adds the file at the URL input file to a knowledge base (chunked automatically or at a separator) " +
			"and waits until it is indexed, so later nodes recall it: document_id, file_name, file_url. The file is " +
			"fetched through the guarded HTTP client; its name is Coze's x-wf-file_name query parameter or the URL's last segment.",
		ConfigSchema: configSchema(&writeConfig{}),
		Inputs:       []InputInfo{{Name: "file", Type: TypeString, Required: true, Description: "the file's URL"}},
		Outputs:      writeOutputs}
}

func (writeKind) check(c *checker, n *Node) *nodeSpec {
	var cfg writeConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	if cfg.KnowledgeID <= 0 {
		c.fail(nodeField(n, "config.knowledge_id"), "is required: the knowledge base the file is added to")
	}
	p := &writePlan{knowledgeID: int64(cfg.KnowledgeID), limit: c.eng.limits.DocumentBytes}
	p.chunking = c.checkChunking(n, cfg.Chunking)
	return &nodeSpec{outputs: writeOutputs, required: []string{"file"}, want: map[string]Schema{"file": S(TypeString)},
		blocking: true, runner: p}
}

// checkChunking checks the chunk strategy of a writer.
func (c *checker) checkChunking(n *Node, cfg *chunkingConfig) KnowledgeChunking {
	if cfg == nil {
		return KnowledgeChunking{}
	}
	out := KnowledgeChunking{Separator: cfg.Separator, MaxTokens: cfg.MaxTokens, Overlap: cfg.Overlap}
	switch cfg.Type {
	case "", "auto":
		if cfg.Separator != "" || cfg.MaxTokens != 0 || cfg.Overlap != 0 {
			c.fail(nodeField(n, "config.chunking"), "separator, max_tokens and overlap are for type custom")
		}
		return KnowledgeChunking{}
	case "custom":
		out.Custom = true
	default:
		c.fail(nodeField(n, "config.chunking.type"), "must be auto or custom; got %q", cfg.Type)
	}
	if cfg.MaxTokens != 0 && (cfg.MaxTokens < 100 || cfg.MaxTokens > 5000) {
		c.fail(nodeField(n, "config.chunking.max_tokens"), "must be between 100 and 5000 (0: 800)")
	}
	max := cfg.MaxTokens
	if max == 0 {
		max = 800
	}
	if cfg.Overlap < 0 || cfg.Overlap >= max {
		c.fail(nodeField(n, "config.chunking.overlap"), "must be between 0 and less than max_tokens (%d)", max)
	}
	return out
}

// writePlan runs a write node.
type writePlan struct {
	knowledgeID int64
	chunking    KnowledgeChunking
	limit       int64
}

func (p *writePlan) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	k, err := knowledgePort(x)
	if err != nil {
		return nil, err
	}
	doer := x.rc.eng.ports.HTTP
	if doer == nil {
		return nil, permanent(errors.New("HTTP is not available in this process: the file cannot be fetched"))
	}
	raw, _ := in["file"].(string)
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, permanent(errors.New("file is empty: give the URL of the file to add"))
	}
	f, err := fetchFile(ctx, doer, raw, p.limit)
	if err != nil {
		return nil, err
	}
	doc, err := k.AddDocument(ctx, KnowledgeFile{Scope: x.rc.in.Scope, KnowledgeID: p.knowledgeID, Name: f.name,
		URL: raw, Content: f.data, Chunking: p.chunking})
	if err != nil {
		return nil, knowledgeError(fmt.Sprintf("knowledge base %d: add %s", p.knowledgeID, f.name), err)
	}
	return map[string]any{"document_id": strconv.FormatInt(doc.ID, 10), "file_name": doc.Name, "file_url": raw}, nil
}

// deleteKind is the knowledge deleter: it removes a document of a
// knowledge base.
type deleteKind struct{}

type deleteConfig struct {
	KnowledgeID idValue `json:"knowledge_id" jsonschema:"required,description=the knowledge base the document is in"`
}

var deleteOutputs = []Param{P("success", TypeBoolean)}

func (deleteKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "knowledge_delete", Title: "Knowledge delete", Category: categoryKnowledge,
		Description: "Deletes the document document_id (as a knowledge write node outputs it) from a knowledge base, " +
			"with its chunks: success. A document not in that knowledge base fails the node.",
		ConfigSchema: configSchema(&deleteConfig{}),
		Inputs:       []InputInfo{{Name: "document_id", Type: TypeString, Required: true, Description: "the document's id"}},
		Outputs:      deleteOutputs}
}

func (deleteKind) check(c *checker, n *Node) *nodeSpec {
	var cfg deleteConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	if cfg.KnowledgeID <= 0 {
		c.fail(nodeField(n, "config.knowledge_id"), "is required: the knowledge base the document is in")
	}
	id := int64(cfg.KnowledgeID)
	return &nodeSpec{outputs: deleteOutputs, required: []string{"document_id"}, want: map[string]Schema{"document_id": S(TypeString)},
		blocking: true, runner: runFunc(func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			return runDelete(ctx, x, id, in)
		})}
}

func runDelete(ctx context.Context, x *nodeCtx, knowledgeID int64, in map[string]any) (map[string]any, error) {
	k, err := knowledgePort(x)
	if err != nil {
		return nil, err
	}
	raw, _ := in["document_id"].(string)
	doc, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || doc <= 0 {
		return nil, permanent(fmt.Errorf("document_id %q is not a document id", raw))
	}
	if err := k.DeleteDocument(ctx, x.rc.in.Scope, knowledgeID, doc); err != nil {
		return nil, knowledgeError(fmt.Sprintf("knowledge base %d: delete document %d", knowledgeID, doc), err)
	}
	return map[string]any{"success": true}, nil
}

package datasets

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

type createDocumentsRequest struct {
	DatasetID     idText         `json:"dataset_id"`
	DocumentBases []documentBase `json:"document_bases"`
	ChunkStrategy *ChunkStrategy `json:"chunk_strategy"`
	FormatType    *int           `json:"format_type"`
}

// documentBase is Coze's DocumentBase; caption (Coze Studio's) is the
// text of an image document.
type documentBase struct {
	Name       string      `json:"name"`
	SourceInfo sourceInfo  `json:"source_info"`
	UpdateRule *updateRule `json:"update_rule"`
	Caption    string      `json:"caption"`
}

// sourceInfo is Coze's SourceInfo: exactly one of file_base64 (with
// file_type), web_url (document_source 1), source_file_id (an uploaded
// file) or custom_content (raw text, document_source 2).
type sourceInfo struct {
	FileBase64     string `json:"file_base64"`
	FileType       string `json:"file_type"`
	WebURL         string `json:"web_url"`
	DocumentSource *int   `json:"document_source"`
	SourceFileID   idText `json:"source_file_id"`
	CustomContent  string `json:"custom_content"`
}

// updateRule is Coze's update_rule: update_type 1 refreshes a web page
// every update_interval hours.
type updateRule struct {
	UpdateType     int `json:"update_type"`
	UpdateInterval int `json:"update_interval"`
}

// rule reads the rule given at field.
func (r updateRule) rule(field string) (knowledge.UpdateRule, error) {
	return knowledge.NewUpdateRule(field, r.UpdateType, r.UpdateInterval)
}

// inputs converts the document bases into the service's inputs, naming
// the field of a wrong one.
func (r createDocumentsRequest) inputs() ([]knowledgeapp.DocumentInput, error) {
	if len(r.DocumentBases) == 0 {
		return nil, errs.Invalid("document_bases", "give at least one document")
	}
	ins := make([]knowledgeapp.DocumentInput, len(r.DocumentBases))
	for i, b := range r.DocumentBases {
		in, err := b.input(fmt.Sprintf("document_bases[%d]", i))
		if err != nil {
			return nil, err
		}
		in.Strategy = r.ChunkStrategy.strategy()
		ins[i] = in
	}
	return ins, nil
}

func (b documentBase) input(field string) (knowledgeapp.DocumentInput, error) {
	s := b.SourceInfo
	in := knowledgeapp.DocumentInput{Name: b.Name, FileType: strings.TrimPrefix(strings.ToLower(s.FileType), "."),
		URL: strings.TrimSpace(s.WebURL), Text: s.CustomContent}
	if s.DocumentSource != nil && *s.DocumentSource == sourceWeb && in.URL == "" {
		return in, errs.Invalid(field+".source_info.web_url", "is required with document_source 1 (a web page)")
	}
	var err error
	if b.UpdateRule != nil {
		if in.UpdateRule, err = b.UpdateRule.rule(field + ".update_rule"); err != nil {
			return in, err
		}
	}
	if in.FileID, err = s.SourceFileID.parse(field+".source_info.source_file_id", false); err != nil {
		return in, err
	}
	if s.FileBase64 != "" {
		if in.Content, err = decodeBase64(s.FileBase64); err != nil {
			return in, errs.Invalid(field+".source_info.file_base64", "is not valid base64: %v", err)
		}
		if len(in.Content) == 0 {
			return in, errs.Invalid(field+".source_info.file_base64", "holds an empty file")
		}
	}
	return in, nil
}

// decodeBase64 reads standard base64, padded or not (and the URL-safe
// alphabet), ignoring line breaks.
func decodeBase64(s string) ([]byte, error) {
	s = strings.NewReplacer("\n", "", "\r", "", " ", "").Replace(s)
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// appDocument matches the service's names of a document's fields:
// documents[0], documents[0].url, documents[0].chunk_strategy.max_tokens.
var appDocument = regexp.MustCompile(`^documents(\[\d+\])?(\.(.+))?$`)

// cozeFields maps the service's field of a document to Coze's.
var cozeFields = map[string]string{
	"url": "source_info.web_url", "file_id": "source_info.source_file_id", "file_type": "source_info.file_type",
	"content": "source_info.file_base64", "text": "source_info.custom_content",
}

// cozeDocumentField names a field of the service's document inputs as
// the document create request of Coze names it.
func cozeDocumentField(f string) string {
	m := appDocument.FindStringSubmatch(f)
	if m == nil {
		return f
	}
	index, rest := m[1], m[3]
	if strings.HasPrefix(rest, "chunk_strategy") {
		return rest // one strategy for the whole request
	}
	out := "document_bases" + index
	if rest == "" {
		return out
	}
	if c, ok := cozeFields[rest]; ok {
		rest = c
	}
	return out + "." + rest
}

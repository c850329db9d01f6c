package datasets

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestCozeDocumentField(t *testing.T) {
	for in, want := range map[string]string{
		"documents":                           "document_bases",
		"documents[2]":                        "document_bases[2]",
		"documents[0].url":                    "document_bases[0].source_info.web_url",
		"documents[1].file_id":                "document_bases[1].source_info.source_file_id",
		"documents[0].file_type":              "document_bases[0].source_info.file_type",
		"documents[0].name":                   "document_bases[0].name",
		"documents[0].update_rule":            "document_bases[0].update_rule",
		"documents[3].chunk_strategy.overlap": "chunk_strategy.overlap",
		"workspace_id":                        "workspace_id",
	} {
		if got := cozeDocumentField(in); got != want {
			t.Errorf("cozeDocumentField(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeBase64(t *testing.T) {
	want := "# Title\n\nbody?>"
	for _, in := range []string{"IyBUaXRsZQoKYm9keT8+", "IyBUaXRsZQoKYm9keT8-", "IyBUaXRs\nZQoKYm9keT8+", "IyBUaXRsZQoKYm9keT8+=="} {
		got, err := decodeBase64(in)
		if err != nil || string(got) != want {
			t.Errorf("decodeBase64(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := decodeBase64("not base64!"); err == nil {
		t.Error("decodeBase64 took text that is not base64")
	}
}

// request decodes a document create body as the handler does.
func request(t *testing.T, body string) createDocumentsRequest {
	t.Helper()
	var r createDocumentsRequest
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return r
}

func TestInputsMapSources(t *testing.T) {
	r := request(t, `{"dataset_id":"7","chunk_strategy":{"chunk_type":1,"separator":"##","max_tokens":300},
		"document_bases":[
		{"name":"a.md","source_info":{"file_base64":"aGk=","file_type":".MD"}},
		{"name":"page","source_info":{"web_url":" https://example.com/x ","document_source":1},"update_rule":{"update_type":1,"update_interval":12}},
		{"name":"up","source_info":{"source_file_id":123}},
		{"name":"raw","source_info":{"custom_content":"plain text","document_source":2}}]}`)
	ins, err := r.inputs()
	if err != nil {
		t.Fatal(err)
	}
	s := &knowledge.ChunkStrategy{Type: knowledge.ChunkCustom, Separator: "##", MaxTokens: 300}
	want := []knowledgeapp.DocumentInput{
		{Name: "a.md", Content: []byte("hi"), FileType: "md", Strategy: s},
		{Name: "page", URL: "https://example.com/x", UpdateRule: knowledge.UpdateRule{Auto: true, IntervalHours: 12}, Strategy: s},
		{Name: "up", FileID: 123, Strategy: s},
		{Name: "raw", Text: "plain text", Strategy: s},
	}
	if d := cmp.Diff(want, ins); d != "" {
		t.Errorf("inputs (-want +got):\n%s", d)
	}
}

func TestInputsNameTheWrongField(t *testing.T) {
	for body, field := range map[string]string{
		`{"document_bases":[]}`: "document_bases",
		`{"document_bases":[{"name":"x","source_info":{"file_base64":"%%%","file_type":"md"}}]}`:                                               "document_bases[0].source_info.file_base64",
		`{"document_bases":[{"name":"x","source_info":{"file_base64":"","file_type":"md"}},{"name":"y","source_info":{"document_source":1}}]}`: "document_bases[1].source_info.web_url",
		`{"document_bases":[{"name":"x","source_info":{"source_file_id":"abc"}}]}`:                                                             "document_bases[0].source_info.source_file_id",
		`{"document_bases":[{"name":"p","source_info":{"web_url":"https://e.com","document_source":1},"update_rule":{"update_type":2}}]}`:      "document_bases[0].update_rule.update_type",
	} {
		_, err := request(t, body).inputs()
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != field || !errors.Is(err, errs.ErrInvalid) {
			t.Errorf("%s: error %v, want one naming %s", body, err, field)
		}
	}
}

func TestIDTextTakesStringsAndNumbers(t *testing.T) {
	var v struct{ IDs []idText }
	if err := json.Unmarshal([]byte(`{"IDs":["12", 34, null]}`), &v); err != nil {
		t.Fatal(err)
	}
	if _, err := parseIDs("document_ids", v.IDs); err == nil {
		t.Error("a null id was taken")
	}
	ids, err := parseIDs("document_ids", v.IDs[:2])
	if err != nil || !cmp.Equal(ids, []int64{12, 34}) {
		t.Errorf("parseIDs = %v, %v", ids, err)
	}
	if err := json.Unmarshal([]byte(`{"IDs":[true]}`), &v); err == nil {
		t.Error("a boolean id was taken")
	}
}

func TestNewDatasetListsFilesByStatus(t *testing.T) {
	v := knowledgeapp.View{Base: knowledge.Base{ID: 1, WorkspaceID: 2, CreatorID: 3, Name: "kb", Format: knowledge.FormatText},
		Counts: knowledge.Counts{Documents: 3, Chunks: 9, Bytes: 300, Processing: []int64{11}, Failed: []int64{12}}}
	docs := []knowledge.Document{{ID: 10, Name: "ready.md"}, {ID: 11, Name: "busy.pdf"}, {ID: 12, Name: "broken.docx"}}
	d := newDataset(v, docs)
	got := [][]string{d.FileList, d.ProcessingFileList, d.ProcessingFileIDList, d.FailedFileList}
	want := [][]string{{"ready.md", "busy.pdf", "broken.docx"}, {"busy.pdf"}, {"11"}, {"broken.docx"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("file lists (-want +got):\n%s", diff)
	}
	if d.DocCount != 3 || d.SliceCount != 9 || d.AllFileSize != 300 || d.Status != datasetEnabled {
		t.Errorf("counts: %+v", d)
	}
	b, _ := json.Marshal(newDataset(knowledgeapp.View{Base: v.Base}, nil))
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"file_list", "processing_file_list", "processing_file_id_list", "failed_file_list"} {
		if l, ok := m[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s of an empty dataset is %v, want []", k, m[k])
		}
	}
	if m["dataset_id"] != "1" || m["space_id"] != "2" || m["creator_id"] != "3" {
		t.Errorf("ids are not strings: %s", b)
	}
}

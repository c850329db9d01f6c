package main

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCozeDatasetsEndToEnd drives Coze's knowledge routes on each backend
// as @coze/api sends them (ids as strings, Agw-Js-Conv: str): a document
// whose base64 body is past PERGOLA_MAX_BODY_BYTES is taken by the
// document create route alone, indexed and found by a search; an image's
// caption is its searchable text; ids of the answers are strings.
func TestCozeDatasetsEndToEnd(t *testing.T) {
	for _, b := range knowledgeBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			k := newKBSetup(t, b, map[string]string{"PERGOLA_MAX_BODY_BYTES": "65536"})
			created := k.s.call(t, "POST", "/v1/datasets", bootstrapToken, map[string]any{
				"name": "Coze handbook", "space_id": k.ws, "format_type": 0}).must(t, 200)
			kb := str(created.data, "dataset_id")
			if kb == "" {
				t.Fatalf("dataset_id is not a string: %v", created.raw)
			}
			doc := cozeLargeDocument(t, k, kb)
			cozeWaitReady(t, k, kb, doc)
			texts, _ := k.search(t, kb, map[string]any{"query": "lighthouse keeper 417", "search_strategy": 20})
			if len(texts) == 0 || !strings.Contains(texts[0], "lighthouse keeper 417") {
				t.Fatalf("the document added through Coze's route is not found: %q", texts)
			}
			cozeImageCaptions(t, k)
			k.s.call(t, "DELETE", "/v1/datasets/"+kb, bootstrapToken, nil).must(t, 200)
			k.s.call(t, "POST", "/open_api/knowledge/document/list", bootstrapToken, map[string]any{"dataset_id": kb}).
				fails(t, 404, 4200, "knowledge base "+kb+" not found")
		})
	}
}

// cozeLargeDocument adds a markdown document of about 100 KB (135 KB as
// base64, twice PERGOLA_MAX_BODY_BYTES) and checks that another route
// refuses a body that large.
func cozeLargeDocument(t *testing.T, k *kbSetup, kb string) string {
	t.Helper()
	var md strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&md, "## Keeper %d\n\nThe lighthouse keeper %d lights the lamp at dusk and logs the ships.\n\n", i, i)
	}
	content := base64.StdEncoding.EncodeToString([]byte(md.String()))
	k.s.call(t, "POST", "/v1/datasets", bootstrapToken, map[string]any{"name": "x", "space_id": k.ws, "description": content}).
		fails(t, 413, 4001, "PERGOLA_MAX_BODY_BYTES")
	r := k.s.call(t, "POST", "/open_api/knowledge/document/create", bootstrapToken, map[string]any{
		"dataset_id":     kb,
		"document_bases": []map[string]any{{"name": "keepers.md", "source_info": map[string]any{"file_base64": content, "file_type": "md"}}},
		"chunk_strategy": map[string]any{"chunk_type": 2},
	})
	if r.status != 200 || r.code != 0 {
		t.Fatalf("document create past PERGOLA_MAX_BODY_BYTES: status %d code %d %q", r.status, r.code, r.msg)
	}
	infos, _ := r.raw["document_infos"].([]any)
	if len(infos) != 1 {
		t.Fatalf("document_infos beside code: %v", r.raw)
	}
	info := infos[0].(map[string]any)
	if info["size"].(float64) != float64(md.Len()) || str(info, "document_id") == "" {
		t.Fatalf("document info: %v", info)
	}
	return str(info, "document_id")
}

// cozeWaitReady polls POST /v1/datasets/{id}/process until the document is
// no longer processing, and wants it ready.
func cozeWaitReady(t *testing.T, k *kbSetup, kb, doc string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := k.s.call(t, "POST", "/v1/datasets/"+kb+"/process", bootstrapToken, map[string]any{"document_ids": []string{doc}}).must(t, 200)
		list := items(t, r.data, "data")
		if len(list) != 1 || str(list[0], "document_id") != doc {
			t.Fatalf("process answered %v", r.data)
		}
		switch list[0]["status"].(float64) {
		case 1:
			return
		case 9:
			t.Fatalf("indexing failed: %v", list[0])
		}
		if time.Now().After(deadline) {
			t.Fatalf("still processing after 60s: %v", list[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cozeImageCaptions captions an image through Coze's route and finds it
// by its caption.
func cozeImageCaptions(t *testing.T, k *kbSetup) {
	t.Helper()
	created := k.s.call(t, "POST", "/v1/datasets", bootstrapToken, map[string]any{"name": "Photos", "space_id": k.ws, "format_type": 2}).must(t, 200)
	kb := str(created.data, "dataset_id")
	png := append([]byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R'}, make([]byte, 64)...)
	r := k.s.call(t, "POST", "/open_api/knowledge/document/create", bootstrapToken, map[string]any{
		"dataset_id": kb, "format_type": 2,
		"document_bases": []map[string]any{{"name": "harbour.png", "source_info": map[string]any{
			"file_base64": base64.StdEncoding.EncodeToString(png), "file_type": "png"}}},
	})
	infos, _ := r.raw["document_infos"].([]any)
	if r.status != 200 || len(infos) != 1 {
		t.Fatalf("image create: status %d %q %v", r.status, r.msg, r.raw)
	}
	doc := str(infos[0].(map[string]any), "document_id")
	k.s.call(t, "PUT", "/v1/datasets/"+kb+"/images/"+doc, bootstrapToken, map[string]any{"caption": "a red fishing boat in the harbour"}).must(t, 200)
	texts, _ := k.search(t, kb, map[string]any{"query": "fishing boat", "search_strategy": 20})
	if len(texts) != 1 || texts[0] != "a red fishing boat in the harbour" {
		t.Fatalf("the caption is not what a search finds: %q", texts)
	}
	list := k.s.call(t, "GET", "/v1/datasets/"+kb+"/images?has_caption=true", bootstrapToken, nil).must(t, 200)
	photos := items(t, list.data, "photo_infos")
	if len(photos) != 1 || str(photos[0], "caption") != "a red fishing boat in the harbour" {
		t.Fatalf("images.list: %v", list.data)
	}
}

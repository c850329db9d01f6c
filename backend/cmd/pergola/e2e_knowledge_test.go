package main

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

const kbMarkdown = `# Staff handbook

## Holidays

Every employee has 30 days of paid leave per year.

## Expenses

Receipts go to the finance team within two weeks.
`

const kbText = "The office opens at eight and closes at six.\n\n花园机器人的秘密代号是青蛙。\n"

const kbCSV = "fruit,price,origin\napple,3,Normandy\npear,5,Anjou\n"

// TestKnowledgeEndToEnd drives the console API of knowledge bases on each
// backend: documents of three kinds indexed by the worker, every search
// strategy, Chinese full text, chunk edits, deletes, 4xx answers naming
// the field and refusals across workspaces.
func TestKnowledgeEndToEnd(t *testing.T) {
	for _, b := range knowledgeBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			k := newKBSetup(t, b, nil)
			kb := k.base(t, "Handbook", 0)
			got := k.s.call(t, "GET", "/api/knowledge/"+kb, bootstrapToken, nil).must(t, 200)
			if str(got.data, "embedding_model") != "embed" || got.data["dimensions"].(float64) != 256 {
				t.Fatalf("the default embedding model was not fixed with its dimensions: %v", got.data)
			}
			upload := k.s.upload(t, bootstrapToken, "office.txt", []byte(kbText), "").must(t, 200)
			docs := k.add(t, kb,
				map[string]any{"name": "handbook.md", "content": b64(kbMarkdown), "file_type": "md", "chunk_strategy": map[string]any{"chunk_type": 2}},
				map[string]any{"file_id": str(upload.data, "id")})
			progress := k.waitDone(t, kb, docs...)
			for _, id := range docs {
				if p := progress[id]; p["status"].(float64) != 1 || p["progress"].(float64) != 100 || p["chunk_count"].(float64) < 1 {
					t.Fatalf("document %s did not end ready: %v", id, p)
				}
			}
			knowledgeSearches(t, k, kb)
			knowledgeTable(t, k)
			knowledgeChunkEdits(t, k, kb, docs[0])
			knowledgeRefusals(t, k, kb, docs[0])
			knowledgeIsolation(t, k, kb, docs[0])
			k.s.call(t, "DELETE", "/api/knowledge/"+kb+"/documents/"+docs[1], bootstrapToken, nil).must(t, 200)
			texts, _ := k.search(t, kb, map[string]any{"query": "office opens", "search_strategy": 20})
			if len(texts) != 0 {
				t.Fatalf("a deleted document's chunks are still found: %q", texts)
			}
			k.s.call(t, "DELETE", "/api/knowledge/"+kb, bootstrapToken, nil).must(t, 200)
			k.s.call(t, "GET", "/api/knowledge/"+kb, bootstrapToken, nil).fails(t, 404, 4200, "knowledge base "+kb+" not found")
		})
	}
}

func knowledgeSearches(t *testing.T, k *kbSetup, kb string) {
	cases := []struct {
		name  string
		body  map[string]any
		want  string
		names string
	}{
		{"semantic", map[string]any{"query": "how many days of paid leave", "top_k": 1}, "30 days of paid leave", "handbook.md"},
		{"full text", map[string]any{"query": "receipts finance", "search_strategy": 20, "top_k": 1}, "Receipts go to the finance team", "handbook.md"},
		{"hybrid", map[string]any{"query": "when does the office open", "search_strategy": 1, "top_k": 1}, "office opens at eight", "office.txt"},
		{"chinese", map[string]any{"query": "机器人的代号", "search_strategy": 20, "top_k": 1}, "花园机器人的秘密代号是青蛙", "office.txt"},
	}
	for _, c := range cases {
		texts, hits := k.search(t, kb, c.body)
		if len(hits) != 1 || !strings.Contains(texts[0], c.want) || str(hits[0], "document_name") != c.names {
			t.Fatalf("%s search = %q %v; want one hit with %q from %s", c.name, texts, hits, c.want, c.names)
		}
		if hits[0]["score"].(float64) <= 0 {
			t.Errorf("%s hit has score %v", c.name, hits[0]["score"])
		}
	}
	_, hits := k.search(t, kb, map[string]any{"query": "paid leave", "top_k": 1})
	chunk := hits[0]["chunk"].(map[string]any)
	if h, _ := chunk["headings"].([]any); len(h) == 0 || h[len(h)-1] != "Holidays" {
		t.Errorf("a markdown chunk lost its heading path: %v", chunk)
	}
}

func knowledgeTable(t *testing.T, k *kbSetup) {
	table := k.base(t, "Prices", 1)
	ids := k.add(t, table, map[string]any{"name": "prices.csv", "content": b64(kbCSV), "file_type": "csv",
		"columns": []map[string]any{{"name": "fruit", "indexed": true}, {"name": "origin", "indexed": true}}})
	k.waitDone(t, table, ids...)
	r := k.s.call(t, "GET", "/api/knowledge/"+table+"/documents/"+ids[0]+"/chunks", bootstrapToken, nil).must(t, 200)
	rows := items(t, r.data, "items")
	if len(rows) != 2 || rows[1]["row"].(map[string]any)["price"] != "5" || strings.Contains(str(rows[1], "text"), "price") {
		t.Fatalf("table rows = %v; want two rows with every column, indexing fruit and origin only", rows)
	}
	texts, _ := k.search(t, table, map[string]any{"query": "Anjou", "search_strategy": 20, "top_k": 1})
	if len(texts) != 1 || !strings.Contains(texts[0], "pear") {
		t.Fatalf("table search = %q", texts)
	}
	knowledgeRowEdit(t, k, table, str(rows[1], "id"))
}

// knowledgeRowEdit edits a table row's chunk: its row follows the text's
// "column: value" lines, keeping the columns the text does not name, and
// text naming no column is refused.
func knowledgeRowEdit(t *testing.T, k *kbSetup, table, chunk string) {
	path := "/api/knowledge/" + table + "/chunks/" + chunk
	edited := k.s.call(t, "PATCH", path, bootstrapToken, map[string]any{"text": "fruit: quince\norigin: Provence"}).must(t, 200)
	want := map[string]any{"fruit": "quince", "price": "5", "origin": "Provence"}
	if got, _ := edited.data["row"].(map[string]any); !maps.Equal(got, want) {
		t.Fatalf("edited row = %v; want %v", edited.data["row"], want)
	}
	hits := items(t, k.s.call(t, "POST", "/api/knowledge/"+table+"/search", bootstrapToken,
		map[string]any{"query": "Provence", "search_strategy": 20, "top_k": 1}).must(t, 200).data, "hits")
	if len(hits) != 1 || !maps.Equal(hits[0]["chunk"].(map[string]any)["row"].(map[string]any), want) {
		t.Fatalf("hit testing shows %v; want the edited row %v", hits, want)
	}
	k.s.call(t, "PATCH", path, bootstrapToken, map[string]any{"text": "a quince from Provence"}).
		fails(t, 400, 4000, `text: is a table row's chunk: write it as "column: value" lines naming its columns (fruit, origin, price)`)
}

func knowledgeChunkEdits(t *testing.T, k *kbSetup, kb, doc string) {
	path := "/api/knowledge/" + kb + "/documents/" + doc + "/chunks"
	added := k.s.call(t, "POST", path, bootstrapToken, map[string]any{"text": "Parking: the car park is behind the building."}).must(t, 201)
	id := str(added.data, "id")
	texts, _ := k.search(t, kb, map[string]any{"query": "where is the car park", "top_k": 1})
	if len(texts) != 1 || !strings.Contains(texts[0], "car park") {
		t.Fatalf("an added chunk is not found: %q", texts)
	}
	k.s.call(t, "PATCH", "/api/knowledge/"+kb+"/chunks/"+id, bootstrapToken, map[string]any{"text": "Bicycles: the bike shed is next to the gate."}).must(t, 200)
	texts, _ = k.search(t, kb, map[string]any{"query": "bike shed", "top_k": 1})
	if len(texts) != 1 || !strings.Contains(texts[0], "bike shed") {
		t.Fatalf("an edited chunk was not embedded again: %q", texts)
	}
	k.s.call(t, "DELETE", "/api/knowledge/"+kb+"/chunks/"+id, bootstrapToken, nil).must(t, 200)
	list := k.s.call(t, "GET", path+"?page_size=100", bootstrapToken, nil).must(t, 200)
	for _, c := range items(t, list.data, "items") {
		if str(c, "id") == id {
			t.Fatal("a deleted chunk is still listed")
		}
	}
}

func knowledgeRefusals(t *testing.T, k *kbSetup, kb, doc string) {
	s := k.s
	s.call(t, "POST", "/api/knowledge", bootstrapToken, map[string]any{"workspace_id": k.ws}).fails(t, 400, 4000, "name: is required")
	s.call(t, "POST", "/api/knowledge", bootstrapToken, map[string]any{"workspace_id": k.ws, "name": "x", "embedding_model": "nope"}).
		fails(t, 400, 4000, `embedding_model: there is no model "nope"`)
	s.call(t, "PATCH", "/api/knowledge/"+kb, bootstrapToken, map[string]any{"embedding_model": "other"}).
		fails(t, 400, 4000, "embedding_model: cannot change")
	s.call(t, "POST", "/api/knowledge", bootstrapToken, map[string]any{"workspace_id": k.ws, "name": "x", "icon_file_id": "123"}).
		fails(t, 400, 4000, "icon_file_id: there is no file 123 in this workspace")
	s.call(t, "PATCH", "/api/knowledge/"+kb, bootstrapToken, map[string]any{"icon_file_id": "123"}).
		fails(t, 400, 4000, "icon_file_id: there is no file 123 in this workspace")
	s.call(t, "PUT", "/v1/datasets/"+kb, bootstrapToken, map[string]any{"name": "x", "file_id": "123"}).
		fails(t, 400, 4000, "file_id: there is no file 123 in this workspace")
	icon := s.upload(t, bootstrapToken, "icon.txt", []byte("an icon"), "").must(t, 200)
	got := s.call(t, "PATCH", "/api/knowledge/"+kb, bootstrapToken, map[string]any{"icon_file_id": str(icon.data, "id")}).must(t, 200)
	if str(got.data, "icon_file_id") != str(icon.data, "id") {
		t.Fatalf("icon_file_id = %v; want the uploaded file %s", got.data["icon_file_id"], str(icon.data, "id"))
	}
	add := "/api/knowledge/" + kb + "/documents"
	s.call(t, "POST", add, bootstrapToken, map[string]any{"documents": []map[string]any{{"name": "a", "text": "x", "url": "https://example.com"}}}).
		fails(t, 400, 4000, "documents[0]: give exactly one source")
	s.call(t, "POST", add, bootstrapToken, map[string]any{"documents": []map[string]any{{"name": "a.csv", "content": b64("a,b\n1,2\n"), "file_type": "csv"}}}).
		fails(t, 400, 4000, "documents[0].file_type")
	s.call(t, "POST", add, bootstrapToken, map[string]any{"documents": []map[string]any{{"name": "a", "content": "%%%", "file_type": "txt"}}}).
		fails(t, 400, 4000, "documents[0].content: is not valid base64")
	s.call(t, "POST", add, bootstrapToken, map[string]any{"documents": []map[string]any{{"file_id": "123"}}}).
		fails(t, 400, 4000, "documents[0].file_id: there is no file 123")
	s.call(t, "POST", add, bootstrapToken, map[string]any{"docs": []map[string]any{}}).fails(t, 400, 4000, "docs: is not a known field")
	s.call(t, "POST", add, bootstrapToken, map[string]any{"documents": []map[string]any{{"url": "https://example.com", "update_rule": map[string]any{"update_type": 2}}}}).
		fails(t, 400, 4000, "documents[0].update_rule.update_type: must be 0 (refreshed only when asked) or 1")
	s.call(t, "PATCH", add+"/"+doc, bootstrapToken, map[string]any{"update_rule": map[string]any{"update_type": 5}}).
		fails(t, 400, 4000, "update_rule.update_type: must be 0")
	search := "/api/knowledge/" + kb + "/search"
	s.call(t, "POST", search, bootstrapToken, map[string]any{"query": "x", "top_k": 51}).fails(t, 400, 4000, "top_k: must be between 1 and 50")
	s.call(t, "POST", search, bootstrapToken, map[string]any{"query": "x", "top_k": 0}).fails(t, 400, 4000, "top_k: must be between 1 and 50, not 0")
	s.call(t, "POST", search, bootstrapToken, map[string]any{"query": "x", "min_score": 1.5}).fails(t, 400, 4000, "min_score: must be between 0 and 1")
	s.call(t, "POST", search, bootstrapToken, map[string]any{"query": ""}).fails(t, 400, 4000, "query: is required")
	s.call(t, "POST", search, bootstrapToken, map[string]any{"query": "x", "search_strategy": 3}).fails(t, 400, 4000, "search_strategy")
	s.call(t, "GET", "/api/knowledge", bootstrapToken, nil).fails(t, 400, 4000, "workspace_id: is required")
	s.call(t, "GET", "/api/knowledge/"+kb+"/progress?document_ids=abc", bootstrapToken, nil).fails(t, 400, 4000, "document_ids")
}

func knowledgeIsolation(t *testing.T, k *kbSetup, kb, doc string) {
	bob := newUser(t, k.s, "bob.kb@example.com")
	calls := []struct{ method, path string }{
		{"GET", "/api/knowledge/" + kb},
		{"PATCH", "/api/knowledge/" + kb},
		{"DELETE", "/api/knowledge/" + kb},
		{"GET", "/api/knowledge/" + kb + "/documents"},
		{"POST", "/api/knowledge/" + kb + "/documents"},
		{"POST", "/api/knowledge/" + kb + "/search"},
		{"GET", "/api/knowledge/" + kb + "/progress"},
		{"PATCH", "/api/knowledge/" + kb + "/documents/" + doc},
		{"DELETE", "/api/knowledge/" + kb + "/documents/" + doc},
		{"POST", "/api/knowledge/" + kb + "/documents/" + doc + "/refresh"},
		{"GET", "/api/knowledge/" + kb + "/documents/" + doc + "/chunks"},
	}
	bodies := map[string]any{
		"PATCH": map[string]any{"name": "mine"}, "POST": map[string]any{"query": "x", "documents": []map[string]any{{"name": "a", "text": "b"}}},
	}
	for _, c := range calls {
		body := bodies[c.method]
		if strings.HasSuffix(c.path, "/search") {
			body = map[string]any{"query": "x"}
		} else if strings.HasSuffix(c.path, "/documents") && c.method == "POST" {
			body = map[string]any{"documents": []map[string]any{{"name": "a", "text": "b"}}}
		} else if c.method == "POST" {
			body = nil
		}
		r := k.s.call(t, c.method, c.path, bob, body)
		if r.status != 404 || !strings.Contains(r.msg, "not found") {
			t.Fatalf("%s %s as another user: %d %q; want 404 not found", c.method, c.path, r.status, r.msg)
		}
	}
	k.s.call(t, "GET", "/api/knowledge?workspace_id="+k.ws, bob, nil).fails(t, 403, 4101, "not a member")
	list := k.s.call(t, "GET", "/api/knowledge?workspace_id="+k.ws, bootstrapToken, nil).must(t, 200)
	if names := listNames(t, list); !slices.Contains(names, "Handbook") {
		t.Fatalf("another user's calls changed the knowledge base: %v", names)
	}
}

func listNames(t *testing.T, r reply) []string {
	var out []string
	for _, it := range items(t, r.data, "items") {
		out = append(out, str(it, "name"))
	}
	return out
}

// TestKnowledgeWebPages adds web pages: one through the egress guard's
// allow-list, which is indexed as readable text, and one to a loopback
// address the guard refuses, which fails with the reason.
func TestKnowledgeWebPages(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><nav>Menu Home About</nav><article><h1>Opening hours</h1><p>The museum opens at ten on Sundays.</p></article></body></html>`)
	}))
	defer page.Close()
	blocked := httptest.NewServer(http.NotFoundHandler())
	defer blocked.Close()
	k := newKBSetup(t, backends()[0], map[string]string{"PERGOLA_EGRESS_ALLOW": strings.TrimPrefix(page.URL, "http://")})
	kb := k.base(t, "Web", 0)
	ids := k.add(t, kb, map[string]any{"url": page.URL + "/hours"}, map[string]any{"url": blocked.URL + "/secret"})
	done := k.waitDone(t, kb, ids...)
	if p := done[ids[0]]; p["status"].(float64) != 1 {
		t.Fatalf("the allowed page = %v", p)
	}
	if p := done[ids[1]]; p["status"].(float64) != 9 || !strings.Contains(str(p, "reason"), "could not be fetched") {
		t.Fatalf("the page the egress guard refuses = %v; want failed with the reason", p)
	}
	texts, _ := k.search(t, kb, map[string]any{"query": "when does the museum open", "top_k": 1})
	if len(texts) != 1 || !strings.Contains(texts[0], "ten on Sundays") || strings.Contains(texts[0], "Menu") {
		t.Fatalf("web search = %q; want the article's text without the navigation", texts)
	}
	k.s.call(t, "POST", "/api/knowledge/"+kb+"/documents/"+ids[0]+"/refresh", bootstrapToken, nil).must(t, 200)
	k.waitDone(t, kb, ids[0])
}

package bots

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestCozeKnowledgeRequest(t *testing.T) {
	start := bot.Config{Knowledge: bot.KnowledgeSettings{KnowledgeIDs: []int64{1}, ShowSource: true,
		Retrieval: knowledge.Retrieval{TopK: 9, MinScore: 0.4}}}
	cases := []struct {
		name, body string
		want       bot.KnowledgeSettings
		err        string
	}{
		{"Coze's fields, string ids", `{"knowledge":{"dataset_ids":["7","8"],"auto_call":true,"search_strategy":20}}`,
			bot.KnowledgeSettings{KnowledgeIDs: []int64{7, 8}, AutoCall: true, ShowSource: true,
				Retrieval: knowledge.Retrieval{Strategy: knowledge.StrategyFullText, TopK: 9, MinScore: 0.4}}, ""},
		{"number ids and Pergola's extras", `{"knowledge":{"dataset_ids":[7],"top_k":3,"min_score":0.5,"show_source":false,
			"no_recall_reply":"none","rerank_model":"rr","use_rewrite":true}}`,
			bot.KnowledgeSettings{KnowledgeIDs: []int64{7}, NoRecallReply: "none",
				Retrieval: knowledge.Retrieval{TopK: 3, MinScore: 0.5, RerankModel: "rr", Rewrite: true}}, ""},
		{"absent ids keep the bound ones", `{"knowledge":{"auto_call":true}}`,
			bot.KnowledgeSettings{KnowledgeIDs: []int64{1}, AutoCall: true, ShowSource: true, Retrieval: knowledge.Retrieval{TopK: 9, MinScore: 0.4}}, ""},
		{"empty ids unbind", `{"knowledge":{"dataset_ids":[]}}`,
			bot.KnowledgeSettings{KnowledgeIDs: []int64{}, ShowSource: true, Retrieval: knowledge.Retrieval{TopK: 9, MinScore: 0.4}}, ""},
		{"bad id", `{"knowledge":{"dataset_ids":["7","x"]}}`, bot.KnowledgeSettings{}, "knowledge.dataset_ids[1]"},
	}
	var created bot.Config
	var req cozeBotRequest
	if err := json.Unmarshal([]byte(`{"knowledge":{"dataset_ids":["7"]}}`), &req); err != nil || req.apply(&created, false) != nil || !created.Knowledge.AutoCall {
		t.Fatalf("on create, auto_call defaults to true as in Coze; got %+v", created.Knowledge)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var req cozeBotRequest
			if err := json.Unmarshal([]byte(c.body), &req); err != nil {
				t.Fatal(err)
			}
			cfg := start
			cfg.Knowledge.KnowledgeIDs = []int64{1}
			err := req.apply(&cfg, true)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one naming %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, cfg.Knowledge); d != "" {
				t.Fatalf("knowledge (-want +got):\n%s", d)
			}
		})
	}
}

type namer map[int64]string

func (n namer) Names(_ context.Context, _ int64, ids []int64) (map[int64]string, error) {
	return n, nil
}

func TestCozeKnowledgeInfos(t *testing.T) {
	h := Coze{Knowledge: namer{7: "Garden"}}
	out := h.knowledgeOut(context.Background(), 1, bot.KnowledgeSettings{KnowledgeIDs: []int64{7, 8}, AutoCall: true,
		Retrieval: knowledge.Retrieval{Strategy: knowledge.StrategyHybrid, TopK: 5}})
	b, _ := json.Marshal(out)
	want := `{"knowledge_infos":[{"id":"7","name":"Garden"},{"id":"8","name":""}],"auto_call":true,"search_strategy":1,"top_k":5,` +
		`"min_score":0,"show_source":false,"no_recall_reply":"","rerank_model":"","use_rewrite":false}`
	if string(b) != want {
		t.Fatalf("knowledge = %s\nwant        %s", b, want)
	}
	none, _ := json.Marshal(Coze{}.knowledgeOut(context.Background(), 1, bot.KnowledgeSettings{}))
	if !strings.HasPrefix(string(none), `{"knowledge_infos":[],`) {
		t.Fatalf("no knowledge = %s, want an empty list, never null", none)
	}
}

func TestConsoleKnowledgeRoundTrip(t *testing.T) {
	in := `{"dataset_ids":["7",8],"auto_call":true,"search_strategy":1,"top_k":4,"min_score":0.2,"show_source":true,` +
		`"no_recall_reply":"no","rerank_model":"rr","use_rewrite":true}`
	var d KnowledgeDTO
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	k, err := d.toDomain()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(newKnowledgeDTO(k))
	if want := strings.Replace(in, `8]`, `"8"]`, 1); string(out) != want {
		t.Fatalf("round trip = %s\nwant         %s", out, want)
	}
	d.DatasetIDs = []idText{"0"}
	if _, err := d.toDomain(); err == nil || !strings.Contains(err.Error(), "knowledge.dataset_ids[0]") {
		t.Fatalf("error = %v", err)
	}
}

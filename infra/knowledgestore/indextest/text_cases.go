package indextest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

func testTextEnglish(t *testing.T, ix knowledge.Index) {
	put(t, ix,
		chunk(1, 1, 7, 70, 0, "The quick brown fox jumps over the lazy dog.", nil),
		chunk(2, 1, 7, 70, 1, "Refunds are processed within 14 days of the request.", nil),
		chunk(3, 1, 7, 70, 2, "Our office opens at 9:00; parking is free.", nil),
	)
	cases := map[string][]int64{
		"fox":                        {1},
		"FOX":                        {1},
		"Refunds":                    {2},
		"how are refunds processed?": {2},
		"14":                         {2},
		"parking":                    {3},
		"spaceship":                  {},
	}
	for q, want := range cases {
		if got := textIDs(t, ix, scope17, q, 5); !cmp.Equal(got, want) {
			t.Errorf("SearchText(%q) = %v, want %v", q, got, want)
		}
	}
}

func testTextChinese(t *testing.T, ix knowledge.Index) {
	put(t, ix,
		chunk(1, 1, 7, 70, 0, "花园机器人的秘密代号是青蛙。", nil),
		chunk(2, 1, 7, 70, 1, "退款会在十四天内处理完毕。", nil),
		chunk(3, 1, 7, 70, 2, "東京の天気は晴れです", nil),
		chunk(4, 1, 7, 70, 3, "서울의 날씨는 맑습니다", nil),
	)
	cases := map[string][]int64{
		"花园":     {1},
		"机器人":    {1},
		"秘密代号":   {1},
		"代号是什么？": {1},
		"退款":     {2},
		"蛙":      {1},
		"天気":     {3},
		"날씨":     {4},
		"火箭":     {},
		"花园 退款":  {1, 2},
	}
	for q, want := range cases {
		got := textIDs(t, ix, scope17, q, 5)
		if len(want) > 1 {
			got = sorted(got)
		}
		if !cmp.Equal(got, want) {
			t.Errorf("SearchText(%q) = %v, want %v", q, got, want)
		}
	}
}

// testTextRanking: a chunk holding more of the query's terms ranks
// higher, and scores are positive.
func testTextRanking(t *testing.T, ix knowledge.Index) {
	put(t, ix,
		chunk(1, 1, 7, 70, 0, "garden tools and seeds for spring", nil),
		chunk(2, 1, 7, 70, 1, "the garden robot waters plants with a hose", nil),
		chunk(3, 1, 7, 70, 2, "robot vacuum cleaners for small flats", nil),
		chunk(4, 1, 7, 70, 3, "kitchen knives and cutting boards", nil),
		chunk(5, 1, 7, 70, 4, "花园里的机器人负责浇水", nil),
		chunk(6, 1, 7, 70, 5, "机器人吸尘器", nil),
	)
	hits, err := ix.SearchText(ctx, scope17, "garden robot hose", 10)
	if err != nil {
		t.Fatalf("SearchText: %v", err)
	}
	if ids := hitIDs(hits); len(ids) != 3 || ids[0] != 2 || !cmp.Equal(sorted(ids[1:]), []int64{1, 3}) {
		t.Fatalf("garden robot hose: %v (scores %v), want 2 first, then 1 and 3", ids, scores(hits))
	}
	for _, h := range hits {
		if h.Score <= 0 {
			t.Fatalf("score %v of chunk %d is not positive", h.Score, h.Chunk.ID)
		}
	}
	if ids := textIDs(t, ix, scope17, "花园机器人", 10); len(ids) != 2 || ids[0] != 5 {
		t.Fatalf("花园机器人: %v, want 5 first, then 6", ids)
	}
}

func testTopK(t *testing.T, ix knowledge.Index) {
	var batch []knowledge.Chunk
	for i := 0; i < 8; i++ {
		batch = append(batch, chunk(int64(1+i), 1, 7, 70, i, "lantern festival 灯笼", []float32{1, float32(i)}))
	}
	put(t, ix, batch...)
	for _, k := range []int{1, 3, 8, 20} {
		want := min(k, 8)
		if n := len(textIDs(t, ix, scope17, "lantern", k)); n != want {
			t.Fatalf("SearchText topK %d: %d hits, want %d", k, n, want)
		}
		if n := len(textIDs(t, ix, scope17, "灯笼", k)); n != want {
			t.Fatalf("SearchText(灯笼) topK %d: %d hits, want %d", k, n, want)
		}
		if n := len(vectorIDs(t, ix, scope17, []float32{1, 2}, k)); n != want {
			t.Fatalf("SearchVector topK %d: %d hits, want %d", k, n, want)
		}
	}
}

func testEmpty(t *testing.T, ix knowledge.Index) {
	put(t, ix, chunk(1, 1, 7, 70, 0, "something to find", []float32{1, 0}))
	noBases := knowledge.Scope{WorkspaceID: 1}
	noWorkspace := knowledge.Scope{KnowledgeIDs: []int64{7}}
	texts := []struct {
		s knowledge.Scope
		q string
		k int
	}{{scope17, "", 5}, {scope17, " ?! ，。", 5}, {noBases, "something", 5}, {noWorkspace, "something", 5}, {scope17, "something", 0}}
	for _, c := range texts {
		hits, err := ix.SearchText(ctx, c.s, c.q, c.k)
		if err != nil || len(hits) != 0 {
			t.Fatalf("SearchText(%+v, %q, %d) = %v, %v; want nothing", c.s, c.q, c.k, hits, err)
		}
	}
	vectors := []struct {
		s knowledge.Scope
		v []float32
		k int
	}{{scope17, nil, 5}, {noBases, []float32{1, 0}, 5}, {noWorkspace, []float32{1, 0}, 5}, {scope17, []float32{1, 0}, 0}}
	for _, c := range vectors {
		hits, err := ix.SearchVector(ctx, c.s, c.v, c.k)
		if err != nil || len(hits) != 0 {
			t.Fatalf("SearchVector(%+v, %v, %d) = %v, %v; want nothing", c.s, c.v, c.k, hits, err)
		}
	}
}

// testTextCommonWords: in a base of 300 chunks that all hold "the" and
// "的", a query mixing such a word with a rare one returns the chunks of
// the rare word first, not the whole base; a query of only common words
// still finds chunks.
func testTextCommonWords(t *testing.T, ix knowledge.Index) {
	var batch []knowledge.Chunk
	for i := 0; i < 300; i++ {
		text := fmt.Sprintf("the note %d of the archive 目录的第%d页", i, i)
		switch i {
		case 120:
			text = "the zeppelin landed in the harbour 飞艇的降落"
		case 121:
			text = "the zeppelin museum 飞艇的博物馆"
		}
		batch = append(batch, chunk(int64(1+i), 1, 7, 70+int64(i/100), i%100, text, nil))
	}
	put(t, ix, batch...)
	for _, q := range []string{"the zeppelin", "THE ZEPPELIN OF THE", "目录 飞艇"} {
		if got := sorted(textIDs(t, ix, scope17, q, 300)); !cmp.Equal(got, []int64{121, 122}) {
			t.Errorf("SearchText(%q) = %d chunks %v, want only the chunks holding the rare word, 121 and 122",
				q, len(got), got[:min(len(got), 5)])
		}
	}
	if n := len(textIDs(t, ix, scope17, "the of", 5)); n != 5 {
		t.Errorf("SearchText(\"the of\") found %d chunks, want 5 (common words alone still match)", n)
	}
}

package docparse

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func parse(t *testing.T, fileType string, data []byte) *knowledge.Parsed {
	t.Helper()
	got, err := Parser{}.Parse(context.Background(), fileType, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Parse %s: %v", fileType, err)
	}
	return got
}

func TestParseSections(t *testing.T) {
	tests := []struct {
		name     string
		fileType string
		data     []byte
		want     []knowledge.Section
	}{
		{"plain text is one section", "TXT", []byte("\xef\xbb\xbfHello\r\nworld\r\n"),
			[]knowledge.Section{{Text: "Hello\nworld"}}},
		{"gb18030 text is decoded", "txt", []byte("\xc4\xe3\xba\xc3\xa3\xac\xca\xc0\xbd\xe7"), // 你好，世界 in GBK
			[]knowledge.Section{{Text: "你好，世界"}}},
		{"markdown atx and setext headings", "md", []byte("Intro\n\n# 指南\n\nText one.\n\n## Install ##\nRun it.\n\nSetup\n-----\nMore.\n\nTop\n===\nEnd."),
			[]knowledge.Section{
				{Text: "Intro"},
				{Headings: []string{"指南"}, Text: "Text one."},
				{Headings: []string{"指南", "Install"}, Text: "Run it."},
				{Headings: []string{"指南", "Setup"}, Text: "More."},
				{Headings: []string{"Top"}, Text: "End."},
			}},
		{"markdown code fences hide headings", "markdown", []byte("# A\n```sh\n# not a heading\n```\n~~~\n## nor this\n~~~\nafter"),
			[]knowledge.Section{{Headings: []string{"A"}, Text: "```sh\n# not a heading\n```\n~~~\n## nor this\n~~~\nafter"}}},
		{"markdown thematic break is not a heading", "md", []byte("para\n\n---\n\nnext\n#hashtag"),
			[]knowledge.Section{{Text: "para\n\n---\n\nnext\n#hashtag"}}},
		{"markdown skipped level", "md", []byte("# A\n### C\ntext"),
			[]knowledge.Section{{Headings: []string{"A"}}, {Headings: []string{"A", "C"}, Text: "text"}}},
		{"html drops script style and nav", "HTM", []byte(`<html><head><title>T</title><style>p{}</style></head><body>
			<nav>Home | About</nav><h1>标题</h1><p>Hello <b>bold</b>   world.</p><script>alert(1)</script>
			<h2>Sub</h2><ul><li>one</li><li>two</li></ul><table><tr><td>a</td><td>b</td></tr></table>
			<h1>Second</h1><pre>  keep
  lines</pre></body></html>`),
			[]knowledge.Section{
				{Headings: []string{"标题"}, Text: "Hello bold world."},
				{Headings: []string{"标题", "Sub"}, Text: "one\ntwo\n\na | b"},
				{Headings: []string{"Second"}, Text: "keep\nlines"},
			}},
		{"docx headings, runs and tables", "DOCX", makeDocx(t,
			para("Title", "Handbook")+para("", "Before ", "the first.")+
				para("Heading1", "安装")+para("", "运行 ", "go build。")+
				`<w:p><w:r><w:t>Tab</w:t><w:tab/><w:t>and</w:t><w:br/><w:t>break</w:t></w:r></w:p>`+
				para("标题2", "细节")+
				`<w:tbl><w:tr><w:tc>`+para("", "名称")+`</w:tc><w:tc>`+para("", "价格")+`</w:tc></w:tr>`+
				`<w:tr><w:tc>`+para("", "苹果")+para("", "红")+`</w:tc><w:tc>`+para("", "3")+`</w:tc></w:tr></w:tbl>`+
				`<w:p><w:r><mc:AlternateContent><mc:Choice><w:t>shown</w:t></mc:Choice><mc:Fallback><w:t>hidden</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>`+
				`<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Outline</w:t></w:r></w:p>`+para("", "last")),
			[]knowledge.Section{
				{Headings: []string{"Handbook"}, Text: "Before the first."},
				{Headings: []string{"Handbook", "安装"}, Text: "运行 go build。\n\nTab\tand\nbreak"},
				{Headings: []string{"Handbook", "安装", "细节"}, Text: "名称 | 价格\n苹果 红 | 3\n\nshown"},
				{Headings: []string{"Handbook", "Outline"}, Text: "last"},
			}},
		{"pdf pages in order with chinese", "pdf", makePDF([][]string{
			{"First page line one.", "Line (two)."},
			{"中文第二页。", "", "New paragraph."},
		}), []knowledge.Section{
			{Text: "First page line one.\nLine (two)."},
			{Text: "中文第二页。\n\nNew paragraph."},
		}},
		{"pdf 2.0 header", "pdf", bytes.Replace(makePDF([][]string{{"Version two."}}), []byte("%PDF-1.4"), []byte("%PDF-2.0"), 1),
			[]knowledge.Section{{Text: "Version two."}}},
		{"json other than an array of objects is pretty text", "json", []byte(`{"name":"知识","tags":[1,2]}`),
			[]knowledge.Section{{Text: "{\n  \"name\": \"知识\",\n  \"tags\": [\n    1,\n    2\n  ]\n}"}}},
		{"json array of scalars is text", "json", []byte(`[1,"a"]`),
			[]knowledge.Section{{Text: "[\n  1,\n  \"a\"\n]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parse(t, tt.fileType, tt.data)
			if got.Table != nil {
				t.Fatalf("got a table %+v, want sections", got.Table)
			}
			if d := cmp.Diff(tt.want, got.Sections); d != "" {
				t.Errorf("sections (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseTables(t *testing.T) {
	tests := []struct {
		name     string
		fileType string
		data     []byte
		want     *knowledge.TableData
	}{
		{"csv with quotes, chinese and a short row", "csv", []byte("\xef\xbb\xbf名称,price,note,\r\n苹果,3,\"red, round\"\n\npear,2\n"),
			&knowledge.TableData{Columns: []string{"名称", "price", "note"}, Rows: [][]string{{"苹果", "3", "red, round"}, {"pear", "2"}}}},
		{"gb18030 csv", "csv", []byte("\xc3\xfb\xb3\xc6,a\n\xc6\xbb\xb9\xfb,1\n"), // 名称 / 苹果 in GBK
			&knowledge.TableData{Columns: []string{"名称", "a"}, Rows: [][]string{{"苹果", "1"}}}},
		{"xlsx first sheet", "xlsx", makeXLSX(t, [][]any{{"名称", "price"}, {"苹果", 3}, {"pear", 2.5}}),
			&knowledge.TableData{Columns: []string{"名称", "price"}, Rows: [][]string{{"苹果", "3"}, {"pear", "2.5"}}}},
		{"json array of objects", "json", []byte(`[{"name":"苹果","price":3},{"price":2,"name":"pear","tags":["a"],"x":null}]`),
			&knowledge.TableData{Columns: []string{"name", "price", "tags", "x"}, Rows: [][]string{{"苹果", "3", "", ""}, {"pear", "2", `["a"]`, ""}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parse(t, tt.fileType, tt.data)
			if d := cmp.Diff(tt.want, got.Table); d != "" {
				t.Errorf("table (-want +got):\n%s", d)
			}
		})
	}
}

// wantInvalid checks err is an errs.Invalid on field saying says.
func wantInvalid(t *testing.T, err error, field, says string) {
	t.Helper()
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(err.Error(), says) {
		t.Fatalf("error = %v, want one on %s saying %q", err, field, says)
	}
}

func TestParseThenSplitMarkdown(t *testing.T) {
	doc := parse(t, "md", []byte("# 用户指南\n\n## 安装\n\n下载后运行。\n\n## 配置\n\n"+strings.Repeat("设置一个选项。", 40)))
	pieces, err := knowledge.Split(doc, knowledge.ChunkStrategy{Type: knowledge.ChunkMarkdown, MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pieces {
		got = append(got, strings.Join(p.Headings, " > ")+": "+p.Text)
	}
	want := []string{
		"用户指南 > 安装: 下载后运行。",
		"用户指南 > 配置: " + strings.Repeat("设置一个选项。", 14),
		"用户指南 > 配置: " + strings.Repeat("设置一个选项。", 14),
		"用户指南 > 配置: " + strings.Repeat("设置一个选项。", 12),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pieces (-want +got):\n%s", d)
	}
}

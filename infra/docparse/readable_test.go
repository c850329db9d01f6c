package docparse

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestReadable(t *testing.T) {
	chrome := `<header><a href="/">Logo</a> Sign in</header><nav>Home About</nav><aside>Related posts</aside>
		<form><input> <button>Subscribe</button></form><footer>© 2026</footer><script>track()</script>`
	tests := []struct {
		name string
		page string
		want []knowledge.Section
	}{
		{"article only", `<html><body>` + chrome + `<div class="ad">Buy now</div>
			<article><h1>知识库</h1><p>第一段。</p><header>By Ann</header><h2>Details</h2><p>More <a href="#">here</a>.</p></article></body></html>`,
			[]knowledge.Section{
				{Headings: []string{"知识库"}, Text: "第一段。"},
				{Headings: []string{"知识库", "Details"}, Text: "More here."},
			}},
		{"main when there is no article", `<body>` + chrome + `<div>Ad</div><main><p>Main text.</p></main></body>`,
			[]knowledge.Section{{Text: "Main text."}}},
		{"role main", `<body>` + chrome + `<div role="main"><p>Role text.</p></div></body>`,
			[]knowledge.Section{{Text: "Role text."}}},
		{"body without boilerplate", `<body>` + chrome + `<div><p>Body text.</p></div></body>`,
			[]knowledge.Section{{Text: "Body text."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parser{}.Readable(context.Background(), strings.NewReader(tt.page), "https://example.com/a")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got.Sections); d != "" {
				t.Errorf("sections (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadableRefuses(t *testing.T) {
	tests := []struct {
		name   string
		parser Parser
		page   string
		says   string
	}{
		{"a page without text", Parser{}, `<body><nav>Menu</nav><script>x()</script></body>`, "page https://example.com/a has no text"},
		{"a page over the size limit", Parser{Limits: Limits{MaxBytes: 1024}}, strings.Repeat("<p>x</p>", 200), "larger than 1 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.parser.Readable(context.Background(), strings.NewReader(tt.page), "https://example.com/a")
			wantInvalid(t, err, "file", tt.says)
		})
	}
}

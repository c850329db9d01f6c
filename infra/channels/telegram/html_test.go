package telegram

import "testing"

func TestHTML(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"bold italic strike", "**b** *i* _j_ ~~s~~", "<b>b</b> <i>i</i> <i>j</i> <s>s</s>"},
		{"escapes", `a < b & "c" <i>`, "a &lt; b &amp; &#34;c&#34; &lt;i&gt;"},
		{"link", "[a & b](https://u.example/?x=1&y=2)", `<a href="https://u.example/?x=1&amp;y=2">a &amp; b</a>`},
		{"non-http link kept as text", "[x](javascript:alert(1))", "[x](javascript:alert(1))"},
		{"snake case", "snake_case_name 5*3*2", "snake_case_name 5*3*2"},
		{"code", "`<b>` **use `y`**", "<code>&lt;b&gt;</code> <b>use <code>y</code></b>"},
		{"fence with language", "```go\nx := a < b\n```", `<pre><code class="language-go">x := a &lt; b</code></pre>`},
		{"fence with odd language", "```a\"b\nx\n```", "<pre>x</pre>"},
		{"unclosed fence", "```\ncode", "<pre>code</pre>"},
		{"heading and list", "# T\n- one", "<b>T</b>\n• one"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := HTML(tc.md); got != tc.want {
				t.Fatalf("HTML(%q) = %q, want %q", tc.md, got, tc.want)
			}
		})
	}
}

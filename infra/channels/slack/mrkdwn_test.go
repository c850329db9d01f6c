package slack

import "testing"

func TestMrkdwn(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"bold", "**b** and __c__", "*b* and *c*"},
		{"italic", "*i* and _j_", "_i_ and _j_"},
		{"link", "[label](https://u.example/p?q=1)", "<https://u.example/p?q=1|label>"},
		{"non-http link kept as text", "[x](javascript:alert(1))", "[x](javascript:alert(1))"},
		{"escapes", "a < b & <@U1> <!here>", "a &lt; b &amp; &lt;@U1&gt; &lt;!here&gt;"},
		{"snake case", "snake_case_name 5*3*2", "snake_case_name 5*3*2"},
		{"code kept", "`**x**` and **use `y`**", "`**x**` and *use `y`*"},
		{"bold link", "**see [docs](https://d.example)**", "*see <https://d.example|docs>*"},
		{"fence", "```\n**not bold** <tag>\n```", "```\n**not bold** &lt;tag&gt;\n```"},
		{"heading and list", "## Steps\n- one\n* two", "*Steps*\n• one\n• two"},
		{"strike", "~~old~~", "~old~"},
		{"placeholder bytes in input", "\x000\x00 x", "0 x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mrkdwn(tc.md); got != tc.want {
				t.Fatalf("Mrkdwn(%q) = %q, want %q", tc.md, got, tc.want)
			}
		})
	}
}

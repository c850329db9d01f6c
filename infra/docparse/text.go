package docparse

import (
	"context"
	"regexp"
	"strings"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// parseText reads plain text as one section.
func (p Parser) parseText(_ context.Context, data []byte) (*knowledge.Parsed, error) {
	return textParsed([]knowledge.Section{{Text: decodeText(data)}}, "text file")
}

var (
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextLine    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	fenceOpenLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
)

// mdState walks markdown lines, cutting a section at every heading
// outside code fences.
type mdState struct {
	secs  []knowledge.Section
	path  []string // heading texts by level, path[0] is level 1
	lines []string // lines of the current section
	fence string   // the open code fence, "" outside one
}

// parseMarkdown reads markdown into sections by ATX (# Title) and setext
// (Title over === or ---) headings; a # line inside a ``` or ~~~ code
// fence is code, not a heading. Section text keeps its markdown.
func (p Parser) parseMarkdown(_ context.Context, data []byte) (*knowledge.Parsed, error) {
	st := &mdState{}
	for _, line := range strings.Split(decodeText(data), "\n") {
		st.line(line)
		if err := p.checkSections(len(st.secs)); err != nil {
			return nil, err
		}
	}
	st.flush()
	return textParsed(st.secs, "markdown file")
}

func (st *mdState) line(line string) {
	if st.inFence(line) {
		st.lines = append(st.lines, line)
		return
	}
	if m := atxHeading.FindStringSubmatch(line); m != nil {
		st.heading(len(m[1]), m[2])
		return
	}
	if m := setextLine.FindStringSubmatch(line); m != nil && st.lastIsText() {
		title := st.lines[len(st.lines)-1]
		st.lines = st.lines[:len(st.lines)-1]
		st.heading(setextLevel(m[1]), title)
		return
	}
	st.lines = append(st.lines, line)
}

// inFence tracks code fences and reports whether line belongs to one
// (the fence lines themselves included).
func (st *mdState) inFence(line string) bool {
	if st.fence != "" {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, st.fence) && strings.Trim(trimmed, st.fence[:1]) == "" {
			st.fence = ""
		}
		return true
	}
	if m := fenceOpenLine.FindStringSubmatch(line); m != nil {
		st.fence = m[1]
		return true
	}
	return false
}

// lastIsText reports whether the line before a === or --- underline is
// paragraph text, which makes the underline a setext heading (after a
// blank line --- is a thematic break).
func (st *mdState) lastIsText() bool {
	n := len(st.lines)
	return n > 0 && strings.TrimSpace(st.lines[n-1]) != ""
}

func setextLevel(underline string) int {
	if underline[0] == '=' {
		return 1
	}
	return 2
}

// heading closes the current section and starts one under the heading.
func (st *mdState) heading(level int, title string) {
	st.flush()
	title = strings.TrimSpace(title)
	if len(st.path) >= level {
		st.path = st.path[:level-1]
	}
	for len(st.path) < level-1 {
		st.path = append(st.path, "") // a skipped level, e.g. # then ###
	}
	st.path = append(st.path, title)
}

// flush ends the current section.
func (st *mdState) flush() {
	text := strings.TrimSpace(strings.Join(st.lines, "\n"))
	st.lines = nil
	if text == "" && len(st.path) == 0 {
		return
	}
	st.secs = append(st.secs, knowledge.Section{Headings: compact(st.path), Text: text})
}

// compact copies a heading path without the empty places of skipped
// levels.
func compact(path []string) []string {
	var out []string
	for _, h := range path {
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}

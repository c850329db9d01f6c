package delivery

import (
	"strings"
	"unicode/utf16"
)

// Split cuts a Markdown answer into pieces whose rendering (the
// platform's dialect, made by render) is at most limit long, measured in
// UTF-16 code units as the platforms count them. It cuts between lines
// where it can, inside a line only when the line alone is too long. A
// fenced code block cut in two is closed at the end of one piece and
// reopened at the start of the next, so each piece renders on its own.
// It returns the Markdown of each piece; blank pieces are dropped.
func Split(text string, limit int, render func(string) string) []string {
	s := &splitter{limit: limit, render: render}
	for _, line := range strings.SplitAfter(text, "\n") {
		s.add(line)
	}
	s.flush()
	return s.out
}

// Length is the length of s as the platforms count it: UTF-16 code units.
func Length(s string) int { return len(utf16.Encode([]rune(s))) }

type splitter struct {
	limit  int
	render func(string) string
	out    []string
	cur    string
	fence  string // the opening line of a code fence open at the end of cur
}

// add appends one line to the current piece, starting new pieces as
// needed.
func (s *splitter) add(line string) {
	if s.fits(s.cur+line, toggle(s.fence, line)) {
		s.cur, s.fence = s.cur+line, toggle(s.fence, line)
		return
	}
	if strings.TrimSpace(s.cur) != "" && strings.TrimSpace(s.cur) != strings.TrimSpace(s.fence) {
		s.flush()
		if s.fits(s.cur+line, toggle(s.fence, line)) {
			s.cur, s.fence = s.cur+line, toggle(s.fence, line)
			return
		}
	}
	s.cut(line)
}

// cut places a line too long for one piece, a longest fitting prefix at
// a time.
func (s *splitter) cut(line string) {
	runes := []rune(line)
	for len(runes) > 0 {
		n := s.longestPrefix(runes)
		s.cur += string(runes[:n])
		runes = runes[n:]
		if len(runes) > 0 {
			s.flush()
		}
	}
	s.fence = toggle(s.fence, line)
}

// longestPrefix finds by bisection how many runes of rest fit after cur;
// at least one, so the split always moves on.
func (s *splitter) longestPrefix(rest []rune) int {
	lo, hi := 1, len(rest)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.fits(s.cur+string(rest[:mid]), s.fence) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// fits reports whether piece, closed if a fence is open, renders within
// the limit.
func (s *splitter) fits(piece, fence string) bool {
	return Length(s.render(closeFence(piece, fence))) <= s.limit
}

// flush ends the current piece; the next one reopens an open fence.
func (s *splitter) flush() {
	if strings.TrimSpace(s.cur) != "" {
		s.out = append(s.out, strings.TrimSpace(closeFence(s.cur, s.fence)))
	}
	s.cur = ""
	if s.fence != "" {
		s.cur = s.fence
	}
}

func closeFence(piece, fence string) string {
	if fence == "" {
		return piece
	}
	if !strings.HasSuffix(piece, "\n") {
		piece += "\n"
	}
	return piece + "```"
}

// toggle returns the open fence after line: line opens one when none is
// open and closes the open one otherwise.
func toggle(fence, line string) string {
	if !strings.HasPrefix(strings.TrimSpace(line), "```") {
		return fence
	}
	if fence != "" {
		return ""
	}
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	return strings.TrimLeft(line, " \t")
}

package calculator

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits on an expression, so that no input can take long or nest deep.
const (
	maxLength = 1000
	maxDepth  = 100
)

// parser evaluates while it reads, by recursive descent:
//
//	expr   = term { ("+" | "-") term }
//	term   = unary { ("*" | "/" | "%") unary }
//	unary  = ("-" | "+") unary | power
//	power  = atom [ ("^" | "**") unary ]
//	atom   = number | name | name "(" expr { "," expr } ")" | "(" expr ")"
//
// so "^" binds tighter than unary minus (-2^2 = -4) and is right
// associative (2^3^2 = 512).
type parser struct {
	src   string
	pos   int
	depth int
}

// evaluate computes expression. It fails with errs.Invalid naming
// "expression" for a syntax error, an unknown name, division by zero, a
// result out of range, or an input over the limits.
func evaluate(expression string) (float64, error) {
	if len(expression) > maxLength {
		return 0, errs.Invalid("expression", "is %d characters long; the limit is %d", len(expression), maxLength)
	}
	p := &parser{src: normalize(expression)}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.skip(); p.pos < len(p.src) {
		return 0, p.fail("unexpected %q", p.rest())
	}
	return v, nil
}

// normalize spells the symbols models like to use the way the grammar does.
func normalize(s string) string {
	return strings.NewReplacer("×", "*", "÷", "/", "−", "-", "**", "^").Replace(s)
}

func (p *parser) expr() (float64, error) {
	if p.depth++; p.depth > maxDepth {
		return 0, p.fail("nesting deeper than %d", maxDepth)
	}
	defer func() { p.depth-- }()
	left, err := p.term()
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			break
		}
		at := p.pos
		p.pos++
		var right float64
		if right, err = p.term(); err == nil {
			left, err = p.apply(op, at, left, right)
		}
	}
	return left, err
}

func (p *parser) term() (float64, error) {
	left, err := p.unary()
	for err == nil {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			break
		}
		at := p.pos
		p.pos++
		var right float64
		if right, err = p.unary(); err == nil {
			left, err = p.apply(op, at, left, right)
		}
	}
	return left, err
}

func (p *parser) unary() (float64, error) {
	switch p.peek() {
	case '-':
		p.pos++
		v, err := p.nested(p.unary)
		return -v, err
	case '+':
		p.pos++
		return p.nested(p.unary)
	}
	return p.power()
}

func (p *parser) power() (float64, error) {
	base, err := p.atom()
	if err != nil || p.peek() != '^' {
		return base, err
	}
	at := p.pos
	p.pos++
	exp, err := p.nested(p.unary)
	if err != nil {
		return 0, err
	}
	return p.apply('^', at, base, exp)
}

// nested counts a recursion that does not pass through expr, so that
// "- - - 1" or "2^2^2^…" cannot nest past the limit either.
func (p *parser) nested(f func() (float64, error)) (float64, error) {
	if p.depth++; p.depth > maxDepth {
		return 0, p.fail("nesting deeper than %d", maxDepth)
	}
	defer func() { p.depth-- }()
	return f()
}

func (p *parser) atom() (float64, error) {
	c := p.peek()
	switch {
	case c == '(':
		p.pos++
		v, err := p.expr()
		if err != nil {
			return 0, err
		}
		return v, p.expect(')')
	case c == '.' || ('0' <= c && c <= '9'):
		return p.number()
	case unicode.IsLetter(rune(c)):
		return p.name()
	case c == 0:
		return 0, p.fail("the expression ends where a number was expected")
	}
	return 0, p.fail("unexpected %q where a number was expected", p.rest())
}

func (p *parser) number() (float64, error) {
	start := p.pos
	for p.pos < len(p.src) && (isDigit(p.src[p.pos]) || p.src[p.pos] == '.') {
		p.pos++
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		end := p.pos + 1
		if end < len(p.src) && (p.src[end] == '+' || p.src[end] == '-') {
			end++
		}
		if end < len(p.src) && isDigit(p.src[end]) {
			for p.pos = end; p.pos < len(p.src) && isDigit(p.src[p.pos]); p.pos++ {
			}
		}
	}
	text := p.src[start:p.pos]
	v, err := strconv.ParseFloat(text, 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0)) {
		p.pos = start
		if errors.Is(err, strconv.ErrRange) {
			return 0, p.fail("overflow: %s is too large", text)
		}
		return 0, p.fail("%q is not a number", text)
	}
	return v, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// peek skips spaces and returns the next byte, or 0 at the end.
func (p *parser) peek() byte {
	p.skip()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *parser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
}

func (p *parser) expect(c byte) error {
	if p.peek() != c {
		return p.fail("expected %q", string(c))
	}
	p.pos++
	return nil
}

// rest is the text from the current position, cut short for messages.
func (p *parser) rest() string {
	r := p.src[p.pos:]
	if len(r) > 12 {
		r = r[:12] + "…"
	}
	return r
}

func (p *parser) fail(format string, args ...any) error {
	return p.failAt(p.pos, format, args...)
}

// failAt reports a problem at byte offset at, counted from 1 for people.
func (p *parser) failAt(at int, format string, args ...any) error {
	return errs.Invalid("expression", format+" at position %d", append(args, at+1)...)
}

// finite fails for an infinite or undefined result of what starts at at.
func (p *parser) finite(at int, v float64) (float64, error) {
	if math.IsInf(v, 0) {
		return 0, p.failAt(at, "overflow: the result is too large")
	}
	if math.IsNaN(v) {
		return 0, p.failAt(at, "the result is undefined")
	}
	return v, nil
}

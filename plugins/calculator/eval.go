package calculator

import (
	"math"
	"strings"
	"unicode"
)

// apply computes left op right; at is where the operator is.
func (p *parser) apply(op byte, at int, left, right float64) (float64, error) {
	var v float64
	switch op {
	case '+':
		v = left + right
	case '-':
		v = left - right
	case '*':
		v = left * right
	case '/':
		if right == 0 {
			return 0, p.failAt(at, "division by zero")
		}
		v = left / right
	case '%':
		if right == 0 {
			return 0, p.failAt(at, "division by zero (remainder of a division by 0)")
		}
		v = math.Mod(left, right)
	case '^':
		if left == 0 && right < 0 {
			return 0, p.failAt(at, "division by zero (0 to a negative power)")
		}
		if left < 0 && right != math.Trunc(right) {
			return 0, p.failAt(at, "a negative number to a fractional power is not a real number")
		}
		v = math.Pow(left, right)
	}
	return p.finite(at, v)
}

// name reads a constant (pi, e) or a function call.
func (p *parser) name() (float64, error) {
	start := p.pos
	for p.pos < len(p.src) && (unicode.IsLetter(rune(p.src[p.pos])) || isDigit(p.src[p.pos])) {
		p.pos++
	}
	name := strings.ToLower(p.src[start:p.pos])
	if p.peek() != '(' {
		switch name {
		case "pi":
			return math.Pi, nil
		case "e":
			return math.E, nil
		}
		return 0, p.failAt(start, "unknown name %q; the constants are pi and e, the functions %s", name, functionNames)
	}
	p.pos++
	args, err := p.arguments()
	if err != nil {
		return 0, err
	}
	return p.call(name, start, args)
}

// functionNames lists the functions for messages and the manifest.
const functionNames = "sqrt, abs, round, floor, ceil, min, max, ln, log, exp, sin, cos, tan"

// arguments reads "expr, expr, …)" after the opening parenthesis.
func (p *parser) arguments() ([]float64, error) {
	var args []float64
	for {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		if p.peek() != ',' {
			return args, p.expect(')')
		}
		p.pos++
	}
}

// call applies function name to args; at is where the name starts.
func (p *parser) call(name string, at int, args []float64) (float64, error) {
	argErr := func(want string) (float64, error) {
		return 0, p.failAt(at, "%s takes %s, got %d", name, want, len(args))
	}
	switch name {
	case "min", "max":
		f := math.Min
		if name == "max" {
			f = math.Max
		}
		v := args[0]
		for _, a := range args[1:] {
			v = f(v, a)
		}
		return v, nil
	case "round":
		if len(args) > 2 {
			return argErr("a number and optional decimal places")
		}
		return p.round(at, args)
	case "log":
		if len(args) > 2 {
			return argErr("a number and an optional base")
		}
		return p.logarithm(at, args)
	}
	if len(args) != 1 {
		return argErr("one number")
	}
	return p.unaryFunc(name, at, args[0])
}

func (p *parser) unaryFunc(name string, at int, x float64) (float64, error) {
	domain := func(what string) (float64, error) {
		return 0, p.failAt(at, "%s of %v: %s", name, x, what)
	}
	switch name {
	case "sqrt":
		if x < 0 {
			return domain("the square root of a negative number is not a real number")
		}
		return math.Sqrt(x), nil
	case "abs":
		return math.Abs(x), nil
	case "floor":
		return math.Floor(x), nil
	case "ceil":
		return math.Ceil(x), nil
	case "ln":
		if x <= 0 {
			return domain("the logarithm needs a positive number")
		}
		return math.Log(x), nil
	case "exp":
		return p.finite(at, math.Exp(x))
	case "sin":
		return math.Sin(x), nil
	case "cos":
		return math.Cos(x), nil
	case "tan":
		return p.finite(at, math.Tan(x))
	}
	return 0, p.failAt(at, "unknown function %q; the functions are %s", name, functionNames)
}

func (p *parser) round(at int, args []float64) (float64, error) {
	if len(args) == 1 {
		return math.Round(args[0]), nil
	}
	places := args[1]
	if places != math.Trunc(places) || places < -15 || places > 15 {
		return 0, p.failAt(at, "round takes whole decimal places from -15 to 15, got %v", places)
	}
	scale := math.Pow(10, places)
	return p.finite(at, math.Round(args[0]*scale)/scale)
}

func (p *parser) logarithm(at int, args []float64) (float64, error) {
	x, base := args[0], 10.0
	if len(args) == 2 {
		base = args[1]
	}
	if x <= 0 || base <= 0 || base == 1 {
		return 0, p.failAt(at, "log needs a positive number and a positive base other than 1")
	}
	return math.Log(x) / math.Log(base), nil
}

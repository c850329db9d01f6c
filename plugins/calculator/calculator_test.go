package calculator

import (
	"math"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/plugins/internal/plugintest"
)

func TestManifest(t *testing.T) {
	plugintest.CheckManifest(t, Manifest(), New().Ops())
}

func TestEvaluate(t *testing.T) {
	ok := func(expr, want string) plugintest.Case {
		return plugintest.Case{Name: expr, Op: "evaluate", Args: map[string]any{"expression": expr}, Want: want}
	}
	bad := func(name, expr, says string) plugintest.Case {
		return plugintest.Case{Name: name, Op: "evaluate", Args: map[string]any{"expression": expr}, ErrField: "expression", ErrText: says}
	}
	plugintest.Run(t, New().Ops(), []plugintest.Case{
		ok("1 + 2 * 3", "7"),
		ok("(1 + 2) * 3", "9"),
		ok("0.1 + 0.2", "0.3"),
		ok("10 / 4", "2.5"),
		ok("7 % 3", "1"),
		ok("-7 % 3", "-1"),
		ok("2 ^ 10", "1024"),
		ok("2 ** 3", "8"),
		ok("2 ^ 3 ^ 2", "512"),
		ok("-2 ^ 2", "-4"),
		ok("(-2) ^ 2", "4"),
		ok("2 ^ -1", "0.5"),
		ok("--3", "3"),
		ok("+4 - -4", "8"),
		ok("1e3 + 2.5E-1", "1000.25"),
		ok(".5 * 4", "2"),
		ok("sqrt(16) + abs(-3)", "7"),
		ok("round(2.5)", "3"),
		ok("round(3.14159, 2)", "3.14"),
		ok("floor(-1.5) + ceil(1.2)", "0"),
		ok("min(4, 2, 8) + max(1, 9)", "11"),
		ok("max(3)", "3"),
		ok("ln(e)", "1"),
		ok("log(1000)", "3"),
		ok("log(8, 2)", "3"),
		ok("exp(0)", "1"),
		ok("cos(0) + sin(0)", "1"),
		ok("round(pi, 4)", "3.1416"),
		ok("PI * 2", "6.28318530717959"),
		bad("comparison", "pi > 3", `unexpected "> 3"`),
		ok("12 × 3 ÷ 4 − 1", "8"),
		ok("1 / 3", "0.333333333333333"),
		ok("2 ^ 60", "1.15292150460685e+18"),
		ok("-0 * 5", "0"),
		ok("(1200 * 0.07) / 12", "7"),
		bad("division by zero", "1 / 0", "division by zero at position 3"),
		bad("remainder by zero", "5 % (2 - 2)", "division by zero"),
		bad("zero to a negative power", "0 ^ -1", "division by zero"),
		bad("overflow", "10 ^ 400", "overflow"),
		bad("overflow through exp", "exp(1000)", "overflow"),
		bad("literal too large", "1e999", "overflow"),
		bad("sqrt of a negative number", "sqrt(-4)", "not a real number"),
		bad("negative to a fractional power", "(-8) ^ 0.5", "not a real number"),
		bad("log of zero", "log(0)", "positive"),
		bad("unknown name", "2 * x", `unknown name "x"`),
		bad("unknown function", "fact(5)", `unknown function "fact"`),
		bad("wrong arity", "sqrt(1, 2)", "sqrt takes one number, got 2"),
		bad("unbalanced", "(1 + 2", `expected ")"`),
		bad("trailing input", "1 + 2)", `unexpected ")"`),
		bad("implicit multiplication", "2(3)", `unexpected "(3)"`),
		bad("empty", "", "ends where a number was expected"),
		bad("dangling operator", "3 +", "ends where a number was expected"),
		bad("two dots", "1.2.3", `"1.2.3" is not a number`),
		bad("code is not run", `os.exit(1)`, `unknown name "os"`),
		bad("quotes are not strings", `"a" + 1`, "unexpected"),
		bad("too long", strings.Repeat("1+", 600)+"1", "limit is 1000"),
		bad("too deep", strings.Repeat("(", 200)+"1"+strings.Repeat(")", 200), "nesting deeper than 100"),
		bad("too many signs", strings.Repeat("-", 300)+"1", "nesting deeper than 100"),
		{Name: "missing expression", Op: "evaluate", ErrField: "expression"},
		{Name: "expression not a string", Op: "evaluate", Args: map[string]any{"expression": 42.0}, ErrField: "expression"},
	})
}

// FuzzEvaluate checks that no input makes the parser panic or answer a
// non-finite number.
func FuzzEvaluate(f *testing.F) {
	for _, seed := range []string{"1+2*3", "-(2^3^2)", "max(1,2,3)/0", "round(1.5, 2)", "((((", "1e308*10", "sqrt(-1)", "2**-1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := evaluate(expr)
		if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
			t.Fatalf("evaluate(%q) = %v without an error", expr, v)
		}
	})
}

package workflow

import (
	"strings"
	"testing"
)

// askedText is how a golden case writes an interrupt: the question, or
// the fields of a form.
func askedText(in *Interrupt) string {
	if in.Kind == InterruptInput {
		names := make([]string, len(in.Fields))
		for i, f := range in.Fields {
			names[i] = f.Name
		}
		return "form: " + strings.Join(names, ", ")
	}
	if len(in.Options) > 0 {
		return in.Question + " [" + strings.Join(in.Options, "|") + "]"
	}
	return in.Question
}

// resumeFrom checks the answer, stores and reloads the checkpoint of an
// interrupted run as a store would, and adds the answer.
func resumeFrom(t *testing.T, res *RunResult, answer string) *Checkpoint {
	t.Helper()
	if err := res.Interrupt.CheckAnswer(answer); err != nil {
		t.Fatalf("answer %q: %v", answer, err)
	}
	b, err := res.Checkpoint.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	cp, err := UnmarshalCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	return cp.Answer(res.Interrupt, answer)
}

func TestCheckAnswer(t *testing.T) {
	cases := []struct {
		name   string
		in     Interrupt
		answer string
		ok     bool
	}{
		{"free text", Interrupt{Kind: InterruptQuestion, Question: "q"}, "yes", true},
		{"empty text", Interrupt{Kind: InterruptQuestion, Question: "q"}, " ", false},
		{"an option by text", Interrupt{Kind: InterruptQuestion, Options: []string{"Red", "Blue"}}, "blue", true},
		{"an option by number", Interrupt{Kind: InterruptQuestion, Options: []string{"Red", "Blue"}}, "2", true},
		{"not an option", Interrupt{Kind: InterruptQuestion, Options: []string{"Red", "Blue"}}, "green", false},
		{"another answer allowed", Interrupt{Kind: InterruptQuestion, Options: []string{"Red"}, AllowOther: true}, "green", true},
		{"a form", Interrupt{Kind: InterruptInput, Fields: []Param{{Name: "age", Schema: S(TypeInteger), Required: true}}}, `{"age": "3"}`, true},
		{"a form missing a field", Interrupt{Kind: InterruptInput, Fields: []Param{{Name: "age", Schema: S(TypeInteger), Required: true}}}, `{}`, false},
		{"a form that is not JSON", Interrupt{Kind: InterruptInput, Fields: []Param{P("age", TypeInteger)}}, `age=3`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.in.CheckAnswer(tc.answer); (err == nil) != tc.ok {
				t.Errorf("CheckAnswer(%q) = %v, want ok %v", tc.answer, err, tc.ok)
			}
		})
	}
}

func TestComparePlaces(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"/each#2/ask", "/each#10/ask", -1},
		{"/each#10/ask", "/each#2/ask", 1},
		{"/each#1/ask", "/each#1/form", -1},
		{"/ask", "/ask#1", -1},
		{"/loop#3/each#0/ask", "/loop#3/each#0/ask", 0},
		{"/n107234", "/n157915", -1},
	}
	for _, tc := range cases {
		if got := comparePlaces(tc.a, tc.b); got != tc.want {
			t.Errorf("comparePlaces(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

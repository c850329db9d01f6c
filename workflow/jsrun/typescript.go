package jsrun

import (
	"fmt"

	"github.com/evanw/esbuild/pkg/api"
)

// CompileTypeScript strips TypeScript's types with esbuild (no type
// checking, as Coze Studio's runner does not check them either) and
// compiles the JavaScript that is left. An error names the line and
// column of the TypeScript.
func CompileTypeScript(code string) (*Program, error) {
	res := api.Transform(code, api.TransformOptions{Loader: api.LoaderTS, Target: api.ES2020, Sourcefile: "code"})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		if e.Location != nil {
			return nil, fmt.Errorf("syntax error: line %d:%d: %s", e.Location.Line, e.Location.Column+1, e.Text)
		}
		return nil, fmt.Errorf("syntax error: %s", e.Text)
	}
	return Compile(string(res.Code))
}

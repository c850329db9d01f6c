package pyrun

import (
	"encoding/json"
	"fmt"
)

func fmtResult(res Result, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(res.Value)
	return fmt.Sprintf("%s %s", b, res.Logs)
}

package workflow

import "errors"

// errNodeTimeout is the error of a node attempt that ran out of time.
var errNodeTimeout = errors.New("timed out")

// Error codes of a handled failure, in error.code: Coze Studio's, so
// imported workflows that branch on them keep working.
const (
	CodeNodeFailed  = 720701013 // the node failed
	CodeNodeTimeout = 777777776 // the node ran out of time
)

// errorCode classifies a node's failure.
func errorCode(err error) int64 {
	if errors.Is(err, errNodeTimeout) {
		return CodeNodeTimeout
	}
	return CodeNodeFailed
}

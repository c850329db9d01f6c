// Package workflow is Pergola's workflow engine: the DSL, its validation,
// the node catalog, the compiler onto eino and the executor with
// interrupt and resume. It knows nothing of HTTP or storage; those reach it
// through small interfaces declared here.
package workflow

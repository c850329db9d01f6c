// Package workflow is Pergola's workflow engine: the DSL, its validation,
// the node catalog, the compiler onto eino and the executor. It knows
// nothing of HTTP or storage; those reach it through the small interfaces
// of ports.go (models, plugin tools, tables, bot variables, HTTP, the
// versions sub-workflows run, the history sink, the event sink).
//
// A Definition is nodes joined by edges (JSON or YAML, see Parse and
// idl/workflow-dsl.schema.json). Edges carry control: what runs after
// what, and which branch a condition, an intent or a failing node with
// on_error "branch" takes. Inputs carry data: a literal, a reference to an
// output of a node that runs before, a bot variable, or a template. Every
// node declares or derives typed outputs, so references are type-checked
// before anything runs.
//
// Engine.Validate lists every problem of a definition, each naming the
// node and field. Engine.Compile checks a definition and compiles it onto
// eino's compose.Workflow: one eino node per chain of nodes, dependencies
// for edges, multi-branches for ports; loop and batch bodies compile to
// inner graphs their node runs per iteration. Compiled workflows are
// cached by key (a published version, or a draft's revision). Engine.Run
// runs one to its end with per-node timeouts, retries and error handling,
// the engine's limits, an event per node and per piece of a message, and
// a record of every node for the run history.
//
// Data does not travel through eino: each run keeps the outputs of its
// nodes in frames (one per graph execution), which references read. The
// outputs are plain JSON values, so the state of a run can be saved and
// restored; CheckpointStore is the port interrupts will use.
package workflow

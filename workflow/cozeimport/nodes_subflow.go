package cozeimport

import "strconv"

// convertSubWorkflow runs the Pergola workflow a Coze workflow id is
// mapped to (Options.Workflows). An unmapped id is unsupported with
// RequireWorkflowMappings, else kept and reported as needing conversion.
func convertSubWorkflow(nc *nodeConv) error {
	if err := nc.paramsAndOutputs(); err != nil {
		return err
	}
	id := string(nc.in.WorkflowID)
	ref, ok := nc.c.opts.Workflows[id]
	switch {
	case ok:
	case id == "":
		return unsupported("data.inputs.workflowId is empty: the node names no workflow")
	case nc.c.opts.RequireWorkflowMappings:
		return unsupported("data.inputs.workflowId: workflow %s is neither in the import nor mapped "+
			"(put its canvas in the export or the manifest, or map it in mappings.workflows)", id)
	default:
		nc.flag("workflow %s is a Coze Studio workflow: import it and map it to a published Pergola workflow", id)
		ref.ID, _ = strconv.ParseInt(id, 10, 64)
		ref.Version = 1
	}
	return nc.config(map[string]int64{"workflow_id": ref.ID, "version": ref.Version})
}

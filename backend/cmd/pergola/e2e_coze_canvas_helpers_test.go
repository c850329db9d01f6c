package main

import (
	"encoding/json"
	"testing"
)

// cz is a piece of a Coze Studio canvas, built in tests.
type cz = map[string]any

// czRef reads output name of node.
func czRef(node, name, typ string) cz {
	return cz{"type": typ, "value": cz{"type": "ref", "content": cz{"source": "block-output", "blockID": node, "name": name}}}
}

// czLit is a literal value.
func czLit(typ string, v any) cz {
	return cz{"type": typ, "value": cz{"type": "literal", "content": v}}
}

// czParam names an input.
func czParam(name string, input cz) cz { return cz{"name": name, "input": input} }

// czOut declares an output.
func czOut(name, typ string) cz { return cz{"name": name, "type": typ} }

// czNode is a node of a type with its inputs and outputs.
func czNode(id, typ, title string, inputs cz, outputs ...cz) cz {
	data := cz{"nodeMeta": cz{"title": title}, "inputs": inputs}
	if outputs != nil {
		data["outputs"] = outputs
	}
	return cz{"id": id, "type": typ, "meta": cz{"position": cz{"x": 0, "y": 0}}, "data": data}
}

// czStart is a start node declaring the outputs.
func czStart(outputs ...cz) cz { return czNode("100001", "1", "Start", cz{}, outputs...) }

// czEnd returns variables read from refs (name: input).
func czEnd(params ...cz) cz {
	return czNode("900001", "2", "End", cz{"terminatePlan": "returnVariables", "inputParameters": params})
}

// czEdge joins from (through port, when given) to to.
func czEdge(from, to string, port ...string) cz {
	e := cz{"sourceNodeID": from, "targetNodeID": to}
	if len(port) > 0 {
		e["sourcePortID"] = port[0]
	}
	return e
}

// czCanvas is a canvas of the nodes and edges.
func czCanvas(t *testing.T, nodes []cz, edges ...cz) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(cz{"nodes": nodes, "edges": edges})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// importPublished imports a canvas under name with the workflow mappings
// (Coze id to Pergola id, version 1), publishes it and returns its id.
func (c *chatSetup) importPublished(t *testing.T, name string, canvas json.RawMessage, flows map[string]string) string {
	t.Helper()
	mappings := cz{"models": map[string]string{"1001": "fake"}}
	if len(flows) > 0 {
		wfs := cz{}
		for coze, id := range flows {
			wfs[coze] = cz{"id": id, "version": 1}
		}
		mappings["workflows"] = wfs
	}
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "name": name,
		"canvas": canvas, "mappings": mappings}).must(t, 201)
	id := str(r.data["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

package main

import "github.com/pergola-ai/pergola/domain/knowledge"

// documentSlack is what Coze's document create body carries past the
// base64 of its document: the JSON fields around it.
const documentSlack = 64 << 10

// documentBodyBytes is the body limit of POST
// /open_api/knowledge/document/create, whose documents arrive as base64
// (4 bytes for every 3): one document of the knowledge file limit (the
// default limits; change this with the knowledge service's limits if they
// become configurable).
func documentBodyBytes() int {
	return int((knowledge.Limits{}.WithDefaults().FileBytes+2)/3*4) + documentSlack
}

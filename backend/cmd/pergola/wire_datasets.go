package main

import "github.com/pergola-ai/pergola/backend/config"

// documentSlack is what Coze's document create body carries past the
// base64 of its document: the JSON fields around it.
const documentSlack = 64 << 10

// documentBodyBytes is the body limit of POST
// /open_api/knowledge/document/create, whose documents arrive as base64
// (4 bytes for every 3): one document of PERGOLA_KNOWLEDGE_MAX_FILE_BYTES.
func documentBodyBytes(cfg config.Config) int {
	return int((cfg.Knowledge.MaxFileBytes+2)/3*4) + documentSlack
}

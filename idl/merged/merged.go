// Package merged holds the OpenAPI document served at /openapi.yaml: every
// surface document of package idl joined into one. It is generated at build
// time (go generate ./idl/merged) because parsing and merging the YAML took
// most of the server's start-up; a test fails when it is stale.
package merged

import _ "embed"

//go:generate go run ./gen

//go:embed openapi.yaml
var document []byte

// Document returns the merged document as served. Callers must not modify
// it: every caller shares the one embedded copy.
func Document() []byte { return document }

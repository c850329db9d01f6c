//go:build !amd64 || purego

package knowledgestore

// Dot returns the dot product of two vectors of the same length.
func Dot(a, b []float32) float32 { return dotScalar(a, b) }

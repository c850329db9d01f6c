package knowledgestore

import (
	"encoding/binary"
	"fmt"
	"math"
)

// EncodeVector returns v as little-endian float32 bytes (nil for nil).
func EncodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector reads bytes written by EncodeVector.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector of %d bytes is not float32s", len(b))
	}
	if len(b) == 0 {
		return nil, nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Normalized returns v scaled to length 1 (a copy), so that a dot product
// of two normalized vectors is their cosine similarity. A zero vector
// stays zero: it is similar to nothing.
func Normalized(v []float32) []float32 {
	out := append([]float32(nil), v...)
	normalize(out)
	return out
}

// normalize scales v to length 1 in place (a zero vector stays zero).
func normalize(v []float32) {
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i, f := range v {
		v[i] = float32(float64(f) * inv)
	}
}

// dotScalar is Dot in plain Go, unrolled by four.
func dotScalar(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Package knowledgestore holds what the knowledge.Index implementations
// share: the full-text terms every engine indexes (so Chinese, Japanese and
// Korean match without spaces), vectors as little-endian float32 bytes,
// cosine scoring (AVX2 + FMA on amd64), BM25, top-K selection, input
// checks and the per-base cache of vectors, HNSW graph and inverted index. The engines live in the sub-packages sqlite (the embedded
// default), mysql and pgvector; indextest is the contract suite they pass.
package knowledgestore

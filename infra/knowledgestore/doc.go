// Package knowledgestore holds what the knowledge.Index implementations
// share: the full-text terms every engine indexes (so Chinese, Japanese and
// Korean match without spaces), vectors as little-endian float32 bytes,
// cosine scoring, BM25, top-K selection, input checks and the per-base
// vector cache. The engines live in the sub-packages sqlite (the embedded
// default), mysql and pgvector; indextest is the contract suite they pass.
package knowledgestore

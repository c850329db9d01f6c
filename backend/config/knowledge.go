package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Knowledge says where knowledge bases keep their chunks and vectors and
// bounds what they hold. Without VectorDSN the chunks live beside the
// platform's data: an SQLite index file in the data directory on the
// embedded default, tables of PERGOLA_DB_DSN's database on MySQL.
type Knowledge struct {
	// VectorDSN is a PostgreSQL DSN with pgvector; it takes the chunks of
	// every knowledge base (postgres://user:pass@host:5432/db).
	VectorDSN string `yaml:"vector_dsn"`
	// Lease is how long a document stays with an indexing worker that
	// stopped renewing it before another process indexes it again.
	Lease time.Duration `yaml:"knowledge_lease"`
	// Workers is how many documents this process indexes at once.
	Workers int `yaml:"knowledge_workers"`
	// MaxDocuments bounds the documents of one knowledge base, MaxChunks
	// the chunks of one document, MaxFileBytes one document's source.
	MaxDocuments int   `yaml:"knowledge_max_documents"`
	MaxChunks    int   `yaml:"knowledge_max_chunks"`
	MaxFileBytes int64 `yaml:"knowledge_max_file_bytes"`
}

// DefaultKnowledge returns the default knowledge settings.
func DefaultKnowledge() Knowledge {
	return Knowledge{Lease: 30 * time.Second, Workers: 2, MaxDocuments: 1000, MaxChunks: 10000, MaxFileBytes: 100 << 20}
}

func applyKnowledgeEnv(k *Knowledge, env Lookup) error {
	if v, ok := env("PERGOLA_VECTOR_DSN"); ok {
		k.VectorDSN = strings.TrimSpace(v)
	}
	if v, ok := env("PERGOLA_KNOWLEDGE_LEASE"); ok {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("PERGOLA_KNOWLEDGE_LEASE: must be a duration such as 30s, got %q", v)
		}
		k.Lease = d
	}
	ints := map[string]*int{"PERGOLA_KNOWLEDGE_WORKERS": &k.Workers, "PERGOLA_KNOWLEDGE_MAX_DOCUMENTS": &k.MaxDocuments,
		"PERGOLA_KNOWLEDGE_MAX_CHUNKS": &k.MaxChunks}
	for key, dst := range ints {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	if v, ok := env("PERGOLA_KNOWLEDGE_MAX_FILE_BYTES"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("PERGOLA_KNOWLEDGE_MAX_FILE_BYTES: must be an integer, got %q", v)
		}
		k.MaxFileBytes = n
	}
	return nil
}

func (k Knowledge) validate() error {
	switch {
	case k.VectorDSN != "" && !strings.HasPrefix(k.VectorDSN, "postgres://") && !strings.HasPrefix(k.VectorDSN, "postgresql://"):
		return fmt.Errorf("PERGOLA_VECTOR_DSN: must be a PostgreSQL URL such as postgres://user:pass@host:5432/db")
	case k.Lease < 300*time.Millisecond:
		return fmt.Errorf("PERGOLA_KNOWLEDGE_LEASE: must be at least 300ms, got %s", k.Lease)
	case k.Workers < 0 || k.Workers > 64:
		return fmt.Errorf("PERGOLA_KNOWLEDGE_WORKERS: must be 0 (this process indexes nothing) to 64, got %d", k.Workers)
	case k.MaxDocuments < 1:
		return fmt.Errorf("PERGOLA_KNOWLEDGE_MAX_DOCUMENTS: must be at least 1, got %d", k.MaxDocuments)
	case k.MaxChunks < 1 || k.MaxChunks > 20000:
		return fmt.Errorf("PERGOLA_KNOWLEDGE_MAX_CHUNKS: must be between 1 and 20000, got %d", k.MaxChunks)
	case k.MaxFileBytes < 1:
		return fmt.Errorf("PERGOLA_KNOWLEDGE_MAX_FILE_BYTES: must be at least 1, got %d", k.MaxFileBytes)
	}
	return nil
}

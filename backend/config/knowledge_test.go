package config

import (
	"strings"
	"testing"
	"time"
)

func TestKnowledgeSettings(t *testing.T) {
	cfg, err := Load(envOf(map[string]string{"PERGOLA_VECTOR_DSN": "postgres://kb:secret@db:5432/kb", "PERGOLA_KNOWLEDGE_LEASE": "2s",
		"PERGOLA_KNOWLEDGE_WORKERS": "0", "PERGOLA_KNOWLEDGE_MAX_DOCUMENTS": "5", "PERGOLA_KNOWLEDGE_MAX_CHUNKS": "50",
		"PERGOLA_KNOWLEDGE_MAX_FILE_BYTES": "1000"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Knowledge{VectorDSN: "postgres://kb:secret@db:5432/kb", Lease: 2 * time.Second, MaxDocuments: 5, MaxChunks: 50, MaxFileBytes: 1000}
	if cfg.Knowledge != want {
		t.Fatalf("knowledge settings = %+v, want %+v", cfg.Knowledge, want)
	}
	if got := redactURL(cfg.Knowledge.VectorDSN); strings.Contains(got, "secret") || !strings.HasPrefix(got, "postgres://kb:") {
		t.Fatalf("redacted vector DSN = %q", got)
	}
	for key, value := range map[string]string{"PERGOLA_VECTOR_DSN": "mysql://x", "PERGOLA_KNOWLEDGE_LEASE": "10ms",
		"PERGOLA_KNOWLEDGE_WORKERS": "-1", "PERGOLA_KNOWLEDGE_MAX_CHUNKS": "20001", "PERGOLA_KNOWLEDGE_MAX_DOCUMENTS": "x"} {
		_, err := Load(envOf(map[string]string{key: value}))
		if err == nil || !strings.HasPrefix(err.Error(), key+":") {
			t.Errorf("%s=%s: error %v, want one naming the setting", key, value, err)
		}
	}
}

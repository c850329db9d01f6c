package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// OTelID is the OpenTelemetry trace id of the trace of kind and id: derived
// from them, so what is recorded while a run goes on (metric exemplars)
// names the trace the exporter sends once it ends. Every run of one chat or
// workflow run (a turn and its resumptions) shares it.
func OTelID(kind string, id int64) [16]byte {
	sum := sha256.Sum256([]byte("pergola:" + kind + ":" + strconv.FormatInt(id, 10)))
	var out [16]byte
	copy(out[:], sum[:16])
	return out
}

// OTelIDHex is OTelID as the 32 hex digits trace backends show.
func OTelIDHex(kind string, id int64) string {
	b := OTelID(kind, id)
	return hex.EncodeToString(b[:])
}

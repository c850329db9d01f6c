package otlp

import (
	"context"
	"encoding/binary"
	"math/rand/v2"

	oteltrace "go.opentelemetry.io/otel/trace"
)

// traceIDKey carries the trace id a root span must take.
type traceIDKey struct{}

// withTraceID asks the root span started with ctx to take id.
func withTraceID(ctx context.Context, id [16]byte) context.Context {
	return context.WithValue(ctx, traceIDKey{}, oteltrace.TraceID(id))
}

// ids gives root spans the trace id their context names (Pergola's
// derived id, see trace.OTelID) and every span a random span id.
type ids struct{}

func (ids) NewIDs(ctx context.Context) (oteltrace.TraceID, oteltrace.SpanID) {
	tid, ok := ctx.Value(traceIDKey{}).(oteltrace.TraceID)
	if !ok || !tid.IsValid() {
		binary.BigEndian.PutUint64(tid[:8], rand.Uint64())
		binary.BigEndian.PutUint64(tid[8:], rand.Uint64())
	}
	return tid, spanID()
}

func (ids) NewSpanID(context.Context, oteltrace.TraceID) oteltrace.SpanID { return spanID() }

func spanID() oteltrace.SpanID {
	var sid oteltrace.SpanID
	for !sid.IsValid() {
		binary.BigEndian.PutUint64(sid[:], rand.Uint64())
	}
	return sid
}

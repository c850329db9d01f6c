package feishu

import (
	"context"
	"testing"
)

// BenchmarkReceiveEncrypted measures the inbound work of one encrypted
// direct message: signature, decryption, token check and parsing.
func BenchmarkReceiveEncrypted(b *testing.B) {
	r := newRig(b, true)
	body, h := r.sub.Wire(r.sub.MessageEvent(testAppID, p2p("ev1", "hello")), testKey)
	in := inbound(body, h)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.kind.Receive(context.Background(), r.ch, in); err != nil {
			b.Fatal(err)
		}
	}
}

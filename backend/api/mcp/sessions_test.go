package mcp

import (
	"context"
	"log/slog"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestForgetClosed: the sessions a process opened that closed without a
// request naming them again (timed out idle) are forgotten, at most every
// sweepEvery, and the open ones are kept.
func TestForgetClosed(t *testing.T) {
	s := newSessions(nil, nil, nil, 0, slog.Default())
	live := sdk.NewServer(&sdk.Implementation{Name: "live"}, nil)
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ss, err := live.Connect(context.Background(), serverSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil)
	cs, err := client.Connect(context.Background(), clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	defer ss.Close()
	s.local["live"] = heldSession{server: live}
	s.local["gone"] = heldSession{server: sdk.NewServer(&sdk.Implementation{Name: "gone"}, nil)}
	now := time.Now()
	s.forgetClosed(now)
	if _, ok := s.local["gone"]; ok || len(s.local) != 1 {
		t.Fatalf("after a sweep: %v", s.local)
	}
	s.local["gone"] = heldSession{server: sdk.NewServer(&sdk.Implementation{Name: "gone"}, nil)}
	s.forgetClosed(now.Add(sweepEvery / 2))
	if len(s.local) != 2 {
		t.Fatalf("swept again within %v: %v", sweepEvery, s.local)
	}
	s.forgetClosed(now.Add(sweepEvery))
	if _, ok := s.local["live"]; !ok || len(s.local) != 1 {
		t.Fatalf("after the next sweep: %v", s.local)
	}
}

package mcp

import "context"

// seenStore keeps, in the store every process shares, the fingerprints of
// the lists each session last listed, so the process holding a session's
// stream knows what the session saw wherever it listed.
type seenStore struct{ store SessionStore }

// record stores the fingerprints given ("" leaves that list as it was),
// for as long as a session idles.
func (s *seenStore) record(ctx context.Context, session, tools, prompts string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	for list, fp := range map[string]string{"tools": tools, "prompts": prompts} {
		if fp != "" {
			_ = s.store.Set(ctx, seenKey(session, list), []byte(fp), sessionIdle)
		}
	}
}

// last returns the fingerprints session last listed; "" for a list it did
// not list (or that the store could not say).
func (s *seenStore) last(ctx context.Context, session string) (tools, prompts string) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	get := func(list string) string {
		v, ok, err := s.store.Get(ctx, seenKey(session, list))
		if err != nil || !ok {
			return ""
		}
		return string(v)
	}
	return get("tools"), get("prompts")
}

// keep extends what session saw for another idle period, while its
// stream stays open without the client listing.
func (s *seenStore) keep(ctx context.Context, session string) {
	tools, prompts := s.last(ctx, session)
	s.record(ctx, session, tools, prompts)
}

// forget drops what a closed session saw.
func (s *seenStore) forget(ctx context.Context, session string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	_ = s.store.Delete(ctx, seenKey(session, "tools"), seenKey(session, "prompts"))
}

func seenKey(session, list string) string { return "mcp-seen:" + session + ":" + list }

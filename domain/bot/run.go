package bot

import "context"

// RunScope says which run a tool call belongs to: the bot and version, the
// end user and channel, the chat. Tools that act per end user (table rows,
// plugin calls on a user's behalf) read it from the context.
type RunScope struct {
	BotID          int64
	WorkspaceID    int64
	Version        int64 // 0: the draft, in a builder's debug chat
	ConnectorID    string
	UserID         string
	ChatID         int64
	ConversationID int64
	AppID          int64 // the bot's app (Config.AppID); 0 for none
}

// Draft reports whether the run is a builder's debug run on the draft,
// whose data is kept apart from what published channels see.
func (r RunScope) Draft() bool { return r.Version == 0 }

type runScopeKey struct{}

// WithRunScope returns ctx carrying r.
func WithRunScope(ctx context.Context, r RunScope) context.Context {
	return context.WithValue(ctx, runScopeKey{}, r)
}

// RunScopeFrom returns the run ctx belongs to, if any.
func RunScopeFrom(ctx context.Context) (RunScope, bool) {
	r, ok := ctx.Value(runScopeKey{}).(RunScope)
	return r, ok
}

package bot

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// Limits of the variables API.
const (
	maxUserIDLen      = 255
	maxConnectorIDLen = 64
	maxVariableWrites = 100
)

// EndUser names an end user of a bot on one connector (channel).
type EndUser struct {
	UserID      string // Coze's connector_uid
	ConnectorID string // "" means ConnectorAPI
}

// VariableItem is one variable of an end user: the stored value with its
// times, or the default with zero times when nothing is stored.
type VariableItem struct {
	Keyword   string
	Value     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// scope checks u and returns the storage scope of its values for bot botID.
func (u EndUser) scope(botID int64) (variable.Scope, error) {
	if u.UserID == "" {
		return variable.Scope{}, errs.Invalid("user_id", "is required: the end user whose variables these are")
	}
	if utf8.RuneCountInString(u.UserID) > maxUserIDLen {
		return variable.Scope{}, errs.Invalid("user_id", "must be at most %d characters", maxUserIDLen)
	}
	if len(u.ConnectorID) > maxConnectorIDLen {
		return variable.Scope{}, errs.Invalid("connector_id", "must be at most %d characters", maxConnectorIDLen)
	}
	return variable.Scope{BotID: botID, ConnectorID: connectorOrAPI(u.ConnectorID), UserID: u.UserID}, nil
}

func connectorOrAPI(id string) string {
	if id == "" {
		return ConnectorAPI
	}
	return id
}

// definitions returns the variables the bot defines: the draft's, then
// those of the published version the draft no longer has, so values the
// running version uses stay reachable while the draft is being edited.
func (s *Service) definitions(ctx context.Context, b *bot.Bot) ([]variable.Definition, error) {
	defs := slices.Clone(b.Draft.Variables)
	if !b.IsPublished() {
		return defs, nil
	}
	v, err := s.store.GetVersion(ctx, b.ID, b.PublishedVersion)
	if err != nil {
		return nil, fmt.Errorf("variables of bot %d: %w", b.ID, err)
	}
	for _, d := range v.Config.Variables {
		if !slices.ContainsFunc(defs, func(x variable.Definition) bool { return x.Keyword == d.Keyword }) {
			defs = append(defs, d)
		}
	}
	return defs, nil
}

// UserVariables returns one item per variable the bot defines, in the
// order of definition, for one end user; only those of keywords when any
// are given (unknown keywords are left out). It needs the bot scope and
// membership of the bot's workspace; an unreachable bot is
// errs.ErrNotFound.
func (s *Service) UserVariables(ctx context.Context, p identity.Principal, botID int64, u EndUser, keywords []string) ([]VariableItem, error) {
	sc, err := u.scope(botID)
	if err != nil {
		return nil, err
	}
	b, _, err := s.reach(ctx, p, botID, identity.ScopeBot)
	if err != nil {
		return nil, err
	}
	defs, err := s.definitions(ctx, b)
	if err != nil {
		return nil, err
	}
	if len(keywords) > 0 {
		defs = slices.DeleteFunc(defs, func(d variable.Definition) bool { return !slices.Contains(keywords, d.Keyword) })
	}
	stored, err := s.vars.GetValues(ctx, sc, keywords)
	if err != nil {
		return nil, fmt.Errorf("variables of bot %d: %w", botID, err)
	}
	items := make([]VariableItem, len(defs))
	for i, d := range defs {
		items[i] = VariableItem{Keyword: d.Keyword, Value: d.Default}
		for _, v := range stored {
			if v.Keyword == d.Keyword {
				items[i] = VariableItem{Keyword: v.Keyword, Value: v.Value, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
			}
		}
	}
	return items, nil
}

// SetUserVariables stores values of one end user. Every keyword must be a
// variable the bot defines and every value at most variable.MaxValueLen
// characters; otherwise it fails with errs.ErrInvalid naming data[i] and
// writes nothing. Access as for UserVariables.
func (s *Service) SetUserVariables(ctx context.Context, p identity.Principal, botID int64, u EndUser, kvs []variable.KV) error {
	sc, err := u.scope(botID)
	if err != nil {
		return err
	}
	if len(kvs) == 0 || len(kvs) > maxVariableWrites {
		return errs.Invalid("data", "must hold 1 to %d keyword and value pairs, got %d", maxVariableWrites, len(kvs))
	}
	b, _, err := s.reach(ctx, p, botID, identity.ScopeBot)
	if err != nil {
		return err
	}
	defs, err := s.definitions(ctx, b)
	if err != nil {
		return err
	}
	if err := checkWrites(botID, defs, kvs); err != nil {
		return err
	}
	if err := s.vars.SetValues(ctx, sc, kvs); err != nil {
		return fmt.Errorf("set variables of bot %d: %w", botID, err)
	}
	return nil
}

func checkWrites(botID int64, defs []variable.Definition, kvs []variable.KV) error {
	keywords := make([]string, len(defs))
	for i, d := range defs {
		keywords[i] = d.Keyword
	}
	for i, kv := range kvs {
		at := "data[" + strconv.Itoa(i) + "]"
		if !slices.Contains(keywords, kv.Keyword) {
			known := strings.Join(keywords, ", ")
			if known == "" {
				known = "none"
			}
			return errs.Invalid(at+".keyword", "%q is not a variable of bot %d; its variables: %s", kv.Keyword, botID, known)
		}
		if utf8.RuneCountInString(kv.Value) > variable.MaxValueLen {
			return errs.Invalid(at+".value", "must be at most %d characters", variable.MaxValueLen)
		}
	}
	return nil
}

// ResetUserVariables deletes the stored values of one end user, only those
// of keywords when any are given, so the defaults apply again. Access as
// for UserVariables.
func (s *Service) ResetUserVariables(ctx context.Context, p identity.Principal, botID int64, u EndUser, keywords []string) error {
	sc, err := u.scope(botID)
	if err != nil {
		return err
	}
	if _, _, err := s.reach(ctx, p, botID, identity.ScopeBot); err != nil {
		return err
	}
	if err := s.vars.DeleteValues(ctx, sc, keywords); err != nil {
		return fmt.Errorf("reset variables of bot %d: %w", botID, err)
	}
	return nil
}

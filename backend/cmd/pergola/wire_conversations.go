package main

import (
	"context"
	"fmt"

	botapp "github.com/pergola-ai/pergola/application/bot"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newConversations wires the conversation and message use cases. Only a
// bot's workspace is needed from bots, so the bot store is read directly
// and the bot service is not used.
func newConversations(db *sqlstore.DB, ident *identityapp.Service, _ *botapp.Service) *convapp.Service {
	access := convAccess{Service: ident, workspaces: db.Workspaces()}
	return convapp.New(db.Conversations(), db.Messages(), db.Chats(), access, botWorkspaces{db.Bots()})
}

// convAccess adds "the personal workspace of a user" to the identity
// service's access check.
type convAccess struct {
	*identityapp.Service
	workspaces identity.WorkspaceStore
}

// PersonalWorkspace returns the personal workspace the user owns, or
// errs.ErrNotFound.
func (a convAccess) PersonalWorkspace(ctx context.Context, userID int64) (int64, error) {
	views, _, err := a.workspaces.ListWorkspacesOfUser(ctx, userID, identity.Page{})
	if err != nil {
		return 0, fmt.Errorf("personal workspace: %w", err)
	}
	for _, v := range views {
		if v.Workspace.Kind == identity.WorkspacePersonal && v.Workspace.OwnerID == userID {
			return v.Workspace.ID, nil
		}
	}
	return 0, errs.NotFound("personal workspace of user", fmt.Sprint(userID))
}

// botWorkspaces answers the workspace of a bot from the bot store.
type botWorkspaces struct{ bots bot.Store }

// BotWorkspace returns the bot's workspace, or errs.ErrNotFound.
func (b botWorkspaces) BotWorkspace(ctx context.Context, botID int64) (int64, error) {
	found, err := b.bots.GetBot(ctx, botID)
	if err != nil {
		return 0, err
	}
	return found.WorkspaceID, nil
}

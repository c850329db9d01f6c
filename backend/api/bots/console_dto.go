package bots

import (
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
)

// BotDTO is a bot with its draft as the console API shows it.
type BotDTO struct {
	ID               httpx.ID  `json:"id"`
	WorkspaceID      httpx.ID  `json:"workspace_id"`
	CreatorID        httpx.ID  `json:"creator_id"`
	Config           ConfigDTO `json:"config"`
	DraftRevision    int64     `json:"draft_revision"`
	PublishedVersion int64     `json:"published_version"`
	PublishedAt      int64     `json:"published_at"`
	CreatedAt        int64     `json:"created_at"`
	UpdatedAt        int64     `json:"updated_at"`
}

func newBotDTO(b *bot.Bot) BotDTO {
	return BotDTO{ID: httpx.ID(b.ID), WorkspaceID: httpx.ID(b.WorkspaceID), CreatorID: httpx.ID(b.CreatorID),
		Config: newConfigDTO(b.Draft), DraftRevision: b.DraftRevision, PublishedVersion: b.PublishedVersion,
		PublishedAt: httpx.UnixPtr(b.PublishedAt), CreatedAt: httpx.Unix(b.CreatedAt), UpdatedAt: httpx.Unix(b.UpdatedAt)}
}

// BotSummaryDTO is a bot in a list: what identifies it, not its whole
// configuration.
type BotSummaryDTO struct {
	ID               httpx.ID `json:"id"`
	WorkspaceID      httpx.ID `json:"workspace_id"`
	CreatorID        httpx.ID `json:"creator_id"`
	Name             string   `json:"name"`
	Description      string   `json:"description"`
	IconURL          string   `json:"icon_url"`
	ModelID          string   `json:"model_id"`
	DraftRevision    int64    `json:"draft_revision"`
	PublishedVersion int64    `json:"published_version"`
	PublishedAt      int64    `json:"published_at"`
	CreatedAt        int64    `json:"created_at"`
	UpdatedAt        int64    `json:"updated_at"`
}

func newBotSummaryDTO(b *bot.Bot) BotSummaryDTO {
	return BotSummaryDTO{ID: httpx.ID(b.ID), WorkspaceID: httpx.ID(b.WorkspaceID), CreatorID: httpx.ID(b.CreatorID),
		Name: b.Draft.Name, Description: b.Draft.Description, IconURL: b.Draft.IconURL, ModelID: b.Draft.Model.ModelID,
		DraftRevision: b.DraftRevision, PublishedVersion: b.PublishedVersion, PublishedAt: httpx.UnixPtr(b.PublishedAt),
		CreatedAt: httpx.Unix(b.CreatedAt), UpdatedAt: httpx.Unix(b.UpdatedAt)}
}

// VersionDTO is a published version; lists leave out the configuration.
type VersionDTO struct {
	BotID        httpx.ID   `json:"bot_id"`
	Version      int64      `json:"version"`
	ConnectorIDs []string   `json:"connector_ids"`
	PublisherID  httpx.ID   `json:"publisher_id"`
	CreatedAt    int64      `json:"created_at"`
	Config       *ConfigDTO `json:"config,omitempty"`
}

func newVersionDTO(v *bot.Version, withConfig bool) VersionDTO {
	d := VersionDTO{BotID: httpx.ID(v.BotID), Version: v.Number, ConnectorIDs: httpx.NonNil(v.Connectors),
		PublisherID: httpx.ID(v.PublisherID), CreatedAt: httpx.Unix(v.CreatedAt)}
	if withConfig {
		cfg := newConfigDTO(v.Config)
		d.Config = &cfg
	}
	return d
}

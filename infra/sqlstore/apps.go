package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// AppStore keeps apps in the apps table and the values of their variables
// in app_variable_values.
type AppStore struct{ db *DB }

var _ app.Store = (*AppStore)(nil)

// Apps returns the store of apps.
func (db *DB) Apps() *AppStore { return &AppStore{db: db} }

type appRow struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64
	CreatorID   int64
	Name        string
	Description string
	Variables   string // appVariableDoc JSON array
	// Conversations is the JSON array of declared conversation templates;
	// nil for none.
	Conversations *string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

func (appRow) TableName() string { return "apps" }

// appVariableDoc is an app variable as stored.
type appVariableDoc struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Default     any    `json:"default,omitempty"`
	Description string `json:"description,omitempty"`
}

func appToRow(a *app.App) (*appRow, error) {
	docs := make([]appVariableDoc, len(a.Variables))
	for i, v := range a.Variables {
		docs[i] = appVariableDoc{Name: v.Name, Type: v.Type, Default: v.Default, Description: v.Description}
	}
	vars, err := json.Marshal(docs)
	if err != nil {
		return nil, err
	}
	row := &appRow{ID: a.ID, WorkspaceID: a.WorkspaceID, CreatorID: a.CreatorID, Name: a.Name, Description: a.Description,
		Variables: string(vars), CreatedAt: dbTime(a.CreatedAt), UpdatedAt: dbTime(a.UpdatedAt)}
	if len(a.Conversations) > 0 {
		b, err := json.Marshal(a.Conversations)
		if err != nil {
			return nil, err
		}
		row.Conversations = new(string(b))
	}
	return row, nil
}

func appFromRow(r *appRow) (*app.App, error) {
	var docs []appVariableDoc
	if err := decodeJSON(r.Variables, &docs); err != nil {
		return nil, fmt.Errorf("sqlstore: variables of app %d: %w", r.ID, err)
	}
	a := &app.App{ID: r.ID, WorkspaceID: r.WorkspaceID, CreatorID: r.CreatorID, Name: r.Name, Description: r.Description,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Variables: make([]app.Variable, len(docs))}
	for i, d := range docs {
		a.Variables[i] = app.Variable{Name: d.Name, Type: d.Type, Default: app.Numbers(d.Default), Description: d.Description}
	}
	if r.Conversations != nil {
		if err := json.Unmarshal([]byte(*r.Conversations), &a.Conversations); err != nil {
			return nil, fmt.Errorf("sqlstore: conversations of app %d: %w", r.ID, err)
		}
	}
	return a, nil
}

// decodeJSON reads stored JSON, whole numbers as int64.
func decodeJSON(s string, v any) error {
	d := json.NewDecoder(stringsReader(s))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	return nil
}

func appNotFound(id int64) error { return errs.NotFound("app", strconv.FormatInt(id, 10)) }

func appNameTaken(workspaceID int64, name string) error {
	return errs.Conflict("workspace %d already has an app named %s", workspaceID, name)
}

// CreateApp stores a, assigning its id when zero and its timestamps. It
// returns errs.ErrConflict for a name taken in the workspace (ignoring
// case) and errs.ErrNotFound for an unknown workspace.
func (s *AppStore) CreateApp(ctx context.Context, a *app.App) error {
	if a.ID == 0 {
		a.ID = s.db.ids.Next()
	}
	a.CreatedAt = s.db.timestamp()
	a.UpdatedAt = a.CreatedAt
	row, err := appToRow(a)
	if err != nil {
		return fmt.Errorf("sqlstore: create app: %w", err)
	}
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workspaceNotFound(a.WorkspaceID)
	case isDuplicate(err):
		return appNameTaken(a.WorkspaceID, a.Name)
	}
	return fmt.Errorf("sqlstore: create app: %w", err)
}

// GetApp returns the app with id, or errs.ErrNotFound.
func (s *AppStore) GetApp(ctx context.Context, id int64) (*app.App, error) {
	var row appRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, appNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get app: %w", err)
	}
	return appFromRow(&row)
}

// ListApps returns one page of a workspace's apps by name, and how many
// there are.
func (s *AppStore) ListApps(ctx context.Context, workspaceID int64, p identity.Page) ([]app.App, int64, error) {
	query := func() *gorm.DB {
		return s.db.gorm.WithContext(ctx).Model(&appRow{}).Where("workspace_id = ?", workspaceID)
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count apps: %w", err)
	}
	var rows []appRow
	if err := page(query().Order("name, id"), p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list apps: %w", err)
	}
	out := make([]app.App, len(rows))
	for i := range rows {
		a, err := appFromRow(&rows[i])
		if err != nil {
			return nil, 0, err
		}
		out[i] = *a
	}
	return out, total, nil
}

// UpdateApp runs fn on the app, its row locked, and saves what fn leaves;
// id, workspace, creator and creation time are kept. errs.ErrNotFound
// when the app is not in the workspace, errs.ErrConflict for a taken name,
// fn's error unchanged (nothing written) when fn fails.
func (s *AppStore) UpdateApp(ctx context.Context, workspaceID, id int64, fn func(*app.App) error) (*app.App, error) {
	var changed *app.App
	row, err := updateLocked(ctx, s.db, "update app", func() error { return appNotFound(id) }, func(r *appRow) error {
		a, err := appFromRow(r)
		if err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
		a.ID, a.WorkspaceID, a.CreatorID, a.CreatedAt, a.UpdatedAt = r.ID, r.WorkspaceID, r.CreatorID, r.CreatedAt.UTC(), s.db.timestamp()
		next, err := appToRow(a)
		if err != nil {
			return err
		}
		*r, changed = *next, a
		return nil
	}, "id = ? AND workspace_id = ?", id, workspaceID)
	if isDuplicate(err) {
		return nil, appNameTaken(workspaceID, changed.Name)
	}
	if err != nil {
		return nil, err
	}
	changed.UpdatedAt = row.UpdatedAt.UTC()
	return changed, nil
}

// DeleteApp removes an app and, by cascade, its values; errs.ErrNotFound
// when it is not in the workspace.
func (s *AppStore) DeleteApp(ctx context.Context, workspaceID, id int64) error {
	res := s.db.gorm.WithContext(ctx).Where("id = ? AND workspace_id = ?", id, workspaceID).Delete(&appRow{})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: delete app: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return appNotFound(id)
	}
	return nil
}

package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// ModelStore keeps the models created through the admin API in the models
// table. API keys are sealed with the DB's Cipher before they are written
// and opened after they are read.
type ModelStore struct{ db *DB }

var _ llm.ModelStore = (*ModelStore)(nil)

// Models returns the store of models.
func (db *DB) Models() *ModelStore { return &ModelStore{db: db} }

type modelRow struct {
	ID            string `gorm:"primaryKey"`
	Name          string
	Provider      string
	BaseURL       string
	APIKey        string // sealed
	APIKeyEnv     string
	Model         string
	Capabilities  string // JSON object
	ContextWindow int
	Enabled       bool
	Kind          string
	Dimensions    int
	IsDefault     bool
	Source        string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

func (modelRow) TableName() string { return "models" }

func (s *ModelStore) toRow(m *llm.Model) (*modelRow, error) {
	key, err := s.seal(m.APIKey)
	if err != nil {
		return nil, err
	}
	caps, err := json.Marshal(m.Capabilities)
	if err != nil {
		return nil, err
	}
	return &modelRow{
		ID: m.ID, Name: m.Name, Provider: m.Provider, BaseURL: m.BaseURL,
		APIKey: key, APIKeyEnv: m.APIKeyEnv, Model: m.Model, Capabilities: string(caps),
		ContextWindow: m.ContextWindow, Enabled: m.Enabled, Source: m.Source,
		Kind: m.KindOrChat(), Dimensions: m.Dimensions, IsDefault: m.Default,
		CreatedAt: dbTime(m.CreatedAt), UpdatedAt: dbTime(m.UpdatedAt),
	}, nil
}

func (s *ModelStore) fromRow(r *modelRow) (*llm.Model, error) {
	key, err := s.open(r.APIKey)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: model %s api key: %w", r.ID, err)
	}
	m := &llm.Model{
		ID: r.ID, Name: r.Name, Provider: r.Provider, BaseURL: r.BaseURL,
		APIKey: key, APIKeyEnv: r.APIKeyEnv, Model: r.Model,
		ContextWindow: r.ContextWindow, Enabled: r.Enabled, Source: r.Source,
		Kind: r.Kind, Dimensions: r.Dimensions, Default: r.IsDefault,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if err := json.Unmarshal([]byte(r.Capabilities), &m.Capabilities); err != nil {
		return nil, fmt.Errorf("sqlstore: model %s capabilities: %w", r.ID, err)
	}
	return m, nil
}

func (s *ModelStore) seal(plain string) (string, error) {
	if plain == "" {
		return "", nil
	}
	if s.db.cipher == nil {
		return "", errNoCipher
	}
	return s.db.cipher.Encrypt(plain)
}

func (s *ModelStore) open(sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	if s.db.cipher == nil {
		return "", errNoCipher
	}
	return s.db.cipher.Decrypt(sealed)
}

func modelNotFound(id string) error { return errs.NotFound("model", id) }

// CreateModel stores m with its API key sealed, setting its timestamps
// and an empty kind to llm.KindChat. It returns errs.ErrConflict when the
// ID is taken.
func (s *ModelStore) CreateModel(ctx context.Context, m *llm.Model) error {
	m.Kind = m.KindOrChat()
	row, err := s.toRow(m)
	if err != nil {
		return fmt.Errorf("sqlstore: create model %s: %w", m.ID, err)
	}
	row.CreatedAt = s.db.timestamp()
	row.UpdatedAt = row.CreatedAt
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	if isDuplicate(err) {
		return errs.Conflict("model id %q is already taken", m.ID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: create model %s: %w", m.ID, err)
	}
	m.CreatedAt, m.UpdatedAt = row.CreatedAt, row.UpdatedAt
	return nil
}

// GetModel returns the model with id, its API key opened, or
// errs.ErrNotFound. An API key that cannot be opened (another secret key)
// is an error, not an empty key.
func (s *ModelStore) GetModel(ctx context.Context, id string) (*llm.Model, error) {
	var row modelRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, modelNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get model: %w", err)
	}
	return s.fromRow(&row)
}

// ListModels returns every stored model in ID order, API keys opened.
func (s *ModelStore) ListModels(ctx context.Context) ([]llm.Model, error) {
	var rows []modelRow
	if err := s.db.gorm.WithContext(ctx).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list models: %w", err)
	}
	out := make([]llm.Model, len(rows))
	for i := range rows {
		m, err := s.fromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = *m
	}
	return out, nil
}

// UpdateModel runs fn on the model with id inside a transaction, with the
// row locked, and saves the result; ID and CreatedAt are kept, UpdatedAt
// is set. It returns errs.ErrNotFound for an unknown id and fn's error
// unchanged, writing nothing, when fn fails.
func (s *ModelStore) UpdateModel(ctx context.Context, id string, fn func(*llm.Model) error) (*llm.Model, error) {
	var changed *llm.Model
	row, err := updateLocked(ctx, s.db, "update model", func() error { return modelNotFound(id) }, func(r *modelRow) error {
		m, err := s.fromRow(r)
		if err != nil {
			return err
		}
		if err := fn(m); err != nil {
			return err
		}
		m.ID, m.CreatedAt, m.UpdatedAt = r.ID, r.CreatedAt, s.db.timestamp()
		next, err := s.toRow(m)
		if err != nil {
			return fmt.Errorf("sqlstore: update model %s: %w", id, err)
		}
		*r, changed = *next, m
		return nil
	}, "id = ?", id)
	if err != nil {
		return nil, err
	}
	changed.UpdatedAt = row.UpdatedAt.UTC() // gorm may have set it again
	return changed, nil
}

// DeleteModel removes the model with id. It returns errs.ErrNotFound for an
// unknown id.
func (s *ModelStore) DeleteModel(ctx context.Context, id string) error {
	res := s.db.gorm.WithContext(ctx).Where("id = ?", id).Delete(&modelRow{})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: delete model: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return modelNotFound(id)
	}
	return nil
}

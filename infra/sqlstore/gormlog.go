package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// gormLogger sends gorm's messages to slog. Failed statements are logged at
// debug level only: the stores turn their errors into domain errors and the
// caller decides whether they are worth reporting.
type gormLogger struct {
	log  *slog.Logger
	slow time.Duration
}

func newGormLogger(log *slog.Logger, slow time.Duration) logger.Interface {
	return gormLogger{log: log.With("component", "sqlstore"), slow: slow}
}

// LogMode is ignored: the slog handler's level decides.
func (l gormLogger) LogMode(logger.LogLevel) logger.Interface { return l }

func (l gormLogger) Info(ctx context.Context, msg string, args ...any) {
	l.log.InfoContext(ctx, fmt.Sprintf(msg, args...))
}

func (l gormLogger) Warn(ctx context.Context, msg string, args ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(msg, args...))
}

func (l gormLogger) Error(ctx context.Context, msg string, args ...any) {
	l.log.ErrorContext(ctx, fmt.Sprintf(msg, args...))
}

func (l gormLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	switch {
	case elapsed >= l.slow:
		query, rows := fc()
		l.log.WarnContext(ctx, "slow sql", "elapsed", elapsed, "sql", query, "rows", rows, "err", err)
	case l.log.Enabled(ctx, slog.LevelDebug):
		if errors.Is(err, gorm.ErrRecordNotFound) {
			err = nil
		}
		query, rows := fc()
		l.log.DebugContext(ctx, "sql", "elapsed", elapsed, "sql", query, "rows", rows, "err", err)
	}
}

// ParamsFilter keeps bound values out of the log: they include password
// hashes and sealed secrets.
func (gormLogger) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}

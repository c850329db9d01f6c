package sqlstore

import (
	"context"
	"testing"
	"time"
)

// TestMigrateUpToDateCheck covers the one-query check a start makes before
// migrating: false on an empty database and when any known migration is
// missing, true once every one is recorded.
func TestMigrateUpToDateCheck(t *testing.T) {
	forEachEmptyBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		db := openDB(t, cfg)
		if db.upToDate(ctx) {
			t.Fatal("an empty database counts as up to date")
		}
		_, err := db.Migrate(ctx)
		mustNot(t, err)
		if !db.upToDate(ctx) {
			t.Fatal("a migrated database does not count as up to date")
		}
		all := migrations()
		last := all[len(all)-1]
		mustNot(t, db.Gorm().Where("version = ?", last.Version).Delete(&schemaMigration{}).Error)
		if db.upToDate(ctx) {
			t.Fatalf("with migration %s unrecorded the database counts as up to date", last.label())
		}
	})
}

// TestRestartDoesNotWaitForMigrationLock: on MySQL, a process starting on a
// current database does not queue behind another process that holds the
// migration lock (a rolling restart next to a slow migration).
func TestRestartDoesNotWaitForMigrationLock(t *testing.T) {
	forEachEmptyBackend(t, func(t *testing.T, cfg Config) {
		db := openDB(t, cfg)
		if db.Dialect() != DialectMySQL {
			t.Skip("SQLite has no named migration lock")
		}
		_, err := db.Migrate(context.Background())
		mustNot(t, err)
		holder := openDB(t, cfg)
		unlock, err := holder.lockMigrations(context.Background())
		mustNot(t, err)
		defer unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		applied, err := db.Migrate(ctx)
		if err != nil || len(applied) != 0 {
			t.Fatalf("Migrate on a current database while another process holds the lock = %v, %v; want nothing to do", applied, err)
		}
	})
}

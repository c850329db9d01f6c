package sqlstore

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMigrate(t *testing.T) {
	forEachEmptyBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		db := openDB(t, cfg)

		status, err := db.MigrationStatus(ctx)
		mustNot(t, err)
		if len(status) != len(migrations()) || status[0].AppliedAt != nil {
			t.Fatalf("status of an empty database = %+v, want every migration pending", status)
		}

		applied, err := db.Migrate(ctx)
		mustNot(t, err)
		var want []string
		for _, m := range migrations() {
			want = append(want, m.label())
		}
		if diff := cmp.Diff(want, applied); diff != "" {
			t.Errorf("first Migrate applied (-want +got):\n%s", diff)
		}

		applied, err = db.Migrate(ctx)
		mustNot(t, err)
		if len(applied) != 0 {
			t.Errorf("second Migrate applied %v, want nothing", applied)
		}

		status, err = db.MigrationStatus(ctx)
		mustNot(t, err)
		for _, st := range status {
			if st.AppliedAt == nil || st.Unknown {
				t.Errorf("after Migrate: %+v, want applied and known", st)
			}
		}
	})
}

func TestMigrateUnknownVersionIsReported(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		future := schemaMigration{Version: 9999, Name: "from_the_future", AppliedAt: db.timestamp()}
		mustNot(t, db.Gorm().Create(&future).Error)
		status, err := db.MigrationStatus(ctx)
		mustNot(t, err)
		last := status[len(status)-1]
		if last.Version != 9999 || !last.Unknown || last.AppliedAt == nil {
			t.Errorf("last status = %+v, want the unknown migration 9999", last)
		}
	})
}

// Two processes starting at once on the same database both migrate
// without error, and each migration runs once.
func TestMigrateConcurrently(t *testing.T) {
	forEachEmptyBackend(t, func(t *testing.T, cfg Config) {
		dbs := []*DB{openDB(t, cfg), openDB(t, cfg)}
		results := make([][]string, len(dbs))
		errors := make([]error, len(dbs))
		var wg sync.WaitGroup
		for i, db := range dbs {
			wg.Go(func() { results[i], errors[i] = db.Migrate(context.Background()) })
		}
		wg.Wait()
		runs := map[string]int{}
		for i := range dbs {
			mustNot(t, errors[i])
			for _, label := range results[i] {
				runs[label]++
			}
		}
		for _, m := range migrations() {
			if runs[m.label()] != 1 {
				t.Errorf("migration %s ran %d times, want once", m.label(), runs[m.label()])
			}
		}
	})
}

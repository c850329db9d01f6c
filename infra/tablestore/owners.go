package tablestore

import (
	"context"
	"fmt"
)

// ownerType is the MySQL type of the owner column: bytes, compared
// exactly. A VARCHAR compares by its collation, which on MySQL and
// MariaDB pads trailing spaces ("alice " equals "alice", even with
// utf8mb4_bin) and, case-insensitive, makes "Alice" equal "alice". 1020
// bytes hold any 255 characters. SQLite compares TEXT exactly (BINARY).
const ownerType = "VARBINARY(1020)"

// exactOwners converts the owner column of physical tables made before
// it was binary. It runs at every start and does nothing once done.
func (s *Store) exactOwners(ctx context.Context) error {
	names, err := s.strings(ctx, "SELECT TABLE_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? "+
		"AND TABLE_NAME LIKE 'tbl!_%' ESCAPE '!' AND COLUMN_NAME = 'owner_uid' AND DATA_TYPE <> 'varbinary'", s.schema)
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, err := s.db.ExecContext(ctx, "ALTER TABLE "+quote(name)+" MODIFY `owner_uid` "+ownerType+" NOT NULL DEFAULT ''"); err != nil {
			return fmt.Errorf("tablestore: make the owner column of %s binary: %w", name, err)
		}
		s.log.Info("tablestore: the owner column is now compared exactly", "table", name)
	}
	return nil
}

package sqlstore

import (
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// Migration 8: end-user ids, channel ids and keywords compare exactly on
// MySQL and MariaDB. Their columns had utf8mb4_bin (variable_values) or
// the tables' utf8mb4_unicode_ci (chats, workflow_runs); both are PAD
// SPACE, so "alice " equalled "alice" and, case-insensitive, "Alice" did
// too: another end user could read and overwrite alice's variables. They
// get a binary NO PAD collation: utf8mb4_nopad_bin on MariaDB,
// utf8mb4_0900_bin on MySQL 8. SQLite compares TEXT byte for byte
// already (BINARY), so there is nothing to do there.

// m0008Columns are the columns converted, with their definition before
// the collation.
var m0008Columns = []struct{ table, column, def string }{
	{"variable_values", "connector_id", "VARCHAR(64) NOT NULL"},
	{"variable_values", "user_id", "VARCHAR(255) NOT NULL"},
	{"variable_values", "keyword", "VARCHAR(64) NOT NULL"},
	{"chats", "user_id", "VARCHAR(255) NOT NULL"},
	{"workflow_runs", "user_id", "VARCHAR(255) NOT NULL"},
}

// up0008 converts the columns. MODIFY to the definition a column has
// already changes nothing, so it can run again after failing half-way.
func up0008(tx *gorm.DB) error {
	if tx.Dialector.Name() != DialectMySQL {
		return nil
	}
	collation, err := noPadBinary(tx)
	if err != nil {
		return err
	}
	for _, c := range m0008Columns {
		stmt := fmt.Sprintf("ALTER TABLE `%s` MODIFY `%s` %s COLLATE %s", c.table, c.column, c.def, collation)
		if err := tx.Exec(stmt).Error; err != nil {
			return fmt.Errorf("make %s.%s compare exactly: %w", c.table, c.column, err)
		}
	}
	return nil
}

// noPadBinary returns the server's binary NO PAD collation of utf8mb4:
// utf8mb4_nopad_bin on MariaDB (10.2 and later), utf8mb4_0900_bin on
// MySQL 8. It reads the version rather than information_schema.
func noPadBinary(tx *gorm.DB) (string, error) {
	var version string
	if err := tx.Raw("SELECT VERSION()").Scan(&version).Error; err != nil {
		return "", err
	}
	if strings.Contains(strings.ToLower(version), "mariadb") {
		return "utf8mb4_nopad_bin", nil
	}
	return "utf8mb4_0900_bin", nil
}

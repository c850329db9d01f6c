package sqlstore

import (
	"errors"
	"strings"

	sqlitedrv "github.com/glebarez/go-sqlite"
	gomysql "github.com/go-sql-driver/mysql"
	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Driver error codes the stores translate.
const (
	mysqlDuplicateKey      = 1062
	mysqlForeignKeyMissing = 1452 // a child row refers to a missing parent
	mysqlDeadlock          = 1213 // InnoDB chose this transaction as a deadlock's victim
	sqliteUnique           = 2067 // SQLITE_CONSTRAINT_UNIQUE
	sqlitePrimaryKey       = 1555 // SQLITE_CONSTRAINT_PRIMARYKEY
	sqliteForeignKey       = 787  // SQLITE_CONSTRAINT_FOREIGNKEY
)

// duplicateKey reports whether err is a unique-key violation and returns
// the part of the message naming the key: "'ux_users_email'" on MySQL,
// "users.email" on SQLite.
func duplicateKey(err error) (key string, ok bool) {
	var me *gomysql.MySQLError
	if errors.As(err, &me) && me.Number == mysqlDuplicateKey {
		_, key, _ = strings.Cut(me.Message, " for key ")
		return key, true
	}
	var se *sqlitedrv.Error
	if errors.As(err, &se) && (se.Code() == sqliteUnique || se.Code() == sqlitePrimaryKey) {
		_, key, _ = strings.Cut(se.Error(), "constraint failed: ")
		return key, true
	}
	return "", false
}

// isDuplicate reports whether err is a unique-key violation.
func isDuplicate(err error) bool {
	_, ok := duplicateKey(err)
	return ok
}

// isMissingParent reports whether err is a foreign-key violation: the row
// refers to a user or workspace that does not exist.
func isMissingParent(err error) bool {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == mysqlForeignKeyMissing
	}
	var se *sqlitedrv.Error
	return errors.As(err, &se) && se.Code() == sqliteForeignKey
}

// isDeadlock reports whether MySQL rolled the transaction back to break a
// deadlock: running it again is safe and is what MySQL asks for.
func isDeadlock(err error) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && me.Number == mysqlDeadlock
}

// isNoRow reports whether a Take found nothing.
func isNoRow(err error) bool { return errors.Is(err, gorm.ErrRecordNotFound) }

// isDomain reports whether err already speaks the domain vocabulary, so
// it is returned without a "sqlstore:" prefix.
func isDomain(err error) bool {
	return errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrConflict) || errors.Is(err, errs.ErrInvalid)
}

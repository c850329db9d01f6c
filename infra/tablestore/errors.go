package tablestore

import (
	"errors"
	"strings"

	sqlitedrv "github.com/glebarez/go-sqlite"
	gomysql "github.com/go-sql-driver/mysql"
)

// MySQL errors that are the statement's fault, not the server's.
var mysqlFaults = map[uint16]bool{
	1048: true, // column cannot be null
	1054: true, // unknown column
	1055: true, // not in GROUP BY
	1064: true, // syntax
	1111: true, // invalid use of group function
	1264: true, // out of range
	1292: true, // incorrect datetime or truncated value
	1365: true, // division by 0
	1366: true, // incorrect value for the type
	1406: true, // data too long
	1582: true, // wrong argument count
	1690: true, // value out of range
	3819: true, // check constraint (MySQL)
	4025: true, // check constraint (MariaDB)
	1140: true, // mixing aggregates and columns without GROUP BY
	1247: true, // reference not supported
	1305: true, // function does not exist
	1367: true, // illegal value
	1411: true, // incorrect value for a function
}

// statementFault reports whether err is the statement's fault and returns
// the database's message for it.
func statementFault(err error) (string, bool) {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Message, mysqlFaults[me.Number]
	}
	var se *sqlitedrv.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 1, 18, 19, 20, 25: // SQL error, too big, constraint, mismatch, range
			return sqliteMessage(se.Error()), true
		}
	}
	return "", false
}

// sqliteMessage drops the code SQLite's driver appends: "... (275)".
func sqliteMessage(msg string) string {
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		return msg[:i]
	}
	return msg
}

// isTimeout reports whether the server stopped the statement at its time
// limit (MySQL 3024, MariaDB 1969) or SQLite was interrupted.
func isTimeout(err error) bool {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 3024 || me.Number == 1969
	}
	var se *sqlitedrv.Error
	return errors.As(err, &se) && se.Code()&0xff == 9
}

// isBusy reports lock waits, deadlocks and SQLite's busy database.
func isBusy(err error) bool {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1205 || me.Number == 1213
	}
	var se *sqlitedrv.Error
	return errors.As(err, &se) && (se.Code()&0xff == 5 || se.Code()&0xff == 6)
}

package sqlstore

import (
	"fmt"
	"strings"
	"sync"

	"gorm.io/gorm"
)

// StatementCounter records the SQL statements a DB runs through its
// stores, so tests can check how many round trips a use case costs.
// BEGIN and COMMIT are not statements here: gorm runs them outside its
// callbacks; a test that cares counts the transactions its code opens.
type StatementCounter struct {
	mu   sync.Mutex
	sqls []string
}

// CountStatements starts recording every statement db runs. It hooks
// into gorm's callbacks, which gorm does not guard: call it before the DB
// is used from other goroutines, and only in tests.
func (db *DB) CountStatements() (*StatementCounter, error) {
	c := &StatementCounter{}
	name := fmt.Sprintf("pergola:count_statements:%p", c)
	record := func(tx *gorm.DB) {
		if tx.Statement != nil && tx.Statement.SQL.Len() > 0 {
			c.add(tx.Statement.SQL.String())
		}
	}
	cb := db.gorm.Callback()
	regs := []func() error{
		func() error { return cb.Create().After("*").Register(name, record) },
		func() error { return cb.Query().After("*").Register(name, record) },
		func() error { return cb.Update().After("*").Register(name, record) },
		func() error { return cb.Delete().After("*").Register(name, record) },
		func() error { return cb.Row().After("*").Register(name, record) },
		func() error { return cb.Raw().After("*").Register(name, record) },
	}
	for _, reg := range regs {
		if err := reg(); err != nil {
			return nil, fmt.Errorf("sqlstore: count statements: %w", err)
		}
	}
	return c, nil
}

func (c *StatementCounter) add(sql string) {
	c.mu.Lock()
	c.sqls = append(c.sqls, sql)
	c.mu.Unlock()
}

// Reset forgets the statements recorded so far.
func (c *StatementCounter) Reset() {
	c.mu.Lock()
	c.sqls = nil
	c.mu.Unlock()
}

// Statements returns the statements recorded since the last Reset, in
// the order they ran.
func (c *StatementCounter) Statements() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.sqls...)
}

// Writes returns the recorded statements that change data: INSERT,
// UPDATE, DELETE and REPLACE.
func (c *StatementCounter) Writes() []string {
	var out []string
	for _, s := range c.Statements() {
		verb, _, _ := strings.Cut(strings.TrimSpace(s), " ")
		switch strings.ToUpper(verb) {
		case "INSERT", "UPDATE", "DELETE", "REPLACE":
			out = append(out, s)
		}
	}
	return out
}

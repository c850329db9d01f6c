package main

import (
	"context"

	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// statementCounterKey carries, in the context serve runs with, a function
// that receives a counter of every SQL statement the server runs. Only
// tests set it, to count what a request costs; a server started without
// it pays nothing.
type statementCounterKey struct{}

// countStatements hands a counter of db's statements to the function in
// ctx, if any.
func countStatements(ctx context.Context, db *sqlstore.DB) error {
	fn, _ := ctx.Value(statementCounterKey{}).(func(*sqlstore.StatementCounter))
	if fn == nil {
		return nil
	}
	c, err := db.CountStatements()
	if err != nil {
		return err
	}
	fn(c)
	return nil
}

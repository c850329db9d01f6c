// Package table holds the use cases of tables: each bot's own SQL tables,
// the SQL tool per table, and table and row management.
package table

// Service runs the table use cases.
type Service struct{}

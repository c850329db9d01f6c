// Package sqlguard checks and rewrites the SQL a model writes for one
// table. It parses exactly one MySQL statement with the TiDB parser, allows
// only SELECT, INSERT, UPDATE and DELETE on the bound table, maps logical
// table and column names to physical ones, confines the statement to the
// end user's rows when asked (a bound parameter, also set on INSERT),
// refuses every function, clause and expression it does not know to be
// harmless, caps the rows a SELECT returns, and writes the statement back
// as SQL for MySQL or SQLite with every literal as a bound parameter.
//
// It is an allow-list: the statement is rebuilt from the parts that were
// checked, so nothing the model wrote reaches the database unchecked.
package sqlguard

import (
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values for the parser

	"github.com/pergola-ai/pergola/domain/table"
)

// Dialect is the database a statement is written for.
type Dialect int

// Dialects.
const (
	MySQL Dialect = iota
	SQLite
)

// Limits of one statement.
const (
	MaxSQLLen     = 32 << 10 // bytes of SQL text
	MaxNodes      = 4000     // expression nodes
	MaxInsertRows = 100      // rows of one INSERT
	DefaultRows   = 100      // rows a SELECT returns when Policy.MaxRows is 0
)

// Kind is the kind of statement.
type Kind int

// Statement kinds.
const (
	Select Kind = iota
	Insert
	Update
	Delete
)

// Column is a column the model may name.
type Column struct {
	Name     string // logical, as the model writes it
	Physical string
	Type     table.FieldType
	// Writable columns may be set by INSERT and UPDATE.
	Writable bool
	// Required columns must be given on INSERT and cannot be set to NULL.
	Required bool
}

// Policy is what a statement may do, and how its names map.
type Policy struct {
	Table    string // the logical table name
	Physical string // the physical table name
	// Columns are the columns the model may name, in the order SELECT *
	// returns them.
	Columns []Column
	// OwnerColumn is the physical column holding the end user who owns
	// a row. INSERT sets it to Owner; with Confine, every statement
	// reaches only the rows whose owner is Owner.
	OwnerColumn string
	Owner       string
	Confine     bool
	// CreatedColumn and UpdatedColumn are set to Now by INSERT, and
	// UpdatedColumn by UPDATE; empty to leave them alone.
	CreatedColumn string
	UpdatedColumn string
	Now           string
	ReadOnly      bool
	MaxRows       int // rows a SELECT returns; 0 means DefaultRows
	Dialect       Dialect
}

// Statement is a checked and rewritten statement, ready to run.
type Statement struct {
	Kind Kind
	SQL  string
	Args []any
	// Columns name what a SELECT returns, in order.
	Columns []OutColumn
	// MaxRows is how many rows a SELECT may return; the SQL fetches one
	// more when the model asked for more, to tell that rows were left out.
	MaxRows int
}

// OutColumn is one column of a SELECT's result.
type OutColumn struct {
	Name string
	// Type is the field's type when the column is a plain column, so
	// values can be shown as that type; empty for computed values.
	Type table.FieldType
}

// Guard checks and rewrites statements. It is safe for concurrent use.
type Guard struct {
	parsers sync.Pool
}

// New returns a Guard.
func New() *Guard {
	return &Guard{parsers: sync.Pool{New: func() any {
		p := parser.New()
		p.SetSQLMode(mysql.ModeNone) // plain MySQL: "..." is a string, || is OR, \ escapes
		return p
	}}}
}

// Rewrite checks sql against p and returns it rewritten. A statement that
// is refused, or that does not parse, fails with an error matching
// errs.ErrInvalid whose text tells the model what to change.
func (g *Guard) Rewrite(sql string, p *Policy) (*Statement, error) {
	if err := precheck(sql); err != nil {
		return nil, err
	}
	stmts, err := g.parse(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, refuse("write exactly one statement, without a second one after ';'")
	}
	return rewrite(stmts[0], p)
}

// parse parses sql. The parser panics on some literals (decimals of
// hundreds of digits); that is a refusal, and the parser is not reused.
func (g *Guard) parse(sql string) (stmts []ast.StmtNode, err error) {
	ps := g.parsers.Get().(*parser.Parser)
	defer func() {
		if r := recover(); r != nil {
			stmts, err = nil, refuse("the statement cannot be read; is a number out of range?")
			return
		}
		g.parsers.Put(ps)
	}()
	stmts, _, err = ps.Parse(sql, "", "")
	if err != nil {
		return nil, syntaxError(err)
	}
	return stmts, nil
}

// rewrite rewrites one parsed statement. A panic while rewriting (a shape
// of tree the rewriter did not foresee) is a refusal, not a crash.
func rewrite(n ast.StmtNode, p *Policy) (st *Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			st, err = nil, refuse("this statement is not supported; write a simpler SELECT, INSERT, UPDATE or DELETE")
		}
	}()
	return newRewriter(p).statement(n)
}

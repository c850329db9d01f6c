package knowledge

// Parsed is a document as a parser read it: its text sections in order,
// or, for a spreadsheet, CSV or JSON array of objects, a table. Exactly one
// of the two is filled.
type Parsed struct {
	Sections []Section
	Table    *TableData
}

// Section is a stretch of text under one heading. Headings is the heading
// path, outermost first, for formats that have headings (markdown, HTML,
// docx); it is empty for plain text and for text before the first heading.
type Section struct {
	Headings []string
	Text     string
}

// TableData is a table document: the header's column names and the rows
// below it, each a cell per column (a row may be shorter than the header).
type TableData struct {
	Columns []string
	Rows    [][]string
}

// Piece is one chunk of a document before it is embedded and indexed: the
// text to embed and search, the heading path of a markdown chunk, and for
// table knowledge the row's value of every column.
type Piece struct {
	Text     string
	Headings []string
	Row      map[string]string
}

// The limits of one document's chunks, so one upload cannot flood the
// index or hand an embedding model a chunk it cannot take.
const (
	MaxChunksPerDocument = 20000
	MaxChunkChars        = 20000
)

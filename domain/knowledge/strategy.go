package knowledge

// ChunkType is how a document is cut, numbered as Coze's chunk_type where
// Coze has one.
type ChunkType int

// The chunk types. Markdown cuts at headings; each chunk keeps its
// heading path, and a section longer than MaxTokens is cut further.
const (
	ChunkAuto     ChunkType = 0
	ChunkCustom   ChunkType = 1
	ChunkMarkdown ChunkType = 2
)

// ChunkStrategy is Coze's chunk_strategy plus overlap and markdown.
type ChunkStrategy struct {
	Type ChunkType
	// Separator cuts the text first (custom); "\n\n" when empty.
	Separator string
	// MaxTokens bounds a chunk (default 800, 100-5000); Overlap is the
	// tokens a chunk repeats from the end of the one before (default 10%
	// of MaxTokens under auto, 0 under custom unless given).
	MaxTokens         int
	Overlap           int
	RemoveExtraSpaces bool
	RemoveURLsEmails  bool
}

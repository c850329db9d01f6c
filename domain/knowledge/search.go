package knowledge

// Strategy is how a search ranks chunks, numbered as Coze's
// search_strategy.
type Strategy int

// The strategies.
const (
	StrategySemantic Strategy = 0
	StrategyHybrid   Strategy = 1
	StrategyFullText Strategy = 20
)

// Retrieval is how knowledge is recalled for a bot turn, a workflow node
// or a search request.
type Retrieval struct {
	Strategy Strategy
	TopK     int     // default 5, at most 50
	MinScore float64 // hits below it are dropped (0: none)
	// RerankModel names a model of kind rerank that reorders the hits
	// ("": no rerank).
	RerankModel string
	// Rewrite rewrites the query from the conversation before searching
	// (Coze's use_rewrite).
	Rewrite bool
}

// Recalled is a hit as a bot or workflow shows it: the chunk with the
// name of its document, for citations.
type Recalled struct {
	Hit
	DocumentName  string
	KnowledgeName string
}

// Ranked is a reranker's verdict on one of the texts it was given: its
// index in that list and its relevance, higher is better.
type Ranked struct {
	Index int
	Score float64
}

package knowledgestore

// The beam of a graph's searches is chosen when it is built: the
// smallest of annBeams that finds at least annTargetRecall of the exact
// top 10 for the base's last vectors, searched for as new queries before
// they are inserted (vectors the graph already holds would be found
// through their own links, far too easily). Embeddings of related texts
// (clustered) need a narrow beam; vectors spread evenly in many
// dimensions (the hard case for any graph) a wide one. The target is
// above the 0.95 promised for new queries (TestANNRecall), as a margin
// for the sample's noise.
var annBeams = []int{48, 64, 96, 128, 160, 240, 320, 480}

const (
	annTargetRecall = 0.97
	annSample       = 64
	annSampleK      = 10
)

// calibrate sets g.efQuery from the vectors from held on, which the graph
// does not hold yet.
func (g *annGraph) calibrate(held int) {
	g.efQuery = annBeams[len(annBeams)-1]
	if held < annSampleK*4 {
		return // too small a graph to tell: searches are nearly exact anyway
	}
	var queries []int
	for q := held; q < g.b.Len(); q++ {
		queries = append(queries, q)
	}
	exact := make([]map[int64]bool, len(queries))
	for i, q := range queries {
		exact[i] = g.exactBefore(q, held)
	}
	for _, ef := range annBeams {
		g.efQuery = ef
		found := 0
		for i, q := range queries {
			top := NewTopK(annSampleK)
			g.search(g.b, g.b.vec(q), nil, top)
			for _, s := range top.Best() {
				if exact[i][s.ID] {
					found++
				}
			}
		}
		if float64(found) >= annTargetRecall*float64(len(queries)*annSampleK) {
			return
		}
	}
}

// exactBefore is the exact top annSampleK of vector q's nearest among the
// first n vectors.
func (g *annGraph) exactBefore(q, n int) map[int64]bool {
	top := NewTopK(annSampleK)
	v := g.b.vec(q)
	for i := 0; i < n; i++ {
		top.Offer(g.b.IDs[i], float64(Dot(v, g.b.vec(i))))
	}
	out := map[int64]bool{}
	for _, s := range top.Best() {
		out[s.ID] = true
	}
	return out
}

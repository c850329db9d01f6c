package knowledgestore

import "testing"

func TestCacheForgetsTheLeastRecentlyUsedPastItsBudget(t *testing.T) {
	base := func(rev int64) *BaseVectors {
		b := NewBaseVectors(rev, 0)
		_ = b.Add(1, 1, make([]float32, 250)) // 1,016 bytes with its chunk and document ids
		return b
	}
	c := NewVectorCache(ANNConfig{}, 2100)
	a, b, d := BaseKey{1, 1}, BaseKey{1, 2}, BaseKey{1, 3}
	c.Put(a, base(1))
	c.Put(b, base(1))
	if c.Get(a, 1) == nil {
		t.Fatal("a is not cached")
	}
	c.Put(d, base(1)) // over budget: b is the least recently used
	if c.Get(b, 1) != nil || c.Get(a, 1) == nil || c.Get(d, 1) == nil {
		t.Fatalf("after eviction: a %v, b %v, d %v", c.Get(a, 1) != nil, c.Get(b, 1) != nil, c.Get(d, 1) != nil)
	}
	if c.Get(a, 2) != nil {
		t.Fatal("a stale revision was served")
	}
}

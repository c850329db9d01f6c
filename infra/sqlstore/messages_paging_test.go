package sqlstore

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// pagingFixture is a conversation of 53 visible messages, with hidden
// ones and another conversation's messages interleaved, which no page
// may show.
type pagingFixture struct {
	db      *DB
	conv    int64
	visible []int64 // ascending
}

func newPagingFixture(t *testing.T, db *DB) *pagingFixture {
	t.Helper()
	c := newConversation(t, db, wsA, botX)
	noise := newConversation(t, db, wsA, botX)
	var msgs []*conversation.Message
	for i := range 53 {
		msgs = append(msgs, question(c, "m"+strconv.Itoa(i)), answer(noise, "noise"))
		if i%10 == 3 {
			h := answer(c, "hidden")
			h.Hidden = true
			msgs = append(msgs, h)
		}
	}
	mustNot(t, db.Messages().CreateMessages(context.Background(), msgs...))
	f := &pagingFixture{db: db, conv: c.ID}
	for _, m := range msgs {
		if m.ConversationID == c.ID && !m.Hidden {
			f.visible = append(f.visible, m.ID)
		}
	}
	return f
}

// inOrder returns the visible ids in the list order.
func (f *pagingFixture) inOrder(order string) []int64 {
	ids := slices.Clone(f.visible)
	if order != conversation.OrderAsc {
		slices.Reverse(ids)
	}
	return ids
}

// walk follows the cursor from q until has_more is false, the way SDK
// iterators do: forward sends the page's last id as after_id, backward
// its first id as before_id. It fails when it takes more than maxPages.
func (f *pagingFixture) walk(t *testing.T, q conversation.MessageQuery, forward bool, maxPages int) (seen []int64, pages int) {
	t.Helper()
	for {
		page, more, err := f.db.Messages().ListMessages(context.Background(), f.conv, q)
		mustNot(t, err)
		if pages++; pages > maxPages {
			t.Fatalf("walk from %+v did not end within %d pages", q, maxPages)
		}
		ids := make([]int64, len(page))
		for i, m := range page {
			ids[i] = m.ID
		}
		if forward {
			seen = append(seen, ids...)
		} else {
			seen = append(ids, seen...)
		}
		if !more {
			return seen, pages
		}
		if len(ids) == 0 {
			t.Fatalf("empty page with has_more from %+v", q)
		}
		if forward {
			q.AfterID = ids[len(ids)-1]
		} else {
			q.BeforeID = ids[0]
		}
	}
}

func TestMessagePaging(t *testing.T) { forEachBackend(t, testMessagePaging) }

func testMessagePaging(t *testing.T, db *DB) {
	f := newPagingFixture(t, db)
	if len(f.visible) != 53 {
		t.Fatalf("fixture has %d visible messages", len(f.visible))
	}
	for _, order := range []string{"", conversation.OrderDesc, conversation.OrderAsc} {
		t.Run("forward by after_id, order "+order, func(t *testing.T) {
			seen, pages := f.walk(t, conversation.MessageQuery{Order: order, Limit: 10}, true, 10)
			if diff := cmp.Diff(f.inOrder(order), seen); diff != "" || pages != 6 {
				t.Errorf("%d pages, want 6; seen (-want +got):\n%s", pages, diff)
			}
		})
		t.Run("backward by before_id, order "+order, func(t *testing.T) {
			want := f.inOrder(order)
			from := want[45] // walk back from here: the 45 before it, nearest first
			seen, pages := f.walk(t, conversation.MessageQuery{Order: order, Limit: 10, BeforeID: from}, false, 10)
			if diff := cmp.Diff(want[:45], seen); diff != "" || pages != 5 {
				t.Errorf("%d pages, want 5; seen (-want +got):\n%s", pages, diff)
			}
			first, more, err := db.Messages().ListMessages(context.Background(), f.conv,
				conversation.MessageQuery{Order: order, Limit: 3, BeforeID: from})
			mustNot(t, err)
			if got := []int64{first[0].ID, first[1].ID, first[2].ID}; !slices.Equal(got, want[42:45]) || !more {
				t.Errorf("first page back from %d = %v (more %v), want %v and more", from, got, more, want[42:45])
			}
		})
	}
	t.Run("between after_id and before_id", func(t *testing.T) {
		want := f.inOrder(conversation.OrderAsc)
		seen, _ := f.walk(t, conversation.MessageQuery{Order: conversation.OrderAsc, Limit: 4, AfterID: want[10], BeforeID: want[20]}, true, 5)
		if diff := cmp.Diff(want[11:20], seen); diff != "" {
			t.Errorf("window (-want +got):\n%s", diff)
		}
	})
	t.Run("limit defaults to 20 and is capped at 50", func(t *testing.T) {
		for limit, want := range map[int]int{0: 20, -3: 20, 500: 50} {
			page, more, err := db.Messages().ListMessages(context.Background(), f.conv, conversation.MessageQuery{Limit: limit})
			mustNot(t, err)
			if len(page) != want || !more {
				t.Errorf("limit %d: %d messages (more %v), want %d and more", limit, len(page), more, want)
			}
		}
	})
	t.Run("always terminates from any cursor", func(t *testing.T) {
		testPagingTerminates(t, f)
	})
}

// testPagingTerminates walks from random cursors, existing ids or not, in
// both directions and orders: every walk ends, never repeats a message,
// and sees exactly the messages beyond its cursor.
func testPagingTerminates(t *testing.T, f *pagingFixture) {
	rng := rand.New(rand.NewPCG(1, 2))
	lo, hi := f.visible[0]-1000, f.visible[len(f.visible)-1]+1000
	for trial := range 60 {
		order := []string{conversation.OrderAsc, conversation.OrderDesc}[rng.IntN(2)]
		forward := rng.IntN(2) == 0
		var cursor int64
		switch rng.IntN(3) {
		case 0:
			cursor = f.visible[rng.IntN(len(f.visible))]
		case 1:
			cursor = lo + rng.Int64N(hi-lo)
		}
		if cursor == 0 {
			forward = true // without a cursor there is only the start to walk from
		}
		limit := 1 + rng.IntN(30)
		q := conversation.MessageQuery{Order: order, Limit: limit}
		if forward {
			q.AfterID = cursor
		} else if cursor != 0 {
			q.BeforeID = cursor
		}
		want := beyond(f.inOrder(order), order, cursor, forward)
		seen, _ := f.walk(t, q, forward, len(f.visible)/limit+2)
		if diff := cmp.Diff(want, seen, cmpEmpty); diff != "" {
			t.Fatalf("trial %d (%+v, forward %v): seen (-want +got):\n%s", trial, q, forward, diff)
		}
	}
}

// beyond returns the ids of list (in order) that lie after cursor when
// moving forward, or before it when moving backward; a zero cursor is the
// start of the list.
func beyond(list []int64, order string, cursor int64, forward bool) []int64 {
	if cursor == 0 {
		return list
	}
	asc := order == conversation.OrderAsc
	var out []int64
	for _, id := range list {
		after := (asc && id > cursor) || (!asc && id < cursor)
		before := (asc && id < cursor) || (!asc && id > cursor)
		if (forward && after) || (!forward && before) {
			out = append(out, id)
		}
	}
	return out
}

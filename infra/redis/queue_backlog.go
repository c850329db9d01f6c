package redis

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
)

// publishScript appends a message to a stream unless its backlog is at the
// bound, and first drops the entries every consumer group has
// acknowledged, all in one atomic step. An entry is still needed while it
// is pending in some group (not acknowledged) or some group has not read
// it yet; entries below the oldest needed one are removed with XTRIM
// MINID, never an entry a group still needs. A stream without groups
// keeps every entry: a group created later reads them.
//
// Below the bound the trim is approximate (whole radix-tree nodes, so
// about a hundred acknowledged entries may linger) and runs only when
// asked, every trimEvery publishes of a Queue; at the bound it always runs,
// exactly, so the bound counts only entries still needed. The script
// returns the new entry's ID, or the stream's length when it refused.
//
// KEYS[1] is the stream; ARGV are the bound, the payload field, the
// payload and "1" to trim below the bound.
const publishScript = `
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq), ms
end
local function after(id)
  local _, seq, ms = parse(id)
  return ms .. '-' .. string.format('%d', seq + 1)
end
local function less(a, b)
  local am, as = parse(a)
  local bm, bs = parse(b)
  if am ~= bm then return am < bm end
  return as < bs
end
local function oldestNeeded(stream)
  local low = false
  for _, g in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local info = {}
    for i = 1, #g, 2 do info[g[i]] = g[i + 1] end
    local need = after(info['last-delivered-id'])
    if info['pending'] > 0 then
      need = redis.call('XPENDING', stream, info['name'])[2]
    end
    if not low or less(need, low) then low = need end
  end
  return low
end
local stream, limit = KEYS[1], tonumber(ARGV[1])
local n = redis.call('XLEN', stream)
local full = n >= limit
if n > 0 and (full or ARGV[4] == '1') then
  local low = oldestNeeded(stream)
  if low and full then
    redis.call('XTRIM', stream, 'MINID', low)
    n = redis.call('XLEN', stream)
  elseif low then
    redis.call('XTRIM', stream, 'MINID', '~', low)
  end
end
if n >= limit then return n end
return redis.call('XADD', stream, '*', ARGV[2], ARGV[3])`

// trimEvery is how many publishes of a Queue pass between trims of
// acknowledged entries below the backlog bound; trimming on every publish
// would cost Redis several times the XADD.
const trimEvery = 64

// publish runs publishScript for topic.
func (q *Queue) publish(ctx context.Context, topic string, payload []byte) (string, error) {
	stream := q.keys.name("queue", topic)
	trim := "0"
	if q.publishes.Add(1)%trimEvery == 0 {
		trim = "1"
	}
	res, err := q.publishScript.Run(ctx, q.client, []string{stream}, q.maxBacklog, payloadField, payload, trim).Result()
	if err != nil {
		return "", fail("publish to "+topic, err)
	}
	switch v := res.(type) {
	case string:
		return v, nil
	case int64:
		return "", fmt.Errorf("publish: %w", &errs.QueueFullError{Topic: topic, Limit: q.maxBacklog})
	}
	return "", fail("publish to "+topic, fmt.Errorf("unexpected script answer %v", res))
}

package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Counters: Incr, and what it does with a counter it cannot raise.
//
// A counter that holds what INCR refuses (a value that is not an integer,
// one at MaxInt64, a key of another type: written by someone with access
// to Redis, or by another program sharing the prefix) would make every
// INCR fail for good: the Sitemap would count the Store as down and serve
// every copy without Last-Modified, with no end. Such a counter is
// replaced: it starts again at 1, which the Sitemap takes as a Store that
// lost its state (a new era, as after a flush), so its clocks and the
// fleet's agreement come back at once (TestIncrRepairs,
// TestFleetCorruptCounter). Only those refusals repair: a connection
// error, a timeout or any other refusal leaves the counter alone.

// repairScript raises the counter KEYS[1], or, if Redis refuses to for
// what it holds, puts a new counter in its place: one script, so that no
// other client's INCR comes between the check and the repair. Any other
// refusal (out of memory, a read-only replica) is returned as it is.
var repairScript = redis.NewScript(`
local ok, res = pcall(redis.call, 'INCR', KEYS[1])
if ok then return res end
local msg = type(res) == 'table' and res.err or tostring(res)
for _, what in ipairs({'not an integer', 'overflow', 'WRONGTYPE'}) do
	if string.find(msg, what, 1, true) then
		redis.call('DEL', KEYS[1])
		return redis.call('INCR', KEYS[1])
	end
end
return redis.error_reply(msg)
`)

// Incr adds one to the counter key with INCR and returns its new value.
// Counters have no TTL, so a volatile-* maxmemory-policy never evicts them.
// A counter Redis refuses to raise is replaced by a new one, at 1.
func (s *Store) Incr(ctx context.Context, key string) (int64, error) {
	call, end := s.bound(ctx)
	n, err := s.client.Incr(call, s.prefix+key).Result()
	end(err)
	if unraisable(err) {
		call, end := s.bound(ctx)
		n, err = repairScript.Run(call, s.client, []string{s.prefix + key}).Int64()
		end(err)
	}
	if err != nil {
		return 0, fmt.Errorf("redisstore: incr %q: %w", key, err)
	}
	return n, nil
}

// unraisable reports whether err is Redis's refusal to raise a counter
// for what it holds: not an integer, at MaxInt64, or not a string. Not a
// failure to reach Redis, nor a refusal for another reason.
func unraisable(err error) bool {
	var rerr redis.Error
	if err == nil || !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	return strings.Contains(msg, "not an integer") || strings.Contains(msg, "overflow") || strings.HasPrefix(msg, "WRONGTYPE")
}

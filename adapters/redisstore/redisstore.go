// Package redisstore is a [sitemap.Store] on Redis, through
// github.com/redis/go-redis/v9: the cache, locks, counters and
// invalidation messages that the replicas of a site share.
//
// # Usage
//
//	client := redis.NewClient(&redis.Options{
//		Addr:                  "127.0.0.1:6379",
//		ContextTimeoutEnabled: true, // so that Options.Timeout bounds each call
//	})
//	defer client.Close() // after the Sitemap is closed
//	st, err := redisstore.New(client, redisstore.Options{})
//	if err != nil {
//		log.Fatal(err) // a configuration mistake; New does not contact Redis
//	}
//	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", Store: st}, sections...)
//
// Any [redis.UniversalClient] will do: a single server, a Sentinel
// failover client or a Redis Cluster. The Store does not own the client
// and has no Close; the caller closes the client once nothing uses the
// Store.
//
// # Timeouts
//
// Every call is bounded by [Options].Timeout, a context deadline, or by
// what recent calls took if that is longer (a loaded machine answers
// late: latency.go), up to LockTTL/3. go-redis
// applies a context's deadline to its reads and writes only when the
// client is made with ContextTimeoutEnabled; without it, a Redis that
// stops answering (as opposed to one that is down, which fails at once)
// holds each call for the client's ReadTimeout, 3 seconds by default.
//
// # Keys
//
// Every key and channel is [Options].Prefix followed by the Sitemap's
// name for it. A file's keys (its copy, clock and lock) carry the file's
// own URL as a Redis Cluster hash tag, such as
// "sitemap:{https://example.com/sitemap-products-3.xml.gz}:copy", so that
// on a cluster a site's files spread over every shard, while the keys of
// one file share a slot; the site's own keys and channel carry its base
// URL, such as "sitemap:{https://example.com/}:gen". Get reads keys of
// several slots with one round trip per shard.
//
// Values are SET with a TTL ([Options].TTL); counters (Incr) and durable
// values (SetDurable: when the Store's state began, and each file's
// content clock, a few dozen bytes per file) have none, and never expire.
// Run Redis with a volatile-* maxmemory-policy, such as volatile-lru,
// which evicts only keys that have a TTL: copies, never counters or
// clocks, as [sitemap.Store] requires. An allkeys-* policy may evict a
// counter while values remain; noeviction, Redis's default, evicts nothing
// and makes Set fail once memory is full.
//
// # Locks
//
// Lock is SET NX of a random 128-bit token, expiring after LockTTL. While
// held, the lock is renewed every LockTTL/3 by a script that extends it
// only if it still holds this token, and unlock deletes it by the same
// rule, so a holder whose lock expired and was taken by another never
// extends or deletes the other's. A process that dies, or loses Redis,
// stops renewing, and its locks expire after LockTTL.
//
// # Messages
//
// Publish is PUBLISH. Each Subscribe holds a connection of its own until
// its context is done. It reports a broken connection at once, and does
// not reconnect: the Sitemap subscribes again. A connection that goes
// silent without being closed (a network partition) is found by TCP
// keep-alive, after about 45 seconds with go-redis's default dialer.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Prefix is put before every key and channel, so that several
	// deployments can share one Redis. Empty means "sitemap:".
	Prefix string
	// TTL is how long a value stored with Set is kept. Zero means 7 days.
	// It must not be below a millisecond, the unit of Redis's expiries.
	TTL time.Duration
	// LockTTL is how long a lock lasts once its holder stops renewing it;
	// a held lock is renewed every LockTTL/3. Zero means 10 seconds. It
	// must be at least 30 milliseconds, and at least 3 times Timeout, so
	// that a renewal can fail once and the next still ends before the
	// lock expires.
	LockTTL time.Duration
	// Timeout bounds each call to Redis, if the client is made with
	// ContextTimeoutEnabled (see the package doc), while Redis answers
	// within it; when recent calls took longer (a loaded machine), the
	// bound follows them, up to LockTTL/3 (latency.go). Zero means 250
	// milliseconds.
	Timeout time.Duration
}

// The defaults of Options, and the shortest LockTTL, under which renewals
// (every LockTTL/3) would come close to a busy loop.
const (
	defaultPrefix  = "sitemap:"
	defaultTTL     = 7 * 24 * time.Hour
	defaultLockTTL = 10 * time.Second
	defaultTimeout = 250 * time.Millisecond
	minLockTTL     = 30 * time.Millisecond
)

// A Store is a sitemap.Store on Redis. It is safe for concurrent use.
type Store struct {
	client  redis.UniversalClient
	prefix  string
	ttl     time.Duration
	lockTTL time.Duration
	timeout time.Duration
	lat     *latency // each call's timeout: Timeout, or what calls take now
}

// New returns a Store on client, which stays the caller's to close. It
// checks opts but does not contact Redis.
func New(client redis.UniversalClient, opts Options) (*Store, error) {
	switch {
	case client == nil:
		return nil, errors.New("redisstore: nil client")
	case opts.TTL < 0 || opts.LockTTL < 0 || opts.Timeout < 0:
		return nil, fmt.Errorf("redisstore: negative duration in %+v", opts)
	}
	s := &Store{client: client, prefix: opts.Prefix, ttl: opts.TTL, lockTTL: opts.LockTTL, timeout: opts.Timeout}
	if s.prefix == "" {
		s.prefix = defaultPrefix
	}
	if s.ttl == 0 {
		s.ttl = defaultTTL
	}
	if s.lockTTL == 0 {
		s.lockTTL = defaultLockTTL
	}
	if s.timeout == 0 {
		s.timeout = defaultTimeout
	}
	switch {
	case s.ttl < time.Millisecond:
		return nil, fmt.Errorf("redisstore: TTL %v is below a millisecond", opts.TTL)
	case s.lockTTL < minLockTTL:
		return nil, fmt.Errorf("redisstore: LockTTL %v is below the minimum of %v", s.lockTTL, minLockTTL)
	case s.lockTTL < 3*s.timeout:
		return nil, fmt.Errorf("redisstore: LockTTL %v is below 3 times Timeout (%v)", s.lockTTL, s.timeout)
	}
	s.lat = &latency{base: s.timeout, max: s.lockTTL / 3}
	return s, nil
}

// Get reads the values of keys, with nil for a key that has none: with
// one MGET on a single server; on a Redis Cluster (or a Ring), whose
// MGET needs every key in one slot, with a pipeline of GETs that the
// client sends to each shard at once, one round trip per shard. The
// Sitemap's keys of one document share a slot; a read of several
// documents (an index build reads every page's clock) spans the shards.
func (s *Store) Get(ctx context.Context, keys ...string) ([][]byte, error) {
	if len(keys) == 0 {
		return nil, nil // MGET needs a key
	}
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = s.prefix + k
	}
	ctx, end := s.bound(ctx)
	var vals []any
	var err error
	if _, single := s.client.(*redis.Client); single || len(keys) == 1 {
		vals, err = s.client.MGet(ctx, full...).Result()
	} else {
		vals, err = s.pipelinedGet(ctx, full)
	}
	end(err)
	if err != nil {
		return nil, fmt.Errorf("redisstore: get %d keys: %w", len(keys), err)
	}
	if len(vals) != len(keys) {
		return nil, fmt.Errorf("redisstore: get %d keys: %d values in the reply", len(keys), len(vals))
	}
	out := make([][]byte, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
		case string:
			out[i] = []byte(v) // a copy, and never nil
		default:
			return nil, fmt.Errorf("redisstore: get %q: a value of type %T", keys[i], v)
		}
	}
	return out, nil
}

// pipelinedGet reads keys with one GET each, in one pipeline, as MGET
// answers: nil for a missing key.
func (s *Store) pipelinedGet(ctx context.Context, keys []string) ([]any, error) {
	cmds := make([]*redis.StringCmd, len(keys))
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.Get(ctx, k)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	vals := make([]any, len(keys))
	for i, c := range cmds {
		switch v, err := c.Result(); {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return nil, err
		default:
			vals[i] = v
		}
	}
	return vals, nil
}

// Set stores value under key for TTL.
func (s *Store) Set(ctx context.Context, key string, value []byte) error {
	ctx, end := s.bound(ctx)
	err := s.client.Set(ctx, s.prefix+key, value, s.ttl).Err()
	end(err)
	if err != nil {
		return fmt.Errorf("redisstore: set %q: %w", key, err)
	}
	return nil
}

// SetDurable stores value under key with no TTL, as counters are kept:
// a volatile-* maxmemory-policy never evicts it. The Sitemap keeps so when
// the Store's state began and the content clock of each file (a few dozen
// bytes per file), which must outlive the copies (sitemap.Store).
func (s *Store) SetDurable(ctx context.Context, key string, value []byte) error {
	ctx, end := s.bound(ctx)
	err := s.client.Set(ctx, s.prefix+key, value, 0).Err()
	end(err)
	if err != nil {
		return fmt.Errorf("redisstore: set %q: %w", key, err)
	}
	return nil
}

// Time returns Redis's own time (TIME): the replicas of a fleet give their
// clocks in it when theirs is off it (see the sitemap module's
// docs/content-clock.md).
func (s *Store) Time(ctx context.Context) (time.Time, error) {
	ctx, end := s.bound(ctx)
	t, err := s.client.Time(ctx).Result()
	end(err)
	if err != nil {
		return time.Time{}, fmt.Errorf("redisstore: time: %w", err)
	}
	return t, nil
}

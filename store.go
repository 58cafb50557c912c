package sitemap

import (
	"context"
	"errors"
)

// A Store is a cache that the replicas of a site share, such as
// adapters/redisstore on Redis; set it as Config.Store. The in-process
// cache stays in front of it. With a Store, each document is built once
// for the whole fleet: the replica that needs it first takes its lock and
// builds it, and the others wait for its copy (or serve their stale one)
// instead of reading the Source. Every replica then answers conditional
// requests, and agrees on Last-Modified and the index <lastmod>, from the
// stored copy; and Invalidate on any replica reaches all of them.
//
// The Sitemap names every key and channel after its base URL (keys look
// like "{https://example.com/}:sitemap-products-3"), so several sites can
// share one Store; a Store may add its own prefix. Values are opaque to
// the Store, and the Sitemap checks every value it reads: one that does
// not decode is a miss.
//
// The Store is never a single point of failure: a call that fails (the
// Store should bound each call with a short timeout of its own) makes the
// Sitemap serve from its own cache and Source for a while, with no error
// a client can see, and try the Store again later.
//
// A Store may also tell its own time, with a method
//
//	Time(ctx context.Context) (time.Time, error)
//
// as adapters/redisstore does (Redis TIME): a replica whose time is more
// than two seconds off the Store's then gives its content clocks in the
// Store's time. The Sitemap also keeps a "born" value, when the Store's
// state began: a Store that loses its values (flushed, restarted empty)
// is noticed by it, and by a generation (Incr) far below one it gave.
//
// A Store may also keep some values as long as its counters, with a
// method
//
//	SetDurable(ctx context.Context, key string, value []byte) error
//
// as adapters/redisstore does (SET with no TTL, which a volatile-*
// maxmemory-policy never evicts). The Sitemap stores so what must last as
// long as the Store's state: born, and the content clock of every file it
// built (a few dozen bytes each). Without it they are stored with Set; a
// Store that expires or evicts values then loses a clock that a copy of
// a file not built since took with it, and a replica that starts after
// that knows no clock of that file but the floor (docs/content-clock.md).
//
// A Store's methods are called concurrently.
type Store interface {
	// Get returns the values of keys, in order, with nil for a key that
	// has none.
	Get(ctx context.Context, keys ...string) ([][]byte, error)
	// Set stores value under key, for as long as the Store keeps values.
	Set(ctx context.Context, key string, value []byte) error
	// Lock takes the lock named key, if no one holds it, and keeps it
	// until unlock is called, or until the holder stops renewing it (the
	// process died), after a short time of the Store's choosing. If another
	// holds the lock, Lock returns ErrLocked. unlock releases the lock
	// only if this call still holds it.
	Lock(ctx context.Context, key string) (unlock func(), err error)
	// Incr adds one to the counter key and returns its new value; a
	// missing counter is zero. Counters are never expired or evicted
	// before values are.
	Incr(ctx context.Context, key string) (int64, error)
	// Publish sends msg to the subscribers of channel.
	Publish(ctx context.Context, channel string, msg []byte) error
	// Subscribe calls f with each message published on channel from the
	// moment it returns nil until ctx is done; f is called on one
	// goroutine, in order. It returns an error if it cannot subscribe; a
	// subscription that breaks later closes the returned channel, and
	// the Sitemap subscribes again.
	Subscribe(ctx context.Context, channel string, f func(msg []byte)) (broken <-chan struct{}, err error)
}

// ErrLocked is the error of Store.Lock when another holds the lock.
var ErrLocked = errors.New("sitemap: store lock held by another")

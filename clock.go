package sitemap

import (
	"sync"
	"time"
)

// clocks keeps the content clock of every file: the time its bytes last
// changed, which is its Last-Modified and its <lastmod> in the index.
//
// The rule: a file's clock is the later of its newest URL lastmod and the
// time its content last changed. It never moves backwards, and it moves
// forward, past every clock served before, whenever the bytes change: a
// deletion, an unpublished row, a filter or a loader's data. So a client
// holding a copy from time T is told 304 for If-Modified-Since: T only
// when the bytes are still those it has. A file with no history in this
// process (first build after a start) takes its newest lastmod, so a
// deploy does not make every file look new, or its first build time when
// its URLs carry no lastmod.
//
// What the clock cannot see: bytes that changed while no process was
// running keep the newest lastmod as their clock, which may be earlier
// than a clock served before the restart.
//
// Clocks have the resolution of an HTTP date, one second. A record is
// kept per file ever built or listed (a few dozen bytes each), for the
// life of the Sitemap, so that an eviction from the cache does not reset
// a clock.
type clocks struct {
	mu sync.Mutex
	m  map[docKey]*fileClock
}

// fileClock is the clock of one file.
type fileClock struct {
	at      time.Time // the clock: Last-Modified of the newest bytes, or ahead of them
	served  time.Time // the clock of the bytes last built; zero before the first build
	hash    uint64    // xxhash of those bytes
	built   bool      // hash and served are known
	version string    // PageInfo.Version as the index last saw it
}

func newClocks() *clocks { return &clocks{m: make(map[docKey]*fileClock)} }

// second truncates t to the resolution of an HTTP date, in UTC.
func second(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// built records that k was built into bytes whose xxhash is hash, whose
// newest URL lastmod is newest (zero if none), at now, and returns the
// clock of those bytes and whether the build moved the clock (so an index
// that lists it is out of date).
func (c *clocks) built(k docKey, hash uint64, newest, now time.Time) (at time.Time, moved bool) {
	newest, now = second(newest), second(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[k]
	if r == nil {
		r = &fileClock{at: newest}
		if newest.IsZero() {
			r.at = now
		}
		c.m[k] = r
	}
	prev := r.at
	if r.built && r.hash != hash && !r.at.After(r.served) {
		// Other bytes than those last served, and nothing has moved the
		// clock ahead for them yet: they changed now.
		r.at = later(now, r.served.Add(time.Second))
	}
	r.at = later(r.at, newest)
	r.hash, r.served, r.built = hash, r.at, true
	return r.at, !r.at.Equal(prev)
}

// served returns the clock of the bytes of k built last in this process,
// or the zero time if there were none.
func (c *clocks) served(k docKey) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.m[k]; r != nil && r.built {
		return r.served
	}
	return time.Time{}
}

// listed returns the clock to write in the index for page k, which Pages
// reported as info at now. A page whose Version changed since the last
// index, and that is not cached (cached reports whether it is), has its
// clock moved forward at once: its next build serves the new bytes under
// it. A cached page keeps the clock of the bytes it serves until it is
// rebuilt; changed tells the caller to start that rebuild.
func (c *clocks) listed(k docKey, info PageInfo, now time.Time, cached bool) (at time.Time, changed bool) {
	lastMod, now := second(info.LastMod), second(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[k]
	if r == nil {
		r = &fileClock{at: lastMod, version: info.Version}
		if lastMod.IsZero() {
			r.at = now
		}
		c.m[k] = r
		return r.at, false
	}
	changed = info.Version != "" && r.version != "" && info.Version != r.version ||
		lastMod.After(r.at) // a newer URL than any in the bytes served
	r.version = info.Version
	if changed && !cached {
		c.advance(r, now)
	}
	if !cached {
		r.at = later(r.at, lastMod)
	}
	return r.at, changed
}

// invalidated moves the clock of k forward, as the application said its
// content changed (see advance).
func (c *clocks) invalidated(k docKey, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.m[k]; r != nil {
		c.advance(r, second(now))
	}
}

// advance moves r.at past every clock served so far: for a file built
// here, past the clock of its bytes, unless it is ahead already; for one
// only listed so far, past the clock the index showed for it.
func (c *clocks) advance(r *fileClock, now time.Time) {
	switch {
	case !r.built:
		r.at = later(now, r.at.Add(time.Second))
	case !r.at.After(r.served):
		r.at = later(now, r.served.Add(time.Second))
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// state returns the clock of k as it is now, to store with a copy of k.
func (c *clocks) state(k docKey) fileClock {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.m[k]; r != nil {
		return *r
	}
	return fileClock{}
}

// seed merges x, the clock of k as another replica (or an earlier
// process) stored it, into this one's: the clock takes the later of the
// two, and the bytes last built are those of the later build. So the
// clock never moves back, whichever replica builds next.
func (c *clocks) seed(k docKey, x fileClock) {
	if x.at.IsZero() {
		return // nothing known
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[k]
	if r == nil {
		r = &fileClock{}
		*r = x
		c.m[k] = r
		return
	}
	if x.built && (!r.built || x.served.After(r.served)) {
		r.served, r.hash, r.built = x.served, x.hash, true
		if x.version != "" {
			r.version = x.version
		}
	}
	if r.version == "" {
		r.version = x.version
	}
	r.at = later(r.at, x.at)
}

package sitemap

import (
	"sync"
	"sync/atomic"
	"time"
)

// clocks keeps the content clock of every file: the time its bytes last
// changed, which is its Last-Modified and its <lastmod> in the index.
//
// The promises, whatever is configured: a Last-Modified is never given to
// two different bytes of a file, never moves back, and moves only when
// the bytes change (or a URL lastmod in them moves it ahead). So a client
// that holds a copy from time T is told 304 for If-Modified-Since: T only
// when the bytes are still those it has.
//
// The rules:
//
//  1. Bytes other than those last served get the later of now, their
//     newest lastmod and a second past every clock given before. A clock
//     may run at most one second ahead of the server's time (two changes
//     within a second); a change that would need more is served without
//     Last-Modified (its strong ETag still validates it) until a later
//     build gives it a clock of its own. From a Source that keeps its
//     change time (PageInfo.Changed), they get the clock that time gives
//     (rule 3) if later, and never one ahead of the second the build
//     read them in: a change after that read, however soon, has a later
//     change time, so a restart gives its bytes a later clock. Bytes read
//     with a change time older than they show (the index an Invalidate's
//     rebuild reads) get a second past the clock before, not after the
//     one a restart gives them (TestRestartsWithChangeTimes), unless
//     rule 5 gives them that one.
//  2. The same bytes keep their clock; an Invalidate, a new Version, a
//     newer change time or a rebuild that finds the bytes unchanged moves
//     nothing.
//  3. A file with no history here takes the later of its newest lastmod
//     and the floor: a time after every clock any earlier process may have
//     served for it. What is kept where it lasts (the Store, the clock
//     file) sets the floor to when that record began, so a restart keeps
//     every clock; with nothing kept, the floor is this process's start,
//     and every file's first Last-Modified here is after it (a deploy
//     makes every file look new to If-Modified-Since, never stale). A
//     Source that keeps its own per-page change time needs no floor: the
//     page's clock is the second after that time, which bytes read in
//     that same second do not get (a change later in it would get it
//     too: TestRestartChangeInTheSecond), and which bytes read later get
//     in every process alike.
//  4. Lastmods ahead of now count as now (encode.go clamps those in the
//     bytes). A change time ahead of now (a Source that moves it a second
//     past the one before with every change, in a burst; or a database's
//     clock ahead of this one) gives a first build no clock until it is
//     past, and other bytes of a file with a clock here the later of now
//     and a second past that clock: before the clock the change time
//     gives, which every later change's is at least (a restart gives the
//     same bytes that later one). A stored clock from a replica more than
//     maxSkew ahead is refused.
//  5. Bytes that are exactly those of a settled change time (a
//     PageReporter looked at the page before and after its URLs were
//     read, and both looks showed that time and the same Version:
//     pagelook.go) get the clock it gives, the one a restart gives the
//     same bytes (rule 3), if it is a second past the clock before at
//     least (rules 1 and 4 give none after it) and at most exactAhead
//     ahead of now.
//     Settled, that time is at least a second before any later change's,
//     so no other bytes ever get its clock here or after a restart; and
//     the Date holds a clock ahead of it back until it reaches it (the
//     handler's serveEntry). So a page rebuilt on Invalidate keeps its
//     Last-Modified across a restart with no Store or clock file, with
//     one read of the page (TestToldPageExactClock).
//
// The index lists each page's clock; with nothing kept and no change seen
// here, a floor is a process's start, not a time the page changed, so the
// index lists the page's newest lastmod instead (or none).
//
// Clocks have the resolution of an HTTP date, one second. A record is
// kept per file ever built or listed (a few dozen bytes each), for the
// life of the Sitemap, so that an eviction from the cache does not reset
// a clock.
type clocks struct {
	mu      sync.Mutex
	m       map[docKey]*fileClock
	floor   time.Time    // no file with no history here gets an earlier clock
	durable bool         // records last (a Store or a clock file): a floor is a known time
	file    *clockFile   // the clock file, if any
	offset  atomic.Int64 // added to the server's time: the Store's time less it (fleet.skew)
}

// fileClock is the clock of one file.
type fileClock struct {
	at      time.Time // the clock: the latest time the file is known to have changed
	served  time.Time // the Last-Modified of the bytes last built (at or before at); zero if they have none yet
	hash    uint64    // xxhash of those bytes
	built   bool      // hash is known
	ungiven bool      // no bytes were given at as their Last-Modified yet (a floor, or the Source's time): other bytes may take it (rule 1)
	version string    // PageInfo.Version as the index last saw it

	// In this process only:
	fact    time.Time // the latest lastmod or change time the Source gave
	newest  time.Time // the latest of those in the bytes last built
	changed time.Time // PageInfo.Changed as last seen
	floored bool      // at is the floor, not a time the file is known to have changed
	told    bool      // an Invalidate or a change message came since the index last looked
}

// maxAhead is how far a clock may run ahead of the server's time.
const maxAhead = time.Second

// exactAhead is how far ahead of the server's time a clock rule 5 gives
// may be: two changes within a second, the second a second past the
// first (a PageReporter's settled change times).
const exactAhead = 2 * time.Second

// maxSkew is how far ahead of this replica's time a clock stored by
// another may be before it is refused: that replica's clock is wrong.
const maxSkew = 5 * time.Minute

// newClocks returns the clocks of a Sitemap started at start. Without
// file or a Store (durable), the floor is start: nothing earlier is known.
func newClocks(start time.Time, durable bool, file *clockFile) *clocks {
	c := &clocks{m: make(map[docKey]*fileClock), floor: floorAfter(start), durable: durable || file != nil, file: file}
	if file != nil {
		c.floor = file.floor
		for k, x := range file.load() {
			c.m[k] = &x
		}
	}
	return c
}

// floorAfter returns the floor after t, when a process started or a
// Store lost its state: past every clock given before t, each at most
// maxAhead ahead of the time it was given, or at the floor of its own
// process, which a clock may be although it is more than maxAhead ahead
// (in the first seconds). So the floor holds for a process started in a
// later second than the one before it.
func floorAfter(t time.Time) time.Time { return second(t).Add(maxAhead + time.Second) }

// second truncates t to the resolution of an HTTP date, in UTC.
func second(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// fact returns t to the second, or now if t is ahead of it.
func fact(t, now time.Time) time.Time {
	if t = second(t); t.After(now) {
		return now
	}
	return t
}

// first is the clock of a file with no history here whose newest lastmod
// is newest and whose Source change time is changed (zero if unknown).
func (c *clocks) first(newest, changed time.Time) *fileClock {
	r := &fileClock{at: sourceClock(newest, changed), fact: later(newest, changed), changed: changed, ungiven: true}
	if changed.IsZero() && c.floor.After(r.at) {
		r.at, r.floored = c.floor, true
	}
	return r
}

// sourceClock is the clock the Source's own times give bytes whose newest
// lastmod is newest and whose change time is changed (zero if unknown):
// with a change time, the second after it (rule 3), or the newest lastmod
// if later; without, the newest lastmod.
func sourceClock(newest, changed time.Time) time.Time {
	if changed.IsZero() {
		return newest
	}
	return later(newest, second(changed).Add(time.Second))
}

// built records that k was built into bytes whose xxhash is hash, whose
// newest URL lastmod is newest (zero if none) and whose Source change
// time is changed (zero if unknown), at now; exact says that the bytes
// are exactly those of that change time, which is settled (rule 5). It
// returns the bytes' Last-Modified (zero if they cannot have one yet,
// rule 1), the time an index or feed lists for them (zero if none is
// known), and whether the clock moved (so an index that lists it is out
// of date). A build that could not agree on its clock with the other
// replicas (agreed false) gives no Last-Modified, and leaves the clock to
// the next agreed build.
func (c *clocks) built(k docKey, hash uint64, newest, changed, now time.Time, agreed, exact bool) (lastMod, listed time.Time, moved bool) {
	now = second(now)
	newest, changed = fact(newest, now), second(changed)
	c.mu.Lock()
	r := c.m[k]
	if r == nil {
		r = c.first(newest, changed)
		c.m[k] = r
	}
	prev := r.at
	f := later(newest, fact(changed, now))
	r.fact, r.changed, r.newest = later(r.fact, f), later(r.changed, changed), f
	step := time.Second // rule 1: a second past at, unless no bytes had it yet (here or, agreed, on another replica: seed)
	if r.ungiven {
		step = 0
	}
	same := r.built && r.hash == hash && !r.served.IsZero() // the bytes last served, under their clock
	var lm time.Time
	limit := later(now.Add(maxAhead), c.floor)
	switch src := sourceClock(newest, changed); {
	case !r.built:
		lm = later(r.at, src) // rule 3
		if !changed.IsZero() {
			limit = now
		}
	case same:
		// Rule 2: the same bytes keep their clock (lastmods in them are
		// the same; a newer change time says nothing of them). One given
		// from an older or ahead change time stays before the one a
		// restart gives them: they are fetched once more then.
		lm = later(r.at, newest)
	case exact && !r.at.Add(step).After(src) && !src.After(now.Add(exactAhead)):
		// Rule 5: bytes that are exactly those of a settled change
		// time get the clock it gives, as a restart does; a clock
		// ahead of now is served once the Date reaches it.
		lm, limit = src, src
	case changed.After(now):
		// Rule 4: a change time ahead of now (a burst that moved it a
		// second per change) gives these bytes the later of now and a
		// second past the clock before: before the clock that time
		// gives, which every later change's is at least.
		lm, limit = later(now, r.at.Add(step)), now
	case !changed.IsZero():
		// Rule 1 with a change time: the clock it gives, past the
		// clock of the bytes before. Read before the change these bytes
		// show (the index an Invalidate's rebuild reads is older than
		// the change it tells), it is a second past the clock before:
		// not after the clock the change time gives, which a restart
		// gives these bytes (later: they are fetched again once).
		lm, limit = later(src, r.at.Add(step)), now
	default:
		lm = later(later(now, f), r.at.Add(step)) // rule 1
	}
	if !agreed || lm.IsZero() || lm.After(limit) {
		r.served = time.Time{} // rule 1: no Last-Modified until a later build
	} else {
		r.at, r.served, r.ungiven = lm, lm, false
	}
	if r.at.After(prev) && !r.at.Equal(c.floor) {
		r.floored = false
	}
	r.hash, r.built = hash, true
	x, listed := *r, c.lastmod(r)
	c.mu.Unlock()
	c.file.put(k, x)
	return x.served, listed, !x.at.Equal(prev)
}

// known returns the latest time k is known to have changed, by its
// bytes built here or by the Source's lastmods (not a floor), or the zero
// time if nothing is known: a URL whose lastmod is later changed after it.
func (c *clocks) known(k docKey) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[k]
	switch {
	case r == nil || !r.built:
		return time.Time{}
	case r.floored || r.served.IsZero():
		return r.newest
	}
	return r.served
}

// listed returns the <lastmod> to write in the index for page k, which
// Pages reported as info at now. changed reports that info shows a change
// the bytes of k may not have (another Version, a newer lastmod or change
// time), unless an Invalidate or a change message told of it already
// (whose rebuild reads it: one change, one read). A cached page keeps the
// clock of the bytes it serves until it is rebuilt (cached says whether
// it is); the caller then starts that rebuild.
func (c *clocks) listed(k docKey, info PageInfo, now time.Time, cached bool) (at time.Time, changed bool) {
	now = second(now)
	lastMod, ch := fact(info.LastMod, now), second(info.Changed)
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[k]
	if r == nil {
		r = c.first(lastMod, ch)
		r.version = info.Version
		c.m[k] = r
		return c.lastmod(r), false
	}
	changed = info.Version != "" && r.version != "" && info.Version != r.version ||
		lastMod.After(r.at) || ch.After(r.changed)
	if r.told {
		changed, r.told = false, false
	}
	r.version = info.Version
	r.fact, r.changed = later(r.fact, later(lastMod, ch)), later(r.changed, ch)
	if at := sourceClock(lastMod, ch); !cached && at.After(r.at) && !ch.After(now) { // rule 4: not a change time ahead
		r.at, r.floored, r.ungiven = at, false, true
	}
	return c.lastmod(r), changed
}

// lastmod is the <lastmod> the index lists for r: its clock, unless that
// is only this process's start (rule 3), when it is the Source's.
func (c *clocks) lastmod(r *fileClock) time.Time {
	if r.floored && !c.durable {
		return r.fact
	}
	return r.at
}

// told notes that the application (Invalidate) or another replica said
// that k changed: the next Version change the index sees for it is that
// change, which the rebuild the message started reads. The clock does not
// move: the rebuild moves it if the bytes changed (rule 2).
func (c *clocks) told(k docKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.m[k]; r != nil {
		r.told = true
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
// two, and the bytes last built are those of the later clock. So the
// clock never moves back, whichever replica builds next. A clock more
// than maxSkew ahead of now is refused (rule 4): seed reports false.
func (c *clocks) seed(k docKey, x fileClock, now time.Time) bool {
	if x.at.IsZero() {
		return true // nothing known
	}
	if x.at.After(now.Add(maxSkew)) || x.served.After(x.at) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[k]
	if r == nil {
		r = &fileClock{}
		c.m[k] = r
	}
	if x.built && (!r.built || x.at.After(r.at) || x.at.Equal(r.at) && !r.served.Equal(r.at) && x.served.Equal(x.at)) {
		r.served, r.hash, r.built = x.served, x.hash, true
	}
	if x.version != "" && (r.version == "" || x.at.After(r.at)) {
		r.version = x.version
	}
	switch {
	case x.at.After(r.at):
		r.at, r.floored, r.ungiven = x.at, false, x.ungiven
	case x.at.Equal(r.at):
		r.ungiven = r.ungiven && x.ungiven
	}
	return true
}

// raiseFloor makes the floor after t that of every file: what kept clocks
// before t is lost (the Store lost its state: era.go), and another
// replica may have given any file, after the clock it has here, a clock
// up to t. A file whose clock is earlier takes the floor, which every
// replica that knows of the loss computes alike, so that the same bytes
// get the same clock whichever replica builds them next.
func (c *clocks) raiseFloor(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.floor = later(c.floor, floorAfter(t))
	for _, r := range c.m {
		if r.at.Before(c.floor) {
			r.at, r.floored, r.ungiven = c.floor, true, true
		}
	}
}

// setFloor makes t the floor, earlier or not: the time since which what
// keeps clocks (the Store) holds every clock given.
func (c *clocks) setFloor(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.floor = floorAfter(t)
}

// withdraw notes that the bytes of k whose hash is hash are not served
// under the clock built gave them (the other replicas could not be told
// it): their next build gives them another.
func (c *clocks) withdraw(k docKey, hash uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.m[k]; r != nil && r.hash == hash {
		r.served = time.Time{}
	}
}

// now returns t in the clocks' time: the Store's, when this replica's
// differs from it by more than skewTolerance.
func (c *clocks) now(t time.Time) time.Time { return t.Add(time.Duration(c.offset.Load())) }

// setOffset sets the difference between the Store's time and this
// replica's, and returns the one before.
func (c *clocks) setOffset(d time.Duration) time.Duration {
	return time.Duration(c.offset.Swap(int64(d)))
}

// sync makes the clocks given so far last (the clock file), before the
// bytes that carry them are served.
func (c *clocks) sync() { c.file.sync() }

// listedAt is the <lastmod> the index lists for k as its clock stands
// now (zero if it has none), which the HTML views show for the file.
func (c *clocks) listedAt(k docKey) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.m[k]; r != nil {
		return c.lastmod(r)
	}
	return time.Time{}
}

package sitemap

import (
	"sync"
	"sync/atomic"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// slot is the cache's record of one cached copy: the copy, and what is
// coordinated about it while it is cached. The copy itself never changes.
type slot struct {
	e          *entry
	refreshing atomic.Bool  // a background refresh is running
	looked     atomic.Int64 // with a Store: when a look for a newer copy last found none, in Unix ns (fleet.go)
	synced     atomic.Int64 // with a Store: the tier's breaks when it was cached or last looked up (fleet.go)
	superseded atomic.Bool  // with a Store: another replica stored other bytes; serve it only while they are fetched
	catchUp    atomic.Int64 // not current: until when requests wait for its replacement, in Unix ns; 0 before the first (documents.catchUp)
}

// pageCache is an LRU of built documents bounded by entry count and by
// bytes: their gzip files and the forms made from them (entry.cost).
// Expiry is checked by the caller on read; nothing runs in the background.
type pageCache struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[docKey, *slot]
	bytes  int64
	budget int64
	count  func(k docKey, docs int, bytes int64) // counts the documents and bytes cached of k's section
	// copies is the bytes of the plain copies (plain.go) among bytes, at
	// most copyBudget: a copy saves a decompression per request, while
	// an evicted gzip file costs a read of the Source, so copies take a
	// share of the budget only (tests set it to 0: no copies).
	copies, copyBudget int64
}

// copyShare is the share of the byte budget that plain copies may take.
const copyShare = 4 // a quarter

// newPageCache makes a cache of at most entries documents and budget
// bytes, which tells count of the documents and bytes it adds or drops.
func newPageCache(budget int64, entries int, count func(k docKey, docs int, bytes int64)) *pageCache {
	c := &pageCache{budget: budget, count: count, copyBudget: budget / copyShare}
	if budget < 0 {
		return c // disabled
	}
	c.lru, _ = simplelru.NewLRU(entries, func(k docKey, sl *slot) {
		n := sl.e.cost()
		c.bytes -= n
		c.copies -= sl.e.copyCost()
		c.count(k, -1, -n)
	})
	return c
}

func (c *pageCache) get(k docKey) (*slot, bool) {
	if c.lru == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Get(k)
}

// swap replaces the copy of k by e if it is still old, in a new slot
// whose synced is old's, and returns the slot k has then (false if none).
func (c *pageCache) swap(k docKey, old, e *entry) (*slot, bool) {
	if c.lru == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sl, ok := c.lru.Peek(k)
	if ok && sl.e == old {
		c.put(k, e, sl.synced.Load())
		sl, ok = c.lru.Peek(k)
	}
	return sl, ok
}

// peek returns a slot without marking it used.
func (c *pageCache) peek(k docKey) (*slot, bool) {
	if c.lru == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Peek(k)
}

// add caches e under k, in a new slot whose synced is synced, evicting
// the least recently used entries until the byte budget holds. An entry
// larger than the whole budget is not cached.
func (c *pageCache) add(k docKey, e *entry, synced int64) {
	if c.lru == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(k, e, synced)
}

// put is add with c.mu held.
func (c *pageCache) put(k docKey, e *entry, synced int64) {
	if e.cost() > c.budget {
		return
	}
	sl := &slot{e: e}
	sl.synced.Store(synced)
	c.lru.Remove(k)
	c.lru.Add(k, sl)
	n := e.cost()
	c.bytes += n
	c.copies += e.copyCost()
	c.count(k, 1, n)
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

func (c *pageCache) remove(k docKey) {
	if c.lru == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(k)
}

// attach gives e, the entry of k, a form made from it (its text, its
// HTML view) with set, and counts the form's n bytes in the budget if e is
// cached under k (evicting as needed). Both happen under the cache's lock,
// so an eviction counts e with or without the form, never half.
func (c *pageCache) attach(k docKey, e *entry, n int64, set func()) {
	if c.lru == nil {
		set()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	set()
	if cur, ok := c.lru.Peek(k); ok && cur.e == e {
		c.grow(k, n)
	}
}

// grow counts n more bytes of the cached entry of k, evicting the least
// recently used entries until the budget holds; c.mu is held.
func (c *pageCache) grow(k docKey, n int64) {
	c.bytes += n
	c.count(k, 0, n)
	for c.bytes > c.budget && c.lru.Len() > 0 {
		c.lru.RemoveOldest()
	}
}

// mayCopy reports whether a plain copy of n bytes would be kept for e,
// the entry of k (attachCopy): e is cached under k, and the copy fits the
// copies' share of the budget and, with e, the whole budget.
func (c *pageCache) mayCopy(k docKey, e *entry, n int64) bool {
	if c.lru == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.copyFits(k, e, n)
}

// copyFits is mayCopy with c.mu held.
func (c *pageCache) copyFits(k docKey, e *entry, n int64) bool {
	cur, ok := c.lru.Peek(k)
	return ok && cur.e == e && c.copies+n <= c.copyBudget && e.cost()+n <= c.budget
}

// attachCopy gives e, the entry of k, a plain copy of n bytes (its own,
// or a form's of it) with set and counts it, if mayCopy still holds and
// set does; it reports whether it did. As with attach, an eviction counts
// e with or without its copy, never half.
func (c *pageCache) attachCopy(k docKey, e *entry, n int64, set func() bool) bool {
	if c.lru == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.copyFits(k, e, n) || !set() {
		return false
	}
	c.copies += n
	c.grow(k, n)
	return true
}

// swapForm changes a form made from e, the entry of k (an HTML part's
// copy with notes), if e is cached under k: set runs under the cache's
// lock, says whether it changed anything, and what: the bytes it added
// (negative if fewer) and, of them, plain copies' bytes. It reports
// whether the change was made.
func (c *pageCache) swapForm(k docKey, e *entry, set func() (ok bool, bytes, copies int64)) bool {
	if c.lru == nil {
		ok, _, _ := set()
		return ok
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.lru.Peek(k); !ok || cur.e != e {
		return false
	}
	ok, n, copies := set()
	if ok {
		c.copies += copies
		c.grow(k, n)
	}
	return ok
}

// keys returns the keys of the cached entries.
func (c *pageCache) keys() []docKey {
	if c.lru == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Keys()
}

// usage returns the cached entries and their compressed bytes.
func (c *pageCache) usage() (int, int64) {
	if c.lru == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

// Package lrucache is an LRU bounded by entry count and by bytes, given
// plain values that say what they cost: the root's cache of built
// documents. Each value is held for an entry (a copy of a document) and
// costs its bytes, some of them plain copies, which take a share of the
// budget only. Forms made from an entry later (attached under the lock)
// count in the budget when that entry is still the one held, so that an
// eviction counts it with or without them, never half. Expiry is checked
// by the caller on read; nothing runs in the background.
package lrucache

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Held is what the cache holds under a key: made for the entry E, and
// costing, when asked, Cost bytes, CopyCost of them plain copies.
type Held[E comparable] interface {
	Entry() E
	Cost() int64
	CopyCost() int64
}

// CopyShare is the share of the byte budget that plain copies may take.
const CopyShare = 4 // a quarter

// Cache is an LRU of values V, each held for an entry E, under keys K.
// Its zero budget holds nothing; a Cache made with a negative budget is
// disabled: it holds nothing and its forms are set at once.
type Cache[K comparable, E comparable, V Held[E]] struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[K, V]
	bytes  int64
	budget int64
	count  func(k K, docs int, bytes int64) // counts the documents and bytes cached of k's section
	// copies is the bytes of the plain copies among bytes, at most
	// copyBudget: a copy saves a decompression per request, while an
	// evicted entry costs a read of the Source, so copies take a share
	// of the budget only (tests set it to 0: no copies).
	copies, copyBudget int64
}

// New makes a cache of at most entries values and budget bytes, which
// tells count of the values and bytes it adds or drops.
func New[K comparable, E comparable, V Held[E]](budget int64, entries int, count func(k K, docs int, bytes int64)) *Cache[K, E, V] {
	c := &Cache[K, E, V]{budget: budget, count: count, copyBudget: budget / CopyShare}
	if budget < 0 {
		return c // disabled
	}
	c.lru, _ = simplelru.NewLRU(entries, func(k K, v V) {
		n := v.Cost()
		c.bytes -= n
		c.copies -= v.CopyCost()
		c.count(k, -1, -n)
	})
	return c
}

// Get returns the value of k, marking it used.
func (c *Cache[K, E, V]) Get(k K) (v V, ok bool) {
	if c.lru == nil {
		return v, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Get(k)
}

// Peek returns the value of k without marking it used.
func (c *Cache[K, E, V]) Peek(k K) (v V, ok bool) {
	if c.lru == nil {
		return v, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Peek(k)
}

// Swap replaces the value of k by next(it) if it is still held for old,
// and returns the value k has then (false if none).
func (c *Cache[K, E, V]) Swap(k K, old E, next func(cur V) V) (v V, ok bool) {
	if c.lru == nil {
		return v, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok = c.lru.Peek(k)
	if ok && v.Entry() == old {
		c.put(k, next(v))
		v, ok = c.lru.Peek(k)
	}
	return v, ok
}

// Add holds v under k, evicting the least recently used values until the
// byte budget holds. A value larger than the whole budget is not held.
func (c *Cache[K, E, V]) Add(k K, v V) {
	if c.lru == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(k, v)
}

// put is Add with c.mu held.
func (c *Cache[K, E, V]) put(k K, v V) {
	n := v.Cost()
	if n > c.budget {
		return
	}
	c.lru.Remove(k)
	c.lru.Add(k, v)
	c.bytes += n
	c.copies += v.CopyCost()
	c.count(k, 1, n)
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

// Remove drops the value of k.
func (c *Cache[K, E, V]) Remove(k K) {
	if c.lru == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(k)
}

// held reports whether the value of k is held for e; c.mu is held.
func (c *Cache[K, E, V]) held(k K, e E) (V, bool) {
	v, ok := c.lru.Peek(k)
	return v, ok && v.Entry() == e
}

// Attach gives e, the entry of k, a form made from it with set, and
// counts the form's n bytes in the budget if e is held under k (evicting
// as needed). Both happen under the cache's lock.
func (c *Cache[K, E, V]) Attach(k K, e E, n int64, set func()) {
	if c.lru == nil {
		set()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	set()
	if _, ok := c.held(k, e); ok {
		c.grow(k, n)
	}
}

// grow counts n more bytes of the value of k, evicting the least
// recently used values until the budget holds; c.mu is held.
func (c *Cache[K, E, V]) grow(k K, n int64) {
	c.bytes += n
	c.count(k, 0, n)
	for c.bytes > c.budget && c.lru.Len() > 0 {
		c.lru.RemoveOldest()
	}
}

// MayCopy reports whether a plain copy of n bytes would be kept for e,
// the entry of k (AttachCopy): e is held under k, and the copy fits the
// copies' share of the budget and, with e, the whole budget.
func (c *Cache[K, E, V]) MayCopy(k K, e E, n int64) bool {
	if c.lru == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.copyFits(k, e, n)
}

// copyFits is MayCopy with c.mu held.
func (c *Cache[K, E, V]) copyFits(k K, e E, n int64) bool {
	v, ok := c.held(k, e)
	return ok && c.copies+n <= c.copyBudget && v.Cost()+n <= c.budget
}

// AttachCopy gives e, the entry of k, a plain copy of n bytes with set
// and counts it, if MayCopy still holds and set does; it reports whether
// it did.
func (c *Cache[K, E, V]) AttachCopy(k K, e E, n int64, set func() bool) bool {
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

// SwapForm changes a form made from e, the entry of k, if e is held
// under k: set runs under the cache's lock, says whether it changed
// anything, and what: the bytes it added (negative if fewer) and, of
// them, plain copies' bytes. It reports whether the change was made.
func (c *Cache[K, E, V]) SwapForm(k K, e E, set func() (ok bool, bytes, copies int64)) bool {
	if c.lru == nil {
		ok, _, _ := set()
		return ok
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.held(k, e); !ok {
		return false
	}
	ok, n, copies := set()
	if ok {
		c.copies += copies
		c.grow(k, n)
	}
	return ok
}

// Keys returns the keys of the values held, oldest first.
func (c *Cache[K, E, V]) Keys() []K {
	if c.lru == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Keys()
}

// Usage returns the number of values held and their bytes.
func (c *Cache[K, E, V]) Usage() (int, int64) {
	if c.lru == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

// Budget returns the bytes held and their budget, and of them the plain
// copies' and theirs.
func (c *Cache[K, E, V]) Budget() (bytes, budget, copies, copyBudget int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes, c.budget, c.copies, c.copyBudget
}

// SetCopies turns plain copies on, with their share of the budget, or
// off.
func (c *Cache[K, E, V]) SetCopies(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.copyBudget = 0
	if on {
		c.copyBudget = c.budget / CopyShare
	}
}

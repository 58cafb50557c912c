package sitemap

import (
	"sync/atomic"

	"github.com/freshmap/sitemap/internal/lrucache"
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

// newSlot returns a slot of e whose synced is synced.
func newSlot(e *entry, synced int64) *slot {
	sl := &slot{e: e}
	sl.synced.Store(synced)
	return sl
}

// What the cache counts of a slot: its entry's gzip files and the forms
// made from them (entry.cost), of them the plain copies (plain.go).
func (sl *slot) Entry() *entry   { return sl.e }
func (sl *slot) Cost() int64     { return sl.e.cost() }
func (sl *slot) CopyCost() int64 { return sl.e.copyCost() }

// pageCache is the LRU of built documents, bounded by entry count and by
// bytes, plain copies within a share of them (internal/lrucache).
type pageCache = lrucache.Cache[docKey, *entry, *slot]

// newPageCache makes a cache of at most entries documents and budget
// bytes, which tells count of the documents and bytes it adds or drops.
func newPageCache(budget int64, entries int, count func(k docKey, docs int, bytes int64)) *pageCache {
	return lrucache.New[docKey, *entry, *slot](budget, entries, count)
}

package sitemap

import (
	"time"

	"github.com/freshmap/sitemap/internal/segment"
)

// What documents do when told that something changed: by the application
// (Invalidate: outdate, move the clocks of pages not cached, rebuild the
// cached ones in the background through rebuilds), or by another replica
// (the inbox: changed and stored, each at most once a second per document
// through hearing). Either way, what a change leaves behind is bounded by
// the documents this replica knows of (known), never by the number of
// calls or messages.

// invalidate says that the pages keys changed, with the index and the
// feeds feeds, then rebuilds, in the background, the pages that are
// cached and the index after them (rebuilds: at most one rebuild waiting
// per document, however many calls). A page neither cached nor listed by
// the cached index is ignored: no such page, as far as anyone knows.
func (d *documents) invalidate(keys []docKey, feeds []docKey) {
	defer d.marks().Saying()()
	d.marks().Unknown(keys...)
	d.invalidated(keys, feeds)
}

// invalidated is invalidate once the segment marks are told.
func (d *documents) invalidated(keys []docKey, feeds []docKey) {
	for _, k := range feeds {
		d.outdate(k)
		d.failures.forget(k)
	}
	var rebuild, listed []docKey
	seen := make(map[docKey]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, cached := d.cache.Peek(k); cached {
			rebuild = append(rebuild, k)
		} else if d.known(k) {
			listed = append(listed, k)
		}
	}
	changed := make([]docKey, 0, len(rebuild)+len(listed)+1)
	changed = append(append(append(changed, rebuild...), listed...), indexKey)
	d.outdate(changed...)
	for _, k := range changed {
		d.clocks.told(k) // the Version change its index sees next is this one (one change, one read)
	}
	for _, k := range changed {
		d.failures.forget(k)
	}
	d.pruneMarks()
	d.rebuilds.ask(rebuild)
}

// rebuild is one of Invalidate's rebuilds (rebuilds): of the copy of k
// cached now, unless there is none or it is current already, rebuilt by a
// request since k was said to have changed.
func (d *documents) rebuild(k docKey) {
	sl, ok := d.cache.Peek(k)
	if !ok || d.ledger.current(k, sl.e.stamp) {
		return
	}
	sl.catchUp.CompareAndSwap(0, time.Now().Add(d.site.timeout).UnixNano()) // requests wait for it from now (catchUp)
	d.group.Do(k.String(), func() (any, error) { return d.load(k, sl.e) })
}

// known reports whether this replica knows of the document k: the index,
// a feed, or a page that is cached or that the cached index lists. Only
// such a document is marked in the ledger when it is said to have changed.
func (d *documents) known(k docKey) bool {
	if k.kind != docPage {
		return true
	}
	if _, ok := d.cache.Peek(k); ok {
		return true
	}
	sl, ok := d.cache.Peek(indexKey)
	return ok && sl.e.lists(k)
}

// pruneMarks prunes the ledger's marks of the documents this replica no
// longer knows of, once there are many (ledger.prune).
func (d *documents) pruneMarks() {
	if d.ledger.overgrown() {
		d.ledger.prune(d.known, d.cache.Keys())
	}
}

// knownPages lists the pages of section sec that the cached index lists
// or the cache holds.
func (d *documents) knownPages(sec int) []int64 {
	var pages []int64
	if sl, ok := d.cache.Peek(indexKey); ok && sec < len(sl.e.pages) {
		for _, p := range sl.e.pages[sec] {
			pages = append(pages, p.Number)
		}
	}
	for _, k := range d.cache.Keys() {
		if k.kind == docPage && k.sec == sec {
			pages = append(pages, k.page)
		}
	}
	return pages
}

// changed is told by the tier that another replica said k changed at
// generation gen (inbox). A document this replica does not know of is
// left alone: nothing of it is kept. Else the change takes effect at once,
// or at the document's turn (hearing: at most once a second).
//
// The segment marks are told at once, turn or not: until the change takes
// effect, this replica's copy may lack it, and a change said here by
// InvalidateKeys in the meantime must not splice that copy into one that
// the Store then holds, under a later generation, for every replica
// (TestFleetSpliceHeardLate). It reads the page whole instead.
func (d *documents) changed(k docKey, gen int64) {
	if !d.known(k) {
		return
	}
	d.marks().Unknown(k)
	if d.hearing.hear(k, gen) {
		d.heard(k, gen)
	}
}

// heard makes the change of k at generation gen, heard from another
// replica, take effect: copies made before it are not current, and the
// next request looks in the tier first.
func (d *documents) heard(k docKey, gen int64) {
	if !d.known(k) {
		return // no longer known
	}
	sl, cached := d.cache.Peek(k)
	if cached {
		sl.looked.Store(0) // the tier has news of k: look there on the next request
	}
	d.ledger.heard(k, gen)
	d.marks().Unknown(k)
	d.group.Forget(k.String())
	d.failures.forget(k)
	d.clocks.told(k)
	d.pruneMarks()
}

// stored is told by the tier that another replica stored a copy of k
// whose XML hash is hash (inbox). That is no change of k: a cached copy
// with other bytes is superseded, not outdated, and is served only until
// the stored one is fetched. It takes effect at once, so that the copy
// the replica that said a change built reaches this one at once: a
// message costs at most one look in the Store on the next request (the
// copy found there is this one's, or a newer one), and a Source read
// only when the Store has lost the copy, which that build stores again.
// Nothing is kept for a document not cached.
func (d *documents) stored(k docKey, hash uint64) {
	if sl, cached := d.cache.Peek(k); cached {
		sl.looked.Store(0)
		if sl.e.hash != hash {
			sl.superseded.Store(true)
			d.group.Forget(k.String())
		}
	}
}

// invalidateKeys is InvalidateKeys's: the segments segs of the pages
// changed, and nothing else of them.
func (d *documents) invalidateKeys(segs map[docKey][]int, feeds []docKey) {
	marks := d.marks()
	defer marks.Saying()() // until the ledger knows (invalidated): no copy is adopted in between
	keys := make([]docKey, 0, len(segs))
	for k, ss := range segs {
		marks.Mark(k, ss)
		keys = append(keys, k)
	}
	d.invalidated(keys, feeds)
}

// marks are the builders' segment marks.
func (d *documents) marks() *segment.Marks[docKey] { return d.segMarks }

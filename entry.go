package sitemap

import (
	"encoding/binary"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/segment"
)

// entry is one built document, kept gzip-compressed. It never changes
// once made, but for text and html, the memos of its plain-text form
// (plain.go) and HTML view (html.go).
// What is coordinated about a cached copy is in its slot (cache.go).
type entry struct {
	gz      []byte    // the gzip file of the XML
	size    int64     // the XML's length, so a plain HEAD or 304 need not decompress
	lastMod time.Time // the content clock: Last-Modified (clock.go)
	built   time.Time // when it was built or last revalidated (Config.Now)
	info    PageInfo  // the page's PageInfo as last known before the build
	hash    uint64    // the xxhash of the XML, which the ETags name
	level   int       // the gzip level of gz, which the gzip ETags name

	// unclocked: the clock could not give these bytes a Last-Modified yet
	// (clock.go, rule 1), so the copy is fresh for a second only: the next
	// build, in a later second, gives them one.
	unclocked bool
	// alone: built with no clock agreed with the other replicas (tier.go),
	// so without Last-Modified; fresh only while they cannot agree.
	alone bool

	// ETag header values, one per representation, precomputed.
	etagFile, etagGzip, etagPlain []string
	// lastModHdr is the Last-Modified header value of lastMod, nil if it
	// has none (lastModHeader).
	lastModHdr []string
	// gzLen is the Content-Length header value of the gzip representations.
	gzLen []string

	pages [][]PageInfo   // index only: every section's pages, in order
	more  []*entry       // index only: its files after the first (sitemap_index-2.xml, …)
	sums  []urlSum       // a page's URLs, hashed, when changes are tracked (changes.go)
	segs  *segment.Table // a page's segments (build.go), also when taken from the Store (record.go)
	// segsStored: segs came with a stored copy, checked against its bytes
	// and hash but not yet decompressed (build.go, storedTable).
	segsStored bool

	stamp stamp     // the ledger when it was made: current until a change after it (ledger.go)
	gen   int64     // the store generation when its build started, as its record carries it (record.go)
	era   time.Time // with a Store: when the Store's state began, as its build saw it; its clock holds in that era only (fleet.go)

	// text is the page's plain-text form, made from it on first request
	// (plain.go); textMu makes that happen once.
	text   atomic.Pointer[entry]
	textMu sync.Mutex
	// html is its HTML view, made from it on first request (html.go);
	// htmlMu makes that happen once.
	html   atomic.Pointer[htmlView]
	htmlMu sync.Mutex
	// plain is the XML decompressed whole, kept once the document is
	// asked for as plain XML often enough (plain.go); plainMu makes it
	// once, and plainGets counts the full plain GETs served before.
	plain     atomic.Pointer[plainCopy]
	plainMu   sync.Mutex
	plainGets atomic.Int32
	// urls is a page's URL count, when built here (0 if unknown), which
	// the index's HTML view shows.
	urls int
	// tags is the Surrogate-Key and Cache-Tag header value of the file,
	// made on its first response with Config.OnPurge (purge.go).
	tags atomic.Pointer[[]string]
}

// newEntry makes a cache entry of gz, the gzip (at level) of XML whose
// xxhash is hash. The ETags derive from the XML, so every replica serving
// the same content sends the same ones; the gzip representations' also
// name the level, since their bytes depend on it.
func newEntry(gz []byte, hash uint64, level int, lastMod, built time.Time) *entry {
	// The three ETags are made in one string, and the four one-value
	// headers share one backing array (each of capacity one, so that an
	// append to one cannot write into the next): 3 allocations, not 10.
	var b [80]byte // room for the longest: 3 × 16 hex digits, 2 × "-2" and the rest
	t := strconv.AppendUint(append(b[:0], '"'), hash, 16)
	tag := t[1:]
	t = append(t, '"')
	plain := len(t)
	t = strconv.AppendInt(append(append(append(t, '"'), tag...), "-gzip"...), int64(level), 10)
	t = append(t, '"')
	gzip := len(t)
	t = strconv.AppendInt(append(append(append(t, '"'), tag...), "-gzfile"...), int64(level), 10)
	tags := string(append(t, '"'))
	h := make([]string, 4)
	h[0], h[1], h[2], h[3] = tags[:plain], tags[plain:gzip], tags[gzip:], strconv.Itoa(len(gz))
	return &entry{
		gz: gz, size: gzipSize(gz), lastMod: lastMod, built: built, hash: hash, level: level,
		etagPlain:  h[0:1:1],
		etagGzip:   h[1:2:2],
		etagFile:   h[2:3:3],
		gzLen:      h[3:4:4],
		lastModHdr: lastModHeader(lastMod),
	}
}

// gzipSize returns the length of the data in gz, a single gzip member as
// compress writes it, from the member's trailer: ISIZE, the length modulo
// 2^32, is the exact length of any document, since the encoder stops at
// MaxBytes. The gzip reader checks it against the stream when it reaches
// the end, so a plain response's Content-Length is the length that reading
// verifies.
func gzipSize(gz []byte) int64 {
	if len(gz) < 18 { // a gzip header and trailer take 18 bytes
		return 0
	}
	return int64(binary.LittleEndian.Uint32(gz[len(gz)-4:]))
}

// A document's length must fit gzip's 32-bit ISIZE for gzipSize to be exact.
const _ uint32 = MaxBytes

// renewed returns a copy of e that is fresh again as of now.
func (e *entry) renewed(now time.Time) *entry {
	r := &entry{
		gz: e.gz, size: e.size, lastMod: e.lastMod, built: now, info: e.info, hash: e.hash, level: e.level,
		stamp: e.stamp, gen: e.gen, era: e.era,
		etagFile: e.etagFile, etagGzip: e.etagGzip, etagPlain: e.etagPlain, gzLen: e.gzLen, lastModHdr: e.lastModHdr,
		pages: e.pages, more: e.more, sums: e.sums, urls: e.urls, segs: e.segs, segsStored: e.segsStored,
	}
	// The same bytes, the same text and HTML. Not the plain copy: it is
	// counted with the cached entry it was made for, and this one is
	// another (its cost would change while it is cached).
	r.text.Store(e.text.Load())
	r.html.Store(e.html.Load())
	r.tags.Store(e.tags.Load())
	return r
}

// withoutClock returns e without a Last-Modified, as built alone: the
// same bytes, to be validated by their ETag alone. Its plain-text form
// and HTML view, which carry the old Last-Modified, are made again if
// asked for.
func (e *entry) withoutClock() *entry {
	r := e.renewed(e.built)
	r.lastMod, r.lastModHdr, r.alone = time.Time{}, nil, true
	r.text.Store(nil)
	r.html.Store(nil)
	return r
}

// madeOnce returns the form of an entry that p holds (its text, its HTML
// view), made by build under mu if p holds none yet, and given to attach,
// which stores it in p: concurrent first requests make it once.
func madeOnce[T any](p *atomic.Pointer[T], mu *sync.Mutex, build func() (*T, error), attach func(*T)) (*T, error) {
	if v := p.Load(); v != nil {
		return v, nil
	}
	mu.Lock()
	defer mu.Unlock()
	if v := p.Load(); v != nil {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	attach(v)
	return v, nil
}

// expires returns when e stops being fresh, built as it was with a TTL of
// ttl: a second after it was built if it has no clock yet (rule 1 of
// clock.go), so that a build in a later second gives it one.
func (e *entry) expires(ttl time.Duration) time.Time {
	if e.unclocked {
		ttl = min(ttl, time.Second)
	}
	return e.built.Add(ttl)
}

// cost is the bytes e holds in the cache: its gzip file, its text form,
// HTML view and plain copy if made, and an index's other files.
func (e *entry) cost() int64 {
	n := int64(len(e.gz)) + int64(len(e.sums))*16 + e.copyCost()
	if t := e.text.Load(); t != nil {
		n += int64(len(t.gz))
	}
	if v := e.html.Load(); v != nil {
		n += htmlCost(v)
	}
	return n + gzBytes(e.more)
}

// htmlCost is the bytes an HTML view holds in the cache: its parts, and
// their copies with notes.
func htmlCost(v *htmlView) int64 {
	var n int64
	for _, p := range v.parts {
		n += int64(len(p.bare.gz))
		if c := p.noted.Load(); c != nil {
			n += int64(len(c.e.gz))
		}
	}
	return n
}

// copyCost is the bytes of e's plain copy and of its HTML parts' (with
// notes or without), 0 if it has none.
func (e *entry) copyCost() int64 {
	return e.ownCopy() + htmlCopies(e.html.Load())
}

// htmlCopies is the bytes of the plain copies of v's parts (nil: none).
func htmlCopies(v *htmlView) int64 {
	var n int64
	if v != nil {
		for _, p := range v.parts {
			n += p.bare.ownCopy()
			if c := p.noted.Load(); c != nil {
				n += c.e.ownCopy()
			}
		}
	}
	return n
}

// ownCopy is the bytes of e's own plain copy, 0 if it has none.
func (e *entry) ownCopy() int64 {
	if p := e.plain.Load(); p != nil {
		return int64(len(p.xml))
	}
	return 0
}

// holds reports whether f is e or one of its HTML parts, with notes or
// without, whose plain copy e.cost counts.
func (e *entry) holds(f *entry) bool {
	if f == e {
		return true
	}
	if v := e.html.Load(); v != nil {
		for _, p := range v.parts {
			if c := p.noted.Load(); p.bare == f || c != nil && c.e == f {
				return true
			}
		}
	}
	return false
}

// gzBytes is the bytes of the gzip files of es.
func gzBytes(es []*entry) int64 {
	var n int64
	for _, e := range es {
		n += int64(len(e.gz))
	}
	return n
}

// file returns index file number n (from 1) of an index entry, or nil.
func (e *entry) file(n int) *entry {
	switch {
	case n == 1:
		return e
	case n >= 2 && n-2 < len(e.more):
		return e.more[n-2]
	}
	return nil
}

// files is the number of index files of an index entry.
func (e *entry) files() int { return 1 + len(e.more) }

// lists reports whether an index entry lists page k.
func (e *entry) lists(k docKey) bool {
	_, ok := e.page(k.sec, k.page)
	return ok && k.kind == docPage
}

// page finds page n of section sec in an index entry.
func (e *entry) page(sec int, n int64) (PageInfo, bool) {
	if sec < 0 || sec >= len(e.pages) {
		return PageInfo{}, false
	}
	ps := e.pages[sec]
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].Number < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ps) && ps[lo].Number == n {
		return ps[lo], true
	}
	return PageInfo{}, false
}

package sitemap

import (
	"cmp"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The crawl log: for each sitemap file, the last fetch by each crawler
// family (crawlers.go), and the fetches of each section by family and
// status. Its memory is bounded whatever the traffic:
//   - a row per file, made on the file's first fetch that was served
//     (so a file that exists: a 404 makes none), at most Crawlers.Files
//     rows, after which new files are not logged (crawlLog.full);
//   - a fixed number of columns per row (numSlots: each named family
//     verified and as an unverified claim, and every other client);
//   - fixed counters per section by column and status class.
//
// Recording a fetch of a file that has its row allocates nothing, reads
// no clock (the serving path's reading is given) and takes no lock: the
// row is found in a small direct-mapped table of the rows last used
// (recent), or else in the row map; the fetch is counted in its cell (an
// atomic add), and its cell's last fetch is stored only when it changes,
// to the second (crawlCell.store).

// Crawlers configures the crawl log (Sitemap.CrawlLog): who fetched each
// sitemap file, as recognised by User-Agent and verified by address.
// The zero value logs by User-Agent alone, with every claim unverified.
type Crawlers struct {
	// Ranges returns the published address ranges of crawler families,
	// keyed by family: "Googlebot", "Bingbot", "YandexBot", "Applebot",
	// "DuckDuckBot", "Baiduspider" (ReadCrawlerRanges reads the files
	// Google and Bing publish). A request whose User-Agent claims a
	// family is verified when its address is in that family's ranges;
	// without ranges for the family, its claims stay unverified. It is
	// called once, in New, and its error is New's. The library never
	// fetches ranges over the network. Nil means none.
	Ranges func() (map[string][]netip.Prefix, error)
	// AddressHeader names the header a trusted reverse proxy sets to the
	// client's address, such as "X-Forwarded-For": the last address in
	// it is used (the one the proxy added). Set it only behind such a
	// proxy, which must overwrite or append to the header: otherwise any
	// client can claim any address. "" means the request's RemoteAddr.
	AddressHeader string
	// VerifiedOnly answers the sitemap files (the index, pages and feeds;
	// not robots.txt) only to verified crawlers: every other request gets
	// a 403. It needs Ranges. Off by default.
	VerifiedOnly bool
	// Files is the most files the crawl log keeps; the fetches of a file
	// past it are not logged. Zero means 1,000 (about 1.3 KiB each);
	// negative turns the crawl log off.
	Files int
}

const defaultCrawlLogFiles = 1000

var errVerifiedNoRanges = errors.New("Crawlers.VerifiedOnly needs Crawlers.Ranges")

// CrawlFetch is the last fetch of a file by one crawler family.
type CrawlFetch struct {
	// Crawler is the family the User-Agent claims: "Googlebot",
	// "Bingbot", "YandexBot", "Applebot", "DuckDuckBot", "Baiduspider",
	// or "other" for any other client.
	Crawler string
	// Verified tells that the address was in the family's ranges
	// (Crawlers.Ranges). A claim that was not is kept apart, with
	// Verified false: a spoofed Googlebot is never counted as Googlebot.
	Verified    bool
	Time        time.Time // when the request was answered, to the second (the clock read as it came; the Store's time, as Last-Modified)
	Status      int       // its status: 200, 206, 304, 403, 503, …
	Bytes       int64     // its body bytes
	Conditional bool      // the request had a non-empty If-None-Match or If-Modified-Since (a 304 has Status 304)
	Fetches     int64     // fetches of the file (of the section, in SectionStats) by this column since New
}

// CrawlCount is a number of fetches of a section's files by one crawler
// column with one status (SectionStats.CrawlCounts).
type CrawlCount struct {
	Crawler  string // as in CrawlFetch
	Verified bool   // as in CrawlFetch
	Status   int    // 200, 206, 304, 403, 412, 416, 500 or 503; 0 for any other
	Fetches  int64
}

// FileCrawls is the crawl log of one file.
type FileCrawls struct {
	File    string       // its name, such as "sitemap-products-3.xml.gz" or "sitemap_index.xml"; fetches of its .xml and .txt forms count here too
	Section string       // its section, as SectionStats names it ("_index" for the index files)
	Crawls  []CrawlFetch // one per column that fetched it, the latest first
}

// crawlCell is the fetches of a file by one column: their counts by
// status class, and the last one, packed (packFetch) with its bytes.
//
// A fetch is counted by an atomic add, and its last fetch is stored, under
// mu, only when it differs from the one stored, to the second: the same
// crawler fetching the file again within the second with the same answer
// stores nothing. A reader takes mu, so it sees a last fetch whole (its
// time, status, conditional flag and bytes are one fetch's), and every
// count only grows; but the counts and the last fetch are read apart, so
// a count may include a fetch whose last fetch is not stored yet.
type crawlCell struct {
	last   atomic.Uint64           // packFetch of the last fetch; 0 if never fetched
	bytes  atomic.Int64            // its body bytes
	counts [numStatus]atomic.Int64 // by statusClass: 200 first, so that a hit reads and adds in 24 bytes
	mu     sync.Mutex              // held to store last and bytes, and to read them together
}

// packFetch packs the time in seconds, status and conditional flag of a
// fetch into one word: a bit that is always set (so that 0 is none), the
// flag, 16 bits of status and the seconds above them, signed.
func packFetch(sec int64, cond bool, status int) uint64 {
	w := uint64(sec)<<18 | uint64(uint16(status))<<2 | 1
	if cond {
		w |= 2
	}
	return w
}

// unpackFetch is packFetch's inverse.
func unpackFetch(w uint64) (sec int64, cond bool, status int) {
	return int64(w) >> 18, w&2 != 0, int(uint16(w >> 2))
}

// store logs a fetch answered at the Unix second sec.
func (cell *crawlCell) store(sec int64, cond bool, status int, n int64) {
	cell.counts[statusClass(status)].Add(1)
	if w := packFetch(sec, cond, status); cell.last.Load() != w || cell.bytes.Load() != n {
		cell.storeLast(sec, w, n)
	} // else unchanged to the second
}

// storeLast stores w (packFetch of a fetch answered at sec) and n as the
// cell's last fetch, unless a later one is stored.
func (cell *crawlCell) storeLast(sec int64, w uint64, n int64) {
	cell.mu.Lock()
	if old := cell.last.Load(); old == 0 || int64(old)>>18 <= sec { // a fetch answered earlier, stored late, is not the last
		cell.last.Store(w)
		cell.bytes.Store(n)
	}
	cell.mu.Unlock()
}

// fetch returns the cell's last fetch and its count of fetches, with ok
// false if it has none.
func (cell *crawlCell) fetch() (f CrawlFetch, ok bool) {
	cell.mu.Lock()
	w, n := cell.last.Load(), cell.bytes.Load()
	cell.mu.Unlock()
	if w == 0 {
		return f, false
	}
	sec, cond, status := unpackFetch(w)
	f = CrawlFetch{Time: time.Unix(sec, 0), Status: status, Bytes: n, Conditional: cond}
	for i := range cell.counts {
		f.Fetches += cell.counts[i].Load()
	}
	return f, true
}

// crawlRow is a file's row.
type crawlRow struct {
	key   docKey // the file's key: indexFileKey for index files
	cells [numSlots]crawlCell
}

// statusClasses are the statuses counted apart; any other is "other".
var statusClasses = [...]int{200, 206, 304, 403, 412, 416, 500, 503}

const numStatus = len(statusClasses) + 1

func statusClass(code int) int {
	if code == http.StatusOK {
		return 0 // a hit's: statusClasses[0]
	}
	return otherStatusClass(code)
}

func otherStatusClass(code int) int {
	for i, c := range statusClasses {
		if c == code {
			return i
		}
	}
	return len(statusClasses)
}

// crawlCounts are a section's fetches by column and status class that
// no row holds (a 403 or 503 of a file not logged yet).
type crawlCounts [numSlots][numStatus]atomic.Int64

// crawlLog owns the crawl log of a Sitemap.
type crawlLog struct {
	ids      *crawlerIDs
	verified bool // Crawlers.VerifiedOnly
	max      int

	rows   atomic.Pointer[map[docKey]*crawlRow] // replaced whole, under mu
	recent [recentRows]atomic.Pointer[crawlRow] // rows by recentSlot; any may be nil or another file's
	mu     sync.Mutex
	full   atomic.Int64 // fetches of files past max, not logged

	counts    []crawlCounts // by section stats row (sectionRow)
	sections  int
	forbidden atomic.Int64 // 403s of VerifiedOnly
}

// recentRows is the size of crawlLog.recent: 8 KiB of pointers, about as
// many as the default number of files.
const (
	recentBits = 10
	recentRows = 1 << recentBits
)

// recentSlot is k's slot in crawlLog.recent: the top bits of a
// multiplicative (Fibonacci) hash of its fields.
func recentSlot(k docKey) uint64 {
	return (uint64(k.page)<<16 ^ uint64(k.sec)<<4 ^ uint64(k.kind)) * 0x9e3779b97f4a7c15 >> (64 - recentBits)
}

// newCrawlLog makes the crawl log of st; nil when Crawlers.Files is
// negative.
func newCrawlLog(c *Crawlers, st *site) (*crawlLog, error) {
	if c.Files < 0 {
		return nil, nil
	}
	ids, err := newCrawlerIDs(c)
	if err != nil {
		return nil, err
	}
	if c.VerifiedOnly && c.Ranges == nil {
		return nil, errVerifiedNoRanges
	}
	l := &crawlLog{ids: ids, verified: c.VerifiedOnly, max: cmp.Or(c.Files, defaultCrawlLogFiles),
		counts: make([]crawlCounts, 2*len(st.sections)+1), sections: len(st.sections)}
	l.rows.Store(&map[docKey]*crawlRow{})
	return l, nil
}

// sectionRow is the index in counts of the file k's section: the pages
// of each section, then the feeds, then the index.
func (l *crawlLog) sectionRow(k docKey) int {
	switch k.kind {
	case docPage:
		return k.sec
	case docFeed:
		return l.sections + k.sec
	}
	return 2 * l.sections
}

// who returns the column of r, whose User-Agent is ua, made at the Unix
// second sec: c, which the handler found before serving, with
// VerifiedOnly; otherwise found now, after serving, so that a request
// keeps nothing across its serving.
func (l *crawlLog) who(r *http.Request, ua string, c crawlerSlot, sec int64) crawlerSlot {
	if l.verified {
		return c
	}
	return l.ids.slotOf(r, ua, sec)
}

// forbids reports whether the request of column c gets a 403, and counts
// it.
func (l *crawlLog) forbids(c crawlerSlot) bool {
	if l == nil || !l.verified || c.verified() {
		return false
	}
	l.forbidden.Add(1)
	return true
}

// record logs a response to column c for file k, answered at the Unix
// second sec; cond tells that the request had validators
// (reqHeader.validators). served tells that the file exists (it was found and
// answered): only then is a row made.
func (l *crawlLog) record(k docKey, c crawlerSlot, sec int64, cond bool, status int, n int64, served bool) {
	if l == nil {
		return
	}
	row := l.recent[recentSlot(k)].Load()
	if row == nil || row.key != k {
		if row = l.rowOf(k, c, status, served); row == nil {
			return
		}
	}
	row.cells[c].store(sec, cond, status, n)
}

// rowOf returns the row of the file k that recent does not hold, made if
// served, and puts it in recent. Without a row, it counts the fetch (of
// column c, with status) in the section's counts, and returns nil.
func (l *crawlLog) rowOf(k docKey, c crawlerSlot, status int, served bool) *crawlRow {
	row := (*l.rows.Load())[k]
	if row == nil && served {
		if row = l.add(k); row == nil {
			l.full.Add(1)
		}
	}
	if row == nil {
		l.counts[l.sectionRow(k)][c][statusClass(status)].Add(1)
		return nil
	}
	l.recent[recentSlot(k)].Store(row)
	return row
}

// add returns k's row, made if the log has room; nil if it has none.
func (l *crawlLog) add(k docKey) *crawlRow {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := *l.rows.Load()
	if row := old[k]; row != nil {
		return row
	}
	if len(old) >= l.max {
		return nil
	}
	rows := make(map[docKey]*crawlRow, len(old)+1)
	for key, row := range old {
		rows[key] = row
	}
	row := &crawlRow{key: k}
	rows[k] = row
	l.rows.Store(&rows)
	return row
}

// snapshot returns the columns of row that fetched the file, the latest
// first.
func (row *crawlRow) snapshot() []CrawlFetch {
	var out []CrawlFetch
	for i := range row.cells {
		f, ok := row.cells[i].fetch()
		if !ok {
			continue
		}
		c := crawlerSlot(i)
		f.Crawler, f.Verified = crawlerNames[c.family()], c.verified()
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b CrawlFetch) int { return b.Time.Compare(a.Time) })
	return out
}

// file returns the crawl log of the file k (indexFileKey for an index
// file), the latest fetch first; nil if none was logged. This is the
// lookup the HTML view shows ("Googlebot fetched this file 2 h ago: 304").
func (l *crawlLog) file(k docKey) []CrawlFetch {
	if l == nil {
		return nil
	}
	if row := (*l.rows.Load())[k]; row != nil {
		return row.snapshot()
	}
	return nil
}

// files returns every row, in the order of SectionStats: the pages of
// each section by number, the feeds, the index files.
func (l *crawlLog) files() []*crawlRow {
	var rows []*crawlRow
	for _, row := range *l.rows.Load() {
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b *crawlRow) int {
		return cmp.Or(cmp.Compare(l.sectionRow(a.key), l.sectionRow(b.key)), cmp.Compare(a.key.page, b.key.page))
	})
	return rows
}

// section returns the fetches of section row i (sectionRow) by column:
// the latest fetch of any of its files, and the section's count of
// fetches; and the counts by status class.
func (l *crawlLog) section(i int) ([]CrawlFetch, []CrawlCount) {
	var last [numSlots]CrawlFetch
	var seen [numSlots]bool
	for _, row := range *l.rows.Load() {
		if l.sectionRow(row.key) != i {
			continue
		}
		for _, f := range row.snapshot() {
			if c := slotFor(f); !seen[c] || f.Time.After(last[c].Time) {
				last[c], seen[c] = f, true
			}
		}
	}
	all := l.counted(i)
	var out []CrawlFetch
	var counts []CrawlCount
	for c := range numSlots {
		var total int64
		for st, n := range all[c] {
			if n == 0 {
				continue
			}
			total += n
			code := 0 // any other status
			if st < len(statusClasses) {
				code = statusClasses[st]
			}
			cs := crawlerSlot(c)
			counts = append(counts, CrawlCount{Crawler: crawlerNames[cs.family()], Verified: cs.verified(), Status: code, Fetches: n})
		}
		if total > 0 && seen[c] {
			last[c].Fetches = total
			out = append(out, last[c])
		}
	}
	slices.SortStableFunc(out, func(a, b CrawlFetch) int { return b.Time.Compare(a.Time) })
	return out, counts
}

// counted returns the fetches of section row i by column and status
// class: those its files' rows hold and those no row does. Each count
// read only grows.
func (l *crawlLog) counted(i int) [numSlots][numStatus]int64 {
	var all [numSlots][numStatus]int64
	for c := range all {
		for st := range all[c] {
			all[c][st] = l.counts[i][c][st].Load()
		}
	}
	for _, row := range *l.rows.Load() {
		if l.sectionRow(row.key) != i {
			continue
		}
		for c := range row.cells {
			for st := range all[c] {
				all[c][st] += row.cells[c].counts[st].Load()
			}
		}
	}
	return all
}

// totals returns the fetches logged by verified crawlers and by
// unverified claimants, over every section.
func (l *crawlLog) totals() (verified, unverified int64) {
	for i := range l.counts {
		all := l.counted(i)
		for c := range slotOther {
			for _, n := range all[c] {
				if c.verified() {
					verified += n
				} else {
					unverified += n
				}
			}
		}
	}
	return verified, unverified
}

// slotFor is the column of a fetch.
func slotFor(f CrawlFetch) crawlerSlot {
	fam := crawler(slices.Index(crawlerNames[:], f.Crawler))
	if fam == crawlerOther {
		return slotOther
	}
	if f.Verified {
		return crawlerSlot(2 * fam)
	}
	return crawlerSlot(2*fam + 1)
}

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
//     verified and as an unverified claim, and every other client), a
//     column's cell made on its first fetch of the file;
//   - fixed counters per section by column and status class.
//
// Recording a fetch of a file that has its row allocates nothing, reads
// no clock (the serving path's reading is given) and takes no lock: the
// row is found in a small direct-mapped table of the rows last used
// (recent), or else in the row map; the fetch is counted in its cell (an
// atomic add; the cell is made on the column's first fetch of the file), and its cell's last fetch is stored only when it changes,
// to the second (crawlCell.store).

// Crawlers configures the crawl log (Sitemap.CrawlLog): who fetched each
// sitemap file, as recognised by User-Agent and verified by address.
// The zero value logs by User-Agent alone, with every claim unverified.
type Crawlers struct {
	// Ranges returns the published address ranges of crawler families,
	// keyed by family, as CrawlFetch.Crawler names them: "Googlebot",
	// "GPTBot", "ChatGPT-User", … (ReadCrawlerRanges reads the files the
	// vendors publish; CrawlerRangeFiles reads several). A request whose
	// User-Agent claims a family is verified when its address is in that
	// family's ranges, and spoofed when it is not; without ranges for the
	// family, its claims are unverifiable. It is called once, in New, and
	// its error is New's. The library never fetches ranges over the
	// network. Nil means none.
	Ranges func() (map[string][]netip.Prefix, error)
	// Resolver, if set, also verifies by reverse DNS the families whose
	// vendors document it (Googlebot, Bingbot, YandexBot, Applebot,
	// Baiduspider, Amazonbot): an address outside the family's ranges
	// whose name is in the vendor's domains and resolves back to it.
	// Lookups are made in the background, one at a time, once per
	// address; until an address is answered, its claims count as not
	// verified. net.DefaultResolver will do. Nil means none.
	Resolver CrawlerResolver
	// AddressHeader names the header a trusted reverse proxy sets to the
	// client's address, such as "X-Forwarded-For": the last address in
	// it is used (the one the proxy added). Set it only behind such a
	// proxy, which must overwrite or append to the header: otherwise any
	// client can claim any address. "" means the request's RemoteAddr.
	AddressHeader string
	// VerifiedOnly answers the sitemap files (the index, pages and feeds;
	// not robots.txt) only to verified crawlers: every other request gets
	// a 403, and what verified crawlers get is Cache-Control private. It
	// needs Ranges or Resolver. With Resolver, an address outside the
	// ranges gets 403s until its lookup has answered. Off by default.
	VerifiedOnly bool
	// Files is the most files the crawl log keeps; the fetches of a file
	// past it are not logged. Zero means 1,000 (each 352 bytes, and 96 for each column that fetched it);
	// negative turns the crawl log off.
	Files int
}

const defaultCrawlLogFiles = 1000

var errVerifiedNoRanges = errors.New("Crawlers.VerifiedOnly needs Crawlers.Ranges or Crawlers.Resolver")

// CrawlFetch is the last fetch of a file by one crawler family.
type CrawlFetch struct {
	// Crawler is the family the User-Agent claims, by its robots.txt
	// token, or "other" for any other client. The search engines:
	// "Googlebot", "Bingbot", "YandexBot", "Applebot", "DuckDuckBot",
	// "Baiduspider". AI training: "GPTBot", "ClaudeBot", "CCBot",
	// "Bytespider", "Meta-ExternalAgent", "Amazonbot". AI search:
	// "OAI-SearchBot", "Claude-SearchBot", "PerplexityBot". Fetches a
	// person asked an assistant for: "ChatGPT-User", "Claude-User",
	// "Perplexity-User", "Google-Agent", "Meta-ExternalFetcher".
	Crawler string
	// Purpose is what the family fetches for: "search", "training" or
	// "user-triggered"; "" for other.
	Purpose string
	// Verified tells that the address was in the family's ranges
	// (Crawlers.Ranges). A claim that was not is kept apart, with
	// Verified false: a spoofed Googlebot is never counted as Googlebot.
	Verified bool
	// Spoofed tells that the family's ranges were given and the address
	// was not in them. A claim neither verified nor spoofed could not be
	// checked: the family had no ranges (Anthropic, ByteDance and Meta
	// publish none).
	Spoofed     bool
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
	Purpose  string // as in CrawlFetch
	Verified bool   // as in CrawlFetch
	Spoofed  bool   // as in CrawlFetch
	Status   int    // 200, 206, 304, 403, 412, 416, 500 or 503; 0 for any other
	Fetches  int64
}

// FileCrawls is the crawl log of one file.
type FileCrawls struct {
	File    string       // its name, such as "sitemap-products-3.xml.gz" or "sitemap_index.xml"; fetches of its .xml and .txt forms count here too
	Section string       // its section, as SectionStats names it ("_index" for the index files)
	Crawls  []CrawlFetch // one per column that fetched it, the latest first
}

// crawlRow is a file's row: a cell per column that fetched the file.
type crawlRow struct {
	key   docKey // the file's key: indexFileKey for index files
	cells [numSlots]atomic.Pointer[crawlCell]
}

// cell returns the cell of column c, made if it has none: at most
// numSlots are made per row, whoever asks.
func (row *crawlRow) cell(c crawlerSlot) *crawlCell {
	if cell := row.cells[c].Load(); cell != nil {
		return cell
	}
	row.cells[c].CompareAndSwap(nil, new(crawlCell))
	return row.cells[c].Load()
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
	if c.VerifiedOnly && c.Ranges == nil && c.Resolver == nil {
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
	row.cell(c).store(sec, cond, status, n)
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
func (l *crawlLog) snapshot(row *crawlRow) []CrawlFetch {
	var out []CrawlFetch
	for i := range row.cells {
		cell := row.cells[i].Load()
		if cell == nil {
			continue
		}
		f, ok := cell.fetch()
		if !ok {
			continue
		}
		c := crawlerSlot(i)
		f.Crawler, f.Purpose, f.Verified, f.Spoofed = crawlerNames[c.family()], purposeNames[c.purpose()], c.verified(), l.spoofed(c)
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
		return l.snapshot(row)
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
		for _, f := range l.snapshot(row) {
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
			counts = append(counts, CrawlCount{Crawler: crawlerNames[cs.family()], Purpose: purposeNames[cs.purpose()],
				Verified: cs.verified(), Spoofed: l.spoofed(cs), Status: code, Fetches: n})
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
			if cell := row.cells[c].Load(); cell != nil {
				for st := range all[c] {
					all[c][st] += cell.counts[st].Load()
				}
			}
		}
	}
	return all
}

// crawlTotals are the fetches logged over every section: by verified
// crawlers, by unverified claims and the spoofed among them, and the
// claims that are not spoofed by purpose.
type crawlTotals struct {
	verified, unverified, spoofed int64
	byPurpose                     [numPurposes]int64
}

// totals returns the fetches logged over every section.
func (l *crawlLog) totals() crawlTotals {
	var t crawlTotals
	for i := range l.counts {
		all := l.counted(i)
		for c := range slotOther {
			var n int64
			for _, k := range all[c] {
				n += k
			}
			switch {
			case c.verified():
				t.verified += n
			case l.spoofed(c):
				t.unverified += n
				t.spoofed += n
				continue
			default:
				t.unverified += n
			}
			t.byPurpose[c.purpose()] += n
		}
	}
	return t
}

// spoofed reports whether a fetch of column c is a spoofed claim: not
// verified, though the family's ranges were given.
func (l *crawlLog) spoofed(c crawlerSlot) bool {
	return c < slotOther && !c.verified() && l.ids.verifiable(c.family())
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

// Package crawllog keeps the crawl log of a sitemap server: for each
// file served, the last fetch by each crawler family (as its User-Agent
// claims it, verified by the family's published address ranges or by
// reverse DNS), and the fetches of each group of files by family and
// status. It is given plain data: files by a group and a number, the
// request, the clock's reading as a Unix second. It knows nothing of how
// the files are built or named.
//
// Its memory is bounded whatever the traffic:
//   - a row per file, made on the file's first fetch that was served
//     (so a file that exists: a 404 makes none), at most Options.Files
//     rows, after which new files are not logged (Log.full);
//   - a fixed number of columns per row (numSlots: each named family
//     verified and as an unverified claim, and every other client), a
//     column's cell made on its first fetch of the file;
//   - fixed counters per group by column and status class.
//
// Recording a fetch of a file that has its row allocates nothing, reads
// no clock (the serving path's reading is given) and takes no lock: the
// row is found in a small direct-mapped table of the rows last used
// (recent), or else in the row map; the fetch is counted in its cell (an
// atomic add; the cell is made on the column's first fetch of the file),
// and its cell's last fetch is stored only when it changes, to the
// second (crawlCell.store).
package crawllog

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

// Options configures a Log.
type Options struct {
	// Ranges are the published address ranges of crawler families, keyed
	// by family as Fetch.Crawler names them ("Googlebot", "GPTBot", …).
	// A family not named has none: its claims are unverifiable.
	Ranges map[string][]netip.Prefix
	// Resolver, if set, also verifies by reverse DNS the families whose
	// vendors document it (dns.go).
	Resolver Resolver
	// AddressHeader names the header a trusted reverse proxy sets to the
	// client's address (its last element is read); "" means RemoteAddr.
	AddressHeader string
	// VerifiedOnly makes Forbids answer true for every column but a
	// verified one. It needs Ranges or Resolver.
	VerifiedOnly bool
	// Files is the most files logged; zero means DefaultFiles.
	Files int
	// Groups is the number of groups the files are counted in (File.Group
	// is below it).
	Groups int
}

// DefaultFiles is the number of files logged when Options.Files is zero.
const DefaultFiles = 1000

// ErrVerifiedNoRanges is New's error for VerifiedOnly without Ranges or
// Resolver: nothing could verify a crawler, and every request would get
// a 403.
var ErrVerifiedNoRanges = errors.New("verified-only needs ranges or a resolver")

// File is a file of the log: its group (the unit of Log.Group's
// counts, such as a section's pages) and its number in the group.
type File struct {
	Group int
	N     int64
}

// Fetch is the last fetch of a file by one column: a crawler family,
// verified or not, or every other client.
type Fetch struct {
	Crawler     string    // the family's robots.txt token, or "other"
	Purpose     string    // Purpose.String of the family; "" for other
	Verified    bool      // the address was in the family's ranges, or confirmed by reverse DNS
	Spoofed     bool      // the family could be verified and was not
	Time        time.Time // when it was answered, to the second
	Status      int       // its status
	Bytes       int64     // its body bytes
	Conditional bool      // the request had validators
	Fetches     int64     // the fetches by this column (of the file, or of the group in Log.Group)
}

// Count is a number of fetches of a group's files by one column with
// one status (Log.Group).
type Count struct {
	Crawler  string // as in Fetch
	Purpose  string // as in Fetch
	Verified bool   // as in Fetch
	Spoofed  bool   // as in Fetch
	Status   int    // a status counted apart (statusClasses); 0 for any other
	Fetches  int64
}

// crawlRow is a file's row: a cell per column that fetched the file.
type crawlRow struct {
	key   File
	cells [numSlots]atomic.Pointer[crawlCell]
}

// cell returns the cell of column c, made if it has none: at most
// numSlots are made per row, whoever asks.
func (row *crawlRow) cell(c Slot) *crawlCell {
	if cell := row.cells[c].Load(); cell != nil {
		return cell
	}
	row.cells[c].CompareAndSwap(nil, new(crawlCell))
	return row.cells[c].Load()
}

// crawlCounts are a group's fetches by column and status class that
// no row holds (a 403 or 503 of a file not logged yet).
type crawlCounts [numSlots][numStatus]atomic.Int64

// Log is a crawl log. Its methods are safe for concurrent use; those of
// a nil *Log do nothing.
type Log struct {
	ids      *crawlerIDs
	verified bool // Options.VerifiedOnly
	max      int

	rows   atomic.Pointer[map[File]*crawlRow]   // replaced whole, under mu
	recent [recentRows]atomic.Pointer[crawlRow] // rows by recentSlot; any may be nil or another file's
	mu     sync.Mutex
	full   atomic.Int64 // fetches of files past max, not logged

	counts    []crawlCounts // by File.Group
	forbidden atomic.Int64  // 403s of VerifiedOnly
}

// recentRows is the size of Log.recent: 8 KiB of pointers, about as
// many as the default number of files.
const (
	recentBits = 10
	recentRows = 1 << recentBits
)

// recentSlot is k's slot in Log.recent: the top bits of a
// multiplicative (Fibonacci) hash of its fields.
func recentSlot(k File) uint64 {
	return (uint64(k.N)<<16 ^ uint64(k.Group)) * 0x9e3779b97f4a7c15 >> (64 - recentBits)
}

// New makes a crawl log. A family in Ranges that is not one of the
// families (families.go) is an error, as is VerifiedOnly without Ranges
// or Resolver.
func New(o Options) (*Log, error) {
	if o.VerifiedOnly && o.Ranges == nil && o.Resolver == nil {
		return nil, ErrVerifiedNoRanges
	}
	ids, err := newCrawlerIDs(&o)
	if err != nil {
		return nil, err
	}
	l := &Log{ids: ids, verified: o.VerifiedOnly, max: cmp.Or(o.Files, DefaultFiles), counts: make([]crawlCounts, o.Groups)}
	l.rows.Store(&map[File]*crawlRow{})
	return l, nil
}

// Close stops the reverse DNS lookups, if any, and waits for them.
func (l *Log) Close() {
	if l != nil {
		l.ids.dns.close()
	}
}

// VerifiedOnly reports whether the log was made with VerifiedOnly: the
// column of a request must then be known before it is served (Forbids).
func (l *Log) VerifiedOnly() bool { return l != nil && l.verified }

// Who returns the column of r, whose User-Agent is ua (its first, at
// most its first 512 bytes are read), asked at the Unix second sec.
func (l *Log) Who(r *http.Request, ua string, sec int64) Slot { return l.ids.slotOf(r, ua, sec) }

// WhoServed returns the column of r once it is served: c, which the
// caller found with Who before serving, under VerifiedOnly (Forbids
// needed it); otherwise Who's answer now, so that a request keeps
// nothing of it across its serving.
func (l *Log) WhoServed(r *http.Request, ua string, c Slot, sec int64) Slot {
	if l.verified {
		return c
	}
	return l.Who(r, ua, sec)
}

// Forbids reports whether the request of column c gets a 403
// (VerifiedOnly), and counts it.
func (l *Log) Forbids(c Slot) bool {
	if l == nil || !l.verified || c.verified() {
		return false
	}
	l.forbidden.Add(1)
	return true
}

// Record logs a response to column c for file k, answered at the Unix
// second sec; cond tells that the request had validators (If-None-Match
// or If-Modified-Since). served tells that the file exists (it was found
// and answered): only then is a row made.
func (l *Log) Record(k File, c Slot, sec int64, cond bool, status int, n int64, served bool) {
	if l == nil {
		return
	}
	row := l.recent[recentSlot(k)].Load()
	if row == nil || row.key != k {
		if row = l.rowOf(k, c, status, served); row == nil {
			return
		}
	}
	cell := row.cells[c].Load() // row.cell's common case, without its call
	if cell == nil {
		cell = row.cell(c)
	}
	cell.store(sec, cond, status, n)
}

// rowOf returns the row of the file k that recent does not hold, made if
// served, and puts it in recent. Without a row, it counts the fetch (of
// column c, with status) in the section's counts, and returns nil.
func (l *Log) rowOf(k File, c Slot, status int, served bool) *crawlRow {
	row := (*l.rows.Load())[k]
	if row == nil && served {
		if row = l.add(k); row == nil {
			l.full.Add(1)
		}
	}
	if row == nil {
		l.counts[k.Group][c][statusClass(status)].Add(1)
		return nil
	}
	l.recent[recentSlot(k)].Store(row)
	return row
}

// add returns k's row, made if the log has room; nil if it has none.
func (l *Log) add(k File) *crawlRow {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := *l.rows.Load()
	if row := old[k]; row != nil {
		return row
	}
	if len(old) >= l.max {
		return nil
	}
	rows := make(map[File]*crawlRow, len(old)+1)
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
func (l *Log) snapshot(row *crawlRow) []Fetch {
	var out []Fetch
	for i := range row.cells {
		cell := row.cells[i].Load()
		if cell == nil {
			continue
		}
		f, ok := cell.fetch()
		if !ok {
			continue
		}
		c := Slot(i)
		f.Crawler, f.Purpose, f.Verified, f.Spoofed = crawlerNames[c.family()], purposeNames[c.purpose()], c.verified(), l.spoofed(c)
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b Fetch) int { return b.Time.Compare(a.Time) })
	return out
}

// Fetches returns the crawl log of the file k, the latest fetch first;
// nil if none was logged. This is the lookup a view of one file shows
// ("Googlebot fetched this file 2 h ago: 304").
func (l *Log) Fetches(k File) []Fetch {
	if l == nil {
		return nil
	}
	if row := (*l.rows.Load())[k]; row != nil {
		return l.snapshot(row)
	}
	return nil
}

// FileFetches is the crawl log of one file (Log.Files).
type FileFetches struct {
	File    File
	Fetches []Fetch // one per column that fetched it, the latest first
}

// Files returns the crawl log of every file logged, by group and then
// by number.
func (l *Log) Files() []FileFetches {
	if l == nil {
		return nil
	}
	var rows []*crawlRow
	for _, row := range *l.rows.Load() {
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b *crawlRow) int {
		return cmp.Or(cmp.Compare(a.key.Group, b.key.Group), cmp.Compare(a.key.N, b.key.N))
	})
	out := make([]FileFetches, len(rows))
	for i, row := range rows {
		out[i] = FileFetches{File: row.key, Fetches: l.snapshot(row)}
	}
	return out
}

// Group returns the fetches of the files of group i by column: the
// latest fetch of any of its files, and the group's count of fetches;
// and the counts by status class. Both are nil for a nil Log.
func (l *Log) Group(i int) ([]Fetch, []Count) {
	if l == nil {
		return nil, nil
	}
	var last [numSlots]Fetch
	var seen [numSlots]bool
	for _, row := range *l.rows.Load() {
		if row.key.Group != i {
			continue
		}
		for _, f := range l.snapshot(row) {
			if c := slotFor(f); !seen[c] || f.Time.After(last[c].Time) {
				last[c], seen[c] = f, true
			}
		}
	}
	all := l.counted(i)
	var out []Fetch
	var counts []Count
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
			cs := Slot(c)
			counts = append(counts, Count{Crawler: crawlerNames[cs.family()], Purpose: purposeNames[cs.purpose()],
				Verified: cs.verified(), Spoofed: l.spoofed(cs), Status: code, Fetches: n})
		}
		if total > 0 && seen[c] {
			last[c].Fetches = total
			out = append(out, last[c])
		}
	}
	slices.SortStableFunc(out, func(a, b Fetch) int { return b.Time.Compare(a.Time) })
	return out, counts
}

// counted returns the fetches of group i by column and status
// class: those its files' rows hold and those no row does. Each count
// read only grows.
func (l *Log) counted(i int) [numSlots][numStatus]int64 {
	var all [numSlots][numStatus]int64
	for c := range all {
		for st := range all[c] {
			all[c][st] = l.counts[i][c][st].Load()
		}
	}
	for _, row := range *l.rows.Load() {
		if row.key.Group != i {
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

// Totals are the fetches logged over every group.
type Totals struct {
	Verified   int64 // by verified crawlers
	Unverified int64 // by claims not verified (spoofed or unverifiable)
	Spoofed    int64 // of those, the claims of a family that could be verified
	// ByPurpose are the claims that are not spoofed by the family's
	// purpose (Search, Training, UserTriggered).
	ByPurpose [NumPurposes]int64
	Forbidden int64 // the requests Forbids answered true
	Full      int64 // fetches of files not logged: the log had Options.Files files
}

// Totals returns the fetches logged over every group; zero for a nil Log.
func (l *Log) Totals() Totals {
	var t Totals
	if l == nil {
		return t
	}
	t.Forbidden, t.Full = l.forbidden.Load(), l.full.Load()
	for i := range l.counts {
		all := l.counted(i)
		for c := range slotOther {
			var n int64
			for _, k := range all[c] {
				n += k
			}
			switch {
			case c.verified():
				t.Verified += n
			case l.spoofed(c):
				t.Unverified += n
				t.Spoofed += n
				continue
			default:
				t.Unverified += n
			}
			t.ByPurpose[c.purpose()] += n
		}
	}
	return t
}

// spoofed reports whether a fetch of column c is a spoofed claim: not
// verified, though the family's ranges were given.
func (l *Log) spoofed(c Slot) bool {
	return c < slotOther && !c.verified() && l.ids.verifiable(c.family())
}

// slotFor is the column of a fetch.
func slotFor(f Fetch) Slot {
	fam := crawler(slices.Index(crawlerNames[:], f.Crawler))
	if fam == crawlerOther {
		return slotOther
	}
	if f.Verified {
		return Slot(2 * fam)
	}
	return Slot(2*fam + 1)
}

package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap"
)

// Config says which rows of which table make the sitemap and how. Table,
// Key and exactly one of Loc, LocTemplate and LocFunc are required; the
// zero value of every other field is a working default.
//
// Table, Key, Loc, the template's columns, Columns, LastMod and Filter are
// pasted into SQL as they are, so that they may be expressions and quoted
// identifiers: they come from the program, never from a request.
type Config struct {
	// Table is the table or view the URLs come from, or a query. A query
	// that starts with SELECT is wrapped as "(query) AS sqlsource_rows";
	// anything else, such as "products p JOIN shops s ON s.id = p.shop_id"
	// or "(SELECT …) AS p", is used as written. The database must be able
	// to push the key range into it for pages to stay cheap.
	Table string
	// Key is the column pages are made from: a unique integer key with an
	// index, usually the primary key, such as "id". Rows are listed in
	// increasing key order, and a row's key says which page it is on.
	Key string

	// Loc is the column that holds each URL's location: an absolute URL,
	// or a path if BaseURL is set. A NULL fails the page.
	Loc string
	// LocTemplate builds the location from columns, such as
	// "https://shop.example.com/p/{slug}" or ".../c/{category}/{id}".
	// {name} is replaced by the value of column name with every byte
	// other than A-Z a-z 0-9 - . _ ~ percent-encoded, so "Bäder & Öfen"
	// becomes "B%C3%A4der%20%26%20%C3%96fen"; {+name} keeps the characters
	// that a URI may hold (/ ? & = and others), for columns that hold a
	// path. A NULL value fails the page.
	LocTemplate string
	// LocFunc builds the location from a row, which holds the key, the
	// lastmod and the columns named in Columns. An error fails the page.
	LocFunc func(r *Row) (string, error)

	// BaseURL, if set, is the scheme, host and optional path prefix that
	// makes the paths a table stores absolute, such as
	// "https://shop.example.com". Every loc, image loc, image license and
	// alternate href that starts with "/" is appended to it as it is, so
	// "/p/42" becomes "https://shop.example.com/p/42" (and with a base of
	// "https://example.com/shop", "https://example.com/shop/p/42"); one
	// that starts with "//", such as "//cdn.example.com/1.jpg", gets the
	// base's scheme; any other value is used as it is. It is a string
	// join, with no parsing per row. The Images, ImagesFrom and Alternates
	// Loaders resolve as they load; a path set by another Loader or by Annotate
	// costs a copy of the URL's images or alternates. Video URLs are not
	// resolved. Empty means the table holds absolute URLs.
	BaseURL string

	// Columns are more columns read with each row, for LocFunc and Annotate,
	// which read them with Row.Bytes, Row.String and Row.Time. Set them only
	// with one of the two.
	Columns []string
	// Annotate, if set, fills a URL's other fields from its row, such as a
	// news sitemap's News (publication, language, date and title, each a
	// column), ChangeFreq or Priority. It is called for each row, with the
	// row (its key, its lastmod and the columns named in Columns) and the
	// URL, whose Loc (resolved against BaseURL), LastMod and Loaders' data
	// are set, just before the URL is yielded. An error fails the page. It is called concurrently for
	// different pages, so what it stores in u must not change afterwards:
	// new values, or shared ones that are never written, such as a
	// package-level priority.
	Annotate func(r *Row, u *sitemap.URL) error

	// LastMod is the optional column of the time each URL last changed;
	// "" means none (no lastmod is written). It may be a timestamp, date or
	// datetime column; in SQLite, also TEXT in the date formats SQLite
	// uses (YYYY-MM-DD, YYYY-MM-DD HH:MM:SS with an optional fraction, a T
	// instead of the space, and an optional zone Z or ±HH:MM; no zone means
	// UTC) or INTEGER Unix seconds. Use one form per column, in UTC, since
	// the newest lastmod of a page is found with max(). A NULL means
	// unknown; a REAL or unparsable text fails the page.
	LastMod string
	// Filter is an optional SQL boolean expression that a row must satisfy
	// to be listed, such as "published AND NOT noindex". A row that stops
	// satisfying it leaves its page; its neighbours stay where they are.
	Filter string

	// PageSize is the key range of one page, and so the most URLs it holds.
	// Zero means 50,000, the protocol's limit; it may not exceed that.
	// Changing it renumbers every page. A sitemap.Section over the Source
	// takes it as its page size (see Source.PageSize): leave the Section's
	// PageSize zero.
	PageSize int
	// SegmentSize is the key range of one segment: each page is cut, from
	// its first key, into segments of SegmentSize keys (the last may be
	// shorter) that a Sitemap reads, compresses and replaces apart (see
	// Source.SegmentURLs), so a changed row costs its segment's rows, not
	// its page's. Zero means a twentieth of PageSize, rounded up (2,500
	// keys for pages of 50,000). It may not exceed PageSize, nor cut a
	// page into more than 1,000 segments.
	SegmentSize int
	// KeyStart is the lowest key listed: page 1 starts there. Rows with a
	// smaller key are not listed. The default, zero, suits keys from
	// sequences that start at 1.
	KeyStart int64

	// Dialect is the database's SQL dialect. Empty means detect it from
	// db's driver, which works for the common SQLite, PostgreSQL and MySQL
	// drivers; New fails if it cannot.
	Dialect Dialect

	// Summary makes Pages read the page summary that
	// Source.InstallSummary installed, one row per page, and the pages
	// the change table names, instead of aggregating the rows of every
	// page. Table must be a plain table name and Key a plain column.
	// False means no summary is read.
	Summary bool
	// Significant, with Summary, names the columns whose change counts
	// (plain column names, such as "slug", "title", "published"): an
	// UPDATE that changes none of them, nor the key, records no change,
	// so it rebuilds nothing, moves no clock and is not told by Watch.
	// Name every column the URLs are made of, and every column Filter
	// reads. Empty means every write counts. Changing it needs
	// InstallSummary again (which replaces the triggers).
	//
	// With LastMod too (a plain column then), each row's content-change
	// time is kept, and that time is the URL's lastmod: it moves only
	// with a significant change (to its time, when Watch applies it), so
	// a stock-count update that also moves updated_at changes no byte,
	// even when the page is rebuilt for another row. A row not changed
	// since InstallSummary has its LastMod column's time then. Recent
	// still orders and dates by the LastMod column.
	Significant []string

	// Capture is how Watch learns of the rows written: CaptureChangeTable
	// (the default: triggers add a row to a change table per row written,
	// on every database), CaptureLogical (PostgreSQL's logical decoding: a
	// replication slot, and the writes pay nothing) or CaptureAuto
	// (logical decoding where the server and the role allow it, else the
	// change table; the choice is logged and in WatchStats). See the
	// package doc, "Choosing the change capture", for the grants each
	// needs. A replication slot keeps the server's WAL from the position
	// it confirmed, however long no replica reads it: set the server's
	// max_slot_wal_keep_size to bound it, and watch WatchStats' LagBytes.
	Capture Capture
	// Slot and Publication are, with logical decoding, the names of the
	// replication slot and the publication (1 to 63 of a-z, 0-9 and _),
	// the same on every replica of a fleet, which share the slot: one
	// reads it at a time. Empty means "sqlsource_" and the table's name,
	// such as sqlsource_products, for both.
	Slot, Publication string

	// WatchInterval is, for Source.Watch, how often it reads the change
	// table, and so how often at most it calls Invalidate (the changes in
	// between are told together). Zero means DefaultWatchInterval; it may
	// not be negative.
	WatchInterval time.Duration
	// Logger receives what Source.Watch cannot do: a read or an apply
	// that fails (once, until it works again), and a failed Invalidate.
	// Nil means no logging.
	Logger *slog.Logger

	// Loaders add data from other tables, such as images, to each page's
	// URLs, with one query per Loader per page. See Images, ImagesFrom and
	// Alternates.
	Loaders []Loader
}

// Source is a sitemap.Source over a database table, made by New. It is
// safe for concurrent use; it holds no connection between calls.
type Source struct {
	db         *sql.DB
	dialect    Dialect
	size       int64
	seg        int64 // Config.SegmentSize (segment.go)
	segs       int   // segments a page
	start      int64
	hasLM      bool
	loc        bool      // Loc is a column
	tpl        *template // or a template
	keyInTpl   int       // 1 + the index of Key among tpl.cols, which is not selected twice; 0 if not there
	locFunc    func(r *Row) (string, error)
	names      []string // Columns
	annotate   func(r *Row, u *sitemap.URL) error
	loaders    []Loader
	base       baseURL
	sum        summary                 // the page summary (summary.go)
	capture    *capture                // the change capture (capture.go)
	watching   atomic.Pointer[Watcher] // the Watcher running, if any (watch.go)
	watchEvery time.Duration           // Config.WatchInterval (watch.go)
	log        *slog.Logger

	pageQuery     string // the rows of one key range, in key order
	pageInfoQuery string // count, sum of key offsets[, max(lastmod)] of one key range
	nextKeyQuery  string // the first listed key from a key on
	recentQuery   string // the newest rows by lastmod (recent.go); "" without Config.LastMod
	keyTypeQuery  string // the key column, no row: its type, for Check

	// listedRange is the first listed row of one key range, if any
	// (listedPages, apply.go), with literal bounds: its [0], the low key,
	// its [1], the high key, its [2].
	listedRange [3]string
}

// DefaultWatchInterval is Config.WatchInterval's default: a change waits
// at most about that long to be told, and an idle watcher reads the
// change table 4 times a second, about 2 ms of CPU a second for the
// process and 1 ms for PostgreSQL (BENCHMARKS.md, h28churn).
const DefaultWatchInterval = 250 * time.Millisecond

var (
	_ sitemap.Source       = (*Source)(nil)
	_ sitemap.PageSizer    = (*Source)(nil)
	_ sitemap.RecentLister = (*Source)(nil)
)

// PageSize returns the key range of one page (Config.PageSize), which
// sitemap.New takes as the section's page size.
func (s *Source) PageSize() int { return int(s.size) }

// New returns a Source reading db as cfg says. Every mistake in cfg is
// reported here; New does not touch the database (see Check).
func New(db *sql.DB, cfg Config) (*Source, error) {
	if db == nil {
		return nil, errors.New("sqlsource: nil *sql.DB")
	}
	table, key := strings.TrimSpace(cfg.Table), strings.TrimSpace(cfg.Key)
	if table == "" {
		return nil, errors.New("sqlsource: Config.Table is required")
	}
	if key == "" {
		return nil, errors.New("sqlsource: Config.Key is required")
	}
	if len(table) > 6 && strings.EqualFold(table[:6], "select") && strings.ContainsAny(table[6:7], " \t\r\n") {
		table = "(" + table + ") AS sqlsource_rows"
	}
	s := &Source{db: db, dialect: cfg.Dialect, start: cfg.KeyStart, hasLM: cfg.LastMod != "", locFunc: cfg.LocFunc,
		names: slices.Clone(cfg.Columns), annotate: cfg.Annotate, loaders: slices.Clone(cfg.Loaders)}
	switch {
	case cfg.WatchInterval < 0:
		return nil, fmt.Errorf("sqlsource: Config.WatchInterval %v is negative", cfg.WatchInterval)
	case cfg.WatchInterval == 0:
		s.watchEvery = DefaultWatchInterval
	default:
		s.watchEvery = cfg.WatchInterval
	}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if s.sum, err = newSummary(cfg); err != nil {
		return nil, err
	}
	if s.base, err = parseBaseURL(cfg.BaseURL); err != nil {
		return nil, err
	}

	switch n := boolInt(cfg.Loc != "") + boolInt(cfg.LocTemplate != "") + boolInt(cfg.LocFunc != nil); {
	case n == 0:
		return nil, errors.New("sqlsource: one of Config.Loc, LocTemplate and LocFunc is required")
	case n > 1:
		return nil, errors.New("sqlsource: set only one of Config.Loc, LocTemplate and LocFunc")
	}
	if len(cfg.Columns) > 0 && cfg.LocFunc == nil && cfg.Annotate == nil {
		return nil, errors.New("sqlsource: Config.Columns is only read by LocFunc and Annotate; set one of them")
	}
	for _, c := range cfg.Columns {
		if strings.TrimSpace(c) == "" {
			return nil, errors.New("sqlsource: empty name in Config.Columns")
		}
	}
	for i, l := range cfg.Loaders {
		if l == nil {
			return nil, fmt.Errorf("sqlsource: Config.Loaders[%d] is nil", i)
		}
	}
	switch {
	case cfg.PageSize < 0 || cfg.PageSize > sitemap.MaxURLs:
		return nil, fmt.Errorf("sqlsource: Config.PageSize %d is out of range 1 to %d", cfg.PageSize, sitemap.MaxURLs)
	case cfg.PageSize == 0:
		s.size = sitemap.MaxURLs
	default:
		s.size = int64(cfg.PageSize)
	}
	if s.seg, s.segs, err = segmentSize(cfg.SegmentSize, s.size); err != nil {
		return nil, err
	}
	switch {
	case s.dialect == "":
		d, err := detectDialect(db)
		if err != nil {
			return nil, err
		}
		s.dialect = d
	case !s.dialect.valid():
		return nil, fmt.Errorf("sqlsource: unknown Config.Dialect %q; want %q, %q or %q", s.dialect, SQLite, Postgres, MySQL)
	}

	cols := []string{key}
	if s.hasLM {
		cols = append(cols, cfg.LastMod)
	}
	switch {
	case cfg.Loc != "":
		s.loc = true
		cols = append(cols, cfg.Loc)
	case cfg.LocTemplate != "":
		t, err := parseTemplate(cfg.LocTemplate)
		if err != nil {
			return nil, err
		}
		if p := &t.parts[0]; p.col < 0 {
			p.lit = s.base.resolve(p.lit) // a template of a path resolves once, here
		}
		s.tpl = t
		for i, c := range t.cols {
			if c == key && s.keyInTpl == 0 {
				s.keyInTpl = i + 1 // read already: its text is the key's (rowReader)
				continue
			}
			cols = append(cols, c)
		}
	}
	cols = append(cols, cfg.Columns...)

	where := ""
	if f := strings.TrimSpace(cfg.Filter); f != "" {
		where = " AND (" + f + ")"
	}
	// The key bounds. Postgres would type them after the key column, and
	// the last page of an int4 key can end past its range: make them bigint.
	lo, hi := s.dialect.placeholder(1), s.dialect.placeholder(2)
	if s.dialect == Postgres {
		lo, hi = lo+"::bigint", hi+"::bigint"
	}
	inRange := " WHERE " + key + " >= " + lo + " AND " + key + " <= " + hi + where
	s.pageQuery = "SELECT " + strings.Join(cols, ", ") + " FROM " + table + inRange + " ORDER BY " + key
	if s.sum.rowTimes() { // each row's lastmod is its content-change time (rowtimes.go)
		pageCols := slices.Clone(cols)
		pageCols[1] = s.rowTimeLastMod()
		s.pageQuery = "SELECT " + strings.Join(pageCols, ", ") + " FROM " + s.rowTimeFrom() + inRange + " ORDER BY " + key
	}
	// SUM(key - lo) stays below size², so it cannot overflow where SUM(key)
	// could. Postgres reuses $1; the other dialects bind lo twice.
	agg := "SELECT COUNT(*), SUM(" + key + " - " + lo + ")"
	if s.hasLM {
		agg += ", MAX(" + cfg.LastMod + ")"
	}
	s.pageInfoQuery = agg + " FROM " + table + inRange
	s.keyTypeQuery = "SELECT " + key + " FROM " + table + " WHERE 1 = 0"
	s.listedRange = [3]string{"SELECT 1 FROM " + table + " WHERE " + key + " >= ", " AND " + key + " <= ", where}
	s.nextKeyQuery = "SELECT " + key + " FROM " + table + " WHERE " + key + " >= " + lo + where + " ORDER BY " + key + " LIMIT 1"
	if s.hasLM {
		// The same rows as the pages (from KeyStart, through the filter),
		// newest first, ties by key: one scan of an index on (lastmod, key).
		s.recentQuery = "SELECT " + strings.Join(cols, ", ") + " FROM " + table + " WHERE " + cfg.LastMod + " IS NOT NULL AND " +
			key + " >= " + lo + where + " ORDER BY " + cfg.LastMod + " DESC, " + key + " DESC LIMIT " + hi
	}
	if s.sum.on {
		s.sum.pagesQuery = s.pagesSQL()
	}
	if s.capture, err = newCapture(cfg, s.dialect, s.sum); err != nil {
		return nil, err
	}
	return s, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Check runs the page query over an empty key range, which makes the
// database check the table, the columns and the filter, and checks that
// Config.Key is an integer column: a key of another type (a UUID, text, a
// decimal) is refused with an error that says what to do. Call it at
// start-up to find a mistake before a crawler does. With Config.Summary
// set, it also reads the page summary, which must have been installed.
func (s *Source) Check(ctx context.Context) error {
	if err := s.checkKey(ctx); err != nil {
		return err
	}
	if err := s.check(ctx, s.pageQuery, 1, 0); err != nil {
		return err
	}
	if s.sum.on {
		return s.check(ctx, s.sum.checkQuery)
	}
	return nil
}

// checkKey refuses a key column whose type is not an integer. A column
// of no declared type (an SQLite expression or untyped column) is judged
// by its first listed value instead.
func (s *Source) checkKey(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, s.keyTypeQuery)
	if err != nil {
		return fmt.Errorf("sqlsource: check: %w", err)
	}
	types, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return fmt.Errorf("sqlsource: check: %w", err)
	}
	name := strings.ToUpper(types[0].DatabaseTypeName())
	switch {
	case strings.Contains(name, "INT") || strings.Contains(name, "SERIAL"):
		return nil
	case name != "":
		return fmt.Errorf("sqlsource: check: Config.Key %q is a %s column, not an integer: %s", s.sum.key, name, keyAdvice)
	}
	var key keyValue
	err = s.db.QueryRowContext(ctx, s.nextKeyQuery, s.start).Scan(&key)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlsource: check: Config.Key %q: %w", s.sum.key, err)
	}
	return nil
}

func (s *Source) check(ctx context.Context, query string, args ...any) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("sqlsource: check: %w", err)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("sqlsource: check: %w", err)
	}
	return nil
}

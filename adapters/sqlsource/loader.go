package sqlsource

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/freshmap/sitemap"
)

// A Loader reads the data that a page's URLs keep in other tables, such as
// images or hreflang alternates. It is called once for every page read,
// before the page's rows, and should run one query over the page's key
// range, p.Lo through p.Hi (for example with p.Query), so that a page costs
// one extra query however many URLs it holds. It returns a Merge that adds
// that data to each URL of the page; what the Merge holds lives until the
// page has been read, so memory is bounded by one page, never by the
// catalogue. A nil Merge means the page has nothing to add. When a
// Sitemap reads one segment of a page (Source.SegmentURLs), the Loader is
// called for that segment alone: p.Lo and p.Hi are the segment's bounds.
//
// The Loader runs on the URLs request's ctx, and its error fails the page.
// It runs before the page's query, not in the same transaction: a row
// inserted in between is listed without its extra data until the page is
// read again.
type Loader func(ctx context.Context, p *Page) (Merge, error)

// Merge adds one URL's extra data to u. It is called for each row of the
// page in increasing key order, just before the URL is yielded. Slices it
// stores in u may be shared with other URLs and must not be changed
// afterwards.
type Merge func(key int64, u *sitemap.URL)

// Page is the page a Loader loads for: the rows with keys Lo through Hi,
// both inclusive.
type Page struct {
	Number  int64   // the page number, from 1
	Lo, Hi  int64   // the key range, inclusive at both ends
	DB      *sql.DB // the Source's database
	Dialect Dialect // its dialect

	base baseURL // Config.BaseURL, which Images and Alternates apply
}

// Query runs query with p.Lo and p.Hi bound to its two ? placeholders,
// rewritten for the dialect (see Dialect.Rebind; for Postgres they become
// $1::bigint and $2::bigint, since the last page of a 32-bit key ends past
// its range). Write the range as "WHERE product_id BETWEEN ? AND ?". The
// caller closes the rows.
func (p *Page) Query(ctx context.Context, query string) (*sql.Rows, error) {
	return p.DB.QueryContext(ctx, p.Dialect.rebind(query, "::bigint"), p.Lo, p.Hi)
}

// Images returns a Loader that reads a page's images with query, which
// selects the URL's key and the image's loc, then optionally its caption,
// geo location, title and license, in that order (NULL reads as ""), and
// has two ? placeholders for the page's key range:
//
//	sqlsource.Images(`SELECT product_id, url FROM product_images
//		WHERE product_id BETWEEN ? AND ? ORDER BY product_id, position`)
//
// A URL gets its images in the order the query returns them, at most
// 1,000 of them. With Config.BaseURL, a loc or license may be a path.
func Images(query string) Loader {
	var last rowHint // rows of the last range read (loadKeyed)
	return func(ctx context.Context, p *Page) (Merge, error) {
		var cols [6]textValue // loc, caption, geo location, title, license; [0] unused
		rows, err := loadKeyed(ctx, p, query, 2, len(cols), &last, func(rows *sql.Rows, key *int64, n int) (sitemap.Image, error) {
			dest := [6]any{(*keyValue)(key)}
			for i := 1; i < n; i++ {
				dest[i] = &cols[i]
			}
			if err := rows.Scan(dest[:n]...); err != nil {
				return sitemap.Image{}, err
			}
			return sitemap.Image{Loc: cols[1].resolved(&p.base), Caption: cols[2].String(), GeoLocation: cols[3].String(),
				Title: cols[4].String(), License: cols[5].resolved(&p.base)}, nil
		})
		if err != nil || len(rows.keys) == 0 {
			return nil, err
		}
		return mergeImages(rows), nil
	}
}

// maxImages is the image protocol's limit of <image:image> elements in one
// <url> (the root package's writer drops the rest). The adapter keeps its
// own copy rather than import the root module's internal/limits, which a
// released adapter cannot rely on across root versions.
const maxImages = 1000

// mergeImages returns the Merge of a page's images: each URL gets its own,
// at most maxImages.
func mergeImages(rows *keyed[sitemap.Image]) Merge {
	return func(key int64, u *sitemap.URL) {
		if imgs := rows.get(key); imgs != nil {
			n := min(len(imgs), maxImages)
			u.Images = imgs[:n:n]
		}
	}
}

// Alternates returns a Loader that reads a page's hreflang alternates with
// query, which selects the URL's key, the hreflang (such as "de" or
// "x-default") and the href, and has two ? placeholders for the page's
// key range:
//
//	sqlsource.Alternates(`SELECT product_id, lang, url FROM product_translations
//		WHERE product_id BETWEEN ? AND ? ORDER BY product_id, lang`)
//
// A URL gets its alternates in the order the query returns them; the
// protocol wants the page itself among them. With Config.BaseURL, an href
// may be a path.
func Alternates(query string) Loader {
	var last rowHint // rows of the last range read (loadKeyed)
	return func(ctx context.Context, p *Page) (Merge, error) {
		var lang, href textValue
		var langs interned
		rows, err := loadKeyed(ctx, p, query, 3, 3, &last, func(rows *sql.Rows, key *int64, _ int) (sitemap.Alternate, error) {
			if err := rows.Scan((*keyValue)(key), &lang, &href); err != nil {
				return sitemap.Alternate{}, err
			}
			return sitemap.Alternate{Hreflang: langs.of(&lang), Href: href.resolved(&p.base)}, nil
		})
		if err != nil || len(rows.keys) == 0 {
			return nil, err
		}
		return func(key int64, u *sitemap.URL) {
			if alts := rows.get(key); alts != nil {
				u.Alternates = alts
			}
		}, nil
	}
}

// maxHint bounds the room a loader's slices start with, whatever the last
// page read.
const maxHint = 1 << 20

// rowHint is how many rows a Loader read the last time, and over how many
// keys, which the next read's slices start with room for in proportion to
// its own key range: pages are alike, and a segment is a part of one.
type rowHint struct{ rows, keys atomic.Int64 }

// guess returns the rows to expect over keys keys, at most maxHint.
func (h *rowHint) guess(keys int64) int64 {
	rows, over := h.rows.Load(), h.keys.Load()
	if rows <= 0 || over <= 0 {
		return 0
	}
	return int64(min(float64(rows)*float64(keys)/float64(over), maxHint))
}

// record keeps the rows read over keys keys.
func (h *rowHint) record(rows, keys int64) {
	h.rows.Store(rows)
	h.keys.Store(keys)
}

// keyed holds the values a Loader read for one page, sorted by key.
type keyed[T any] struct {
	keys []int64
	vals []T
	next int // where the last get ended: Merges ask in increasing key order
}

// get returns the values of key, in the order they were read, or nil. The
// slice's capacity is its length, so appending to it never touches the
// values of the next key. Asked in increasing key order, as a Merge is, it
// steps forward from where the last call ended; otherwise it searches.
func (k *keyed[T]) get(key int64) []T {
	i := k.next
	if i > 0 && k.keys[i-1] >= key {
		i = sort.Search(i, func(i int) bool { return k.keys[i] >= key })
	}
	for i < len(k.keys) && k.keys[i] < key {
		i++
	}
	j := i
	for j < len(k.keys) && k.keys[j] == key {
		j++
	}
	k.next = j
	if i == j {
		return nil
	}
	return k.vals[i:j:j]
}

// loadKeyed runs query for page p and reads each row with scan, which is
// told the number of columns (between minCols and maxCols). The result is
// sorted by key, keeping the query's order within a key. last is the
// rows the loader's previous read found, over its key range, which the
// slices start with room for in proportion to p's (rowHint), and becomes
// this read's.
func loadKeyed[T any](ctx context.Context, p *Page, query string, minCols, maxCols int, last *rowHint, scan func(rows *sql.Rows, key *int64, ncols int) (T, error)) (*keyed[T], error) {
	rows, err := p.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if len(cols) < minCols || len(cols) > maxCols {
		return nil, fmt.Errorf("sqlsource: loader query selects %d columns, want %d to %d", len(cols), minCols, maxCols)
	}
	k := &keyed[T]{}
	span := p.Hi - p.Lo + 1 // at most a page's size
	if n := last.guess(span); n > 0 {
		n += n/16 + 16
		k.keys, k.vals = make([]int64, 0, n), make([]T, 0, n)
	}
	sorted := true
	var key int64 // one for the page: scan's pointer to it would move a per-row one to the heap
	for rows.Next() {
		v, err := scan(rows, &key, len(cols))
		if err != nil {
			return nil, err
		}
		n := len(k.keys)
		if n > 0 && key < k.keys[n-1] {
			sorted = false
		}
		if n == cap(k.keys) || n == cap(k.vals) {
			// Double: append grows a large slice by a quarter, which
			// copies each value about four times (T holds strings, so
			// each copy also passes the GC's write barrier).
			k.keys, k.vals = slices.Grow(k.keys, max(n, 64)), slices.Grow(k.vals, max(n, 64))
		}
		k.keys = append(k.keys, key)
		k.vals = append(k.vals, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	last.record(int64(len(k.keys)), span)
	if !sorted {
		order := make([]int, len(k.keys))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(k.keys[a], k.keys[b]) })
		keys, vals := make([]int64, len(order)), make([]T, len(order))
		for i, o := range order {
			keys[i], vals[i] = k.keys[o], k.vals[o]
		}
		k.keys, k.vals = keys, vals
	}
	return k, nil
}

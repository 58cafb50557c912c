package sqlsource_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// readSegments collects page n of src segment by segment, in turn,
// copying the slices of every URL.
func readSegments(ctx context.Context, src sitemap.SegmentSource, n int64) ([]sitemap.URL, error) {
	var urls []sitemap.URL
	for seg := range src.Segments() {
		for u, err := range src.SegmentURLs(ctx, n, seg) {
			if err != nil {
				return urls, err
			}
			u.Images = slices.Clone(u.Images)
			u.Alternates = slices.Clone(u.Alternates)
			urls = append(urls, u)
		}
	}
	return urls, nil
}

// checkSegments checks that pages 1 to last of src, read segment by
// segment, are exactly what URLs reads and what want says.
func checkSegments(t *testing.T, src sitemap.SegmentSource, last int64, want map[int64][]sitemap.URL) {
	t.Helper()
	ctx := context.Background()
	for n := int64(1); n <= last; n++ {
		whole, err := readPage(ctx, src, n)
		if err != nil {
			t.Fatalf("URLs(%d): %v", n, err)
		}
		segs, err := readSegments(ctx, src, n)
		if err != nil {
			t.Fatalf("segments of page %d: %v", n, err)
		}
		if !reflect.DeepEqual(segs, whole) {
			t.Errorf("page %d: its segments in turn give\n%v\nand URLs gives\n%v", n, urlLocs(segs), urlLocs(whole))
		}
		if !reflect.DeepEqual(whole, want[n]) {
			t.Errorf("page %d:\n%+v\nwant\n%+v", n, whole, want[n])
		}
	}
}

func urlLocs(urls []sitemap.URL) []string {
	var s []string
	for _, u := range urls {
		s = append(s, u.Loc)
	}
	return s
}

// TestSegmentsMakeThePage: on every database, a page read segment by
// segment (pages of 20 keys, segments of 5) is what URLs reads: with gaps
// (an empty segment, missing keys at segment edges), unlisted and deleted
// rows at segment edges, images, alternates, a custom Loader (which gets
// the segment's bounds) and Annotate, and a last page that is partly
// filled.
func TestSegmentsMakeThePage(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		var ps []product
		for _, id := range ids(1, 73) {
			if id >= 10 && id <= 14 || id == 35 || id == 39 || id == 40 {
				continue // an empty segment, and gaps at edges
			}
			p := products(id)[0]
			p.Published = id != 45 && id != 59
			p.Noindex = id == 49 || id == 50
			if id%3 == 0 {
				p.Images = []string{fmt.Sprintf("https://cdn.example.com/%d-a.jpg", id), fmt.Sprintf("https://cdn.example.com/%d-b.jpg", id)}
			}
			if id%4 == 0 {
				p.Alternates = [][2]string{{"de", base + "de/" + p.Slug}, {"en", p.loc()}}
			}
			ps = append(ps, p)
		}
		c := d.createCatalogue(t, ps)
		cfg := c.withExtensions(c.config(20))
		cfg.SegmentSize = 5
		var mu sync.Mutex
		var ranges [][2]int64 // the bounds the custom Loader was given
		cfg.Loaders = append(cfg.Loaders, func(_ context.Context, p *sqlsource.Page) (sqlsource.Merge, error) {
			mu.Lock()
			ranges = append(ranges, [2]int64{p.Lo, p.Hi})
			mu.Unlock()
			lo, hi := p.Lo, p.Hi
			return func(key int64, u *sitemap.URL) {
				if key < lo || key > hi {
					u.ChangeFreq = "never" // a row outside the range it loaded
				}
			}, nil
		})
		cfg.Annotate = func(r *sqlsource.Row, u *sitemap.URL) error {
			u.Priority = new(float64(r.Key%10) / 10)
			return nil
		}
		src := newSource(t, d.db, cfg)
		if src.Segments() != 4 {
			t.Fatalf("Segments() = %d, want 4", src.Segments())
		}
		annotated := func(ps []product) map[int64][]sitemap.URL {
			want, _ := model(ps, 20, 0, true)
			for n, urls := range want {
				for i := range urls {
					var id int64
					fmt.Sscanf(strings.TrimPrefix(urls[i].Loc, base+"item-"), "%d", &id)
					urls[i].Priority = new(float64(id%10) / 10)
				}
				want[n] = urls
			}
			return want
		}
		checkSegments(t, src, 4, annotated(ps))

		// The custom Loader was given each segment's bounds, and each
		// page's for URLs.
		mu.Lock()
		for _, r := range ranges {
			if span := r[1] - r[0] + 1; !(span == 5 && r[0]%5 == 0 || span == 20 && r[0]%20 == 0) {
				t.Errorf("a Loader was given keys %d to %d: neither a segment nor a page", r[0], r[1])
			}
		}
		mu.Unlock()

		// Every key is in the segment SegmentOf names.
		for _, p := range ps {
			if !p.listed() {
				continue
			}
			n, seg := src.SegmentOf(p.ID)
			if wantN, wantSeg := p.ID/20+1, int(p.ID%20/5); n != wantN || seg != wantSeg {
				t.Fatalf("SegmentOf(%d) = %d, %d, want %d, %d", p.ID, n, seg, wantN, wantSeg)
			}
			found := false
			for u, err := range src.SegmentURLs(context.Background(), n, seg) {
				if err != nil {
					t.Fatal(err)
				}
				found = found || u.Loc == p.loc()
			}
			if !found {
				t.Errorf("key %d is not in page %d's segment %d", p.ID, n, seg)
			}
		}

		// Rows deleted and unpublished at segment edges.
		gone := map[int64]bool{20: true, 24: true, 25: true, 54: true, 55: true, 73: true}
		d.exec(t, "DELETE FROM "+c.products+" WHERE id IN (20, 24, 25, 73)")
		d.exec(t, "UPDATE "+c.products+" SET published = false WHERE id IN (54, 55)")
		var left []product
		for _, p := range ps {
			if !gone[p.ID] {
				left = append(left, p)
			}
		}
		checkSegments(t, src, 4, annotated(left))
	})
}

// TestSegmentOfLargestKeys: the segments of the last page an int64 can
// number, which is cut short at math.MaxInt64.
func TestSegmentOfLargestKeys(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(math.MaxInt64, math.MaxInt64-1, math.MaxInt64-4, math.MaxInt64-10)
		c := d.createCatalogue(t, ps)
		cfg := c.config(10)
		cfg.SegmentSize = 4
		cfg.KeyStart = math.MaxInt64 - 14 // pages: MaxInt64-14..-5, MaxInt64-4..MaxInt64
		src := newSource(t, d.db, cfg)
		want, _ := model(ps, 10, cfg.KeyStart, false)
		checkSegments(t, src, 2, want)
		for key, want := range map[int64][2]int64{
			math.MaxInt64:      {2, 1},
			math.MaxInt64 - 1:  {2, 0},
			math.MaxInt64 - 4:  {2, 0},
			math.MaxInt64 - 5:  {1, 2},
			math.MaxInt64 - 10: {1, 1},
			math.MaxInt64 - 14: {1, 0},
			math.MaxInt64 - 15: {0, 0}, // below KeyStart
		} {
			if n, seg := src.SegmentOf(key); n != want[0] || int64(seg) != want[1] {
				t.Errorf("SegmentOf(MaxInt64-%d) = %d, %d, want %d, %d", math.MaxInt64-key, n, seg, want[0], want[1])
			}
		}
		// Segment 2 of page 2 would start past MaxInt64: nothing.
		for u, err := range src.SegmentURLs(context.Background(), 2, 2) {
			t.Errorf("page 2's segment 2 yields %v, %v", u, err)
		}
	})
}

// TestSegmentSize: the default cut, the limits New enforces, and the
// segments that do not exist.
func TestSegmentSize(t *testing.T) {
	db := openDB(t, "sqlite").db
	for _, tc := range []struct {
		page, seg int
		want      int    // Segments()
		err       string // what New's error says, if it fails
	}{
		{0, 0, 20, ""},    // 50,000 keys in segments of 2,500
		{1000, 0, 20, ""}, // of 50
		{10, 0, 10, ""},   // of 1
		{7, 0, 7, ""},
		{1, 0, 1, ""},
		{10, 3, 4, ""}, // 3, 3, 3 and 1
		{10, 10, 1, ""},
		{0, 50, 1000, ""},
		{0, 49, 0, "Config.SegmentSize 49 cuts a page of 50000 keys into 1021 segments, more than 1000: make it at least 50"},
		{10, 11, 0, "Config.SegmentSize 11 is larger than a page (PageSize 10)"},
		{10, -1, 0, "Config.SegmentSize -1 is negative"},
	} {
		t.Run(fmt.Sprintf("page=%d,segment=%d", tc.page, tc.seg), func(t *testing.T) {
			src, err := sqlsource.New(db, sqlsource.Config{Table: "t", Key: "id", Loc: "url", PageSize: tc.page, SegmentSize: tc.seg})
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("New: %v, want an error saying %q", err, tc.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got := src.Segments(); got != tc.want {
				t.Errorf("Segments() = %d, want %d", got, tc.want)
			}
			for _, seg := range []int{-1, tc.want} {
				n := 0
				for _, err := range src.SegmentURLs(context.Background(), 1, seg) {
					n++
					if err == nil || !strings.Contains(err.Error(), "out of range") {
						t.Errorf("segment %d: %v, want an error saying it is out of range", seg, err)
					}
				}
				if n != 1 {
					t.Errorf("segment %d: %d yields, want one error", seg, n)
				}
			}
			for u, err := range src.SegmentURLs(context.Background(), 0, 0) {
				t.Errorf("page 0: %v, %v", u, err) // no such page: nothing, and no query
			}
		})
	}
}

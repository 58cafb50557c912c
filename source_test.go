package sitemap

import (
	"context"
	"errors"
	"io"
	"iter"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// collectPages returns what src.Pages yields, stopping at an error.
func collectPages(t *testing.T, src Source) ([]PageInfo, error) {
	t.Helper()
	var pages []PageInfo
	for p, err := range src.Pages(context.Background()) {
		if err != nil {
			return pages, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// collectLocs returns the locs of page n of src, stopping at an error.
func collectLocs(ctx context.Context, src Source, n int64) ([]string, error) {
	var locs []string
	for u, err := range src.URLs(ctx, n) {
		if err != nil {
			return locs, err
		}
		locs = append(locs, u.Loc)
	}
	return locs, nil
}

// catalogue is n URLs whose lastmod is day i+1 of 2024 for URL i, except
// that URL 3 has none.
func catalogue(n int) []URL {
	urls := numbered(n)
	for i := range urls {
		if i != 3 {
			urls[i].LastMod = day(2024, 1, 1+i)
		}
	}
	return urls
}

// sourceKinds makes the three ready-made sources over the same URLs.
var sourceKinds = []struct {
	name string
	make func(urls []URL, pageSize int) Source
}{
	{"FromSlice", FromSlice},
	{"FromSeq", func(urls []URL, pageSize int) Source {
		return FromSeq(func(yield func(URL) bool) {
			for _, u := range urls {
				if !yield(u) {
					return
				}
			}
		}, pageSize)
	}},
	{"FromRange", func(urls []URL, pageSize int) Source {
		return FromRange(func(context.Context) (int64, error) { return int64(len(urls)), nil },
			func(_ context.Context, lo, hi int64) iter.Seq2[URL, error] {
				return func(yield func(URL, error) bool) {
					for _, u := range urls[lo:hi] {
						if !yield(u, nil) {
							return
						}
					}
				}
			}, pageSize)
	}},
}

func TestSourcePaging(t *testing.T) {
	for _, kind := range sourceKinds {
		for _, tc := range []struct {
			total, size int
			pages       []int // URLs on each page
		}{
			{0, 2, nil},
			{1, 2, []int{1}},
			{4, 2, []int{2, 2}},
			{5, 2, []int{2, 2, 1}},
			{7, 3, []int{3, 3, 1}},
			{5, 0, []int{5}},  // 0 means 50,000
			{5, -1, []int{5}}, // so does a negative size
			{MaxURLs + 1, MaxURLs + 1, []int{MaxURLs, 1}}, // never more than 50,000
		} {
			t.Run(kind.name+"/"+strconv.Itoa(tc.total)+"by"+strconv.Itoa(tc.size), func(t *testing.T) {
				urls := catalogue(tc.total)
				src := kind.make(urls, tc.size)
				pages, err := collectPages(t, src)
				if err != nil || len(pages) != len(tc.pages) {
					t.Fatalf("Pages: %d pages, %v; want %d", len(pages), err, len(tc.pages))
				}
				next := 0
				for i, p := range pages {
					if p.Number != int64(i+1) {
						t.Errorf("page %d has number %d", i+1, p.Number)
					}
					locs, err := collectLocs(context.Background(), src, p.Number)
					if err != nil || len(locs) != tc.pages[i] {
						t.Fatalf("page %d: %d URLs, %v; want %d", p.Number, len(locs), err, tc.pages[i])
					}
					var newest time.Time
					for j, loc := range locs {
						if loc != urls[next+j].Loc {
							t.Fatalf("page %d URL %d is %s, want %s", p.Number, j, loc, urls[next+j].Loc)
						}
						newest = newer(newest, urls[next+j].LastMod)
					}
					next += len(locs)
					if kind.name == "FromRange" {
						newest = time.Time{} // it reads no URL for Pages
					}
					if !p.LastMod.Equal(newest) {
						t.Errorf("page %d lastmod %v, want %v", p.Number, p.LastMod, newest)
					}
				}
				// pages out of range yield nothing
				for _, n := range []int64{0, -1, int64(len(pages)) + 1, int64(len(pages)) + 2, math.MaxInt64, math.MinInt64} {
					if locs, err := collectLocs(context.Background(), src, n); len(locs) > 0 || err != nil {
						t.Errorf("page %d: %d URLs, %v; want none", n, len(locs), err)
					}
				}
			})
		}
	}
}

// TestSourceEarlyStop stops reading after one URL and one page: the
// sources stop too (a range-over-func loop would panic otherwise).
func TestSourceEarlyStop(t *testing.T) {
	for _, kind := range sourceKinds {
		t.Run(kind.name, func(t *testing.T) {
			src := kind.make(catalogue(10), 3)
			for range src.Pages(context.Background()) {
				break
			}
			for n := int64(1); n <= 4; n++ {
				for range src.URLs(context.Background(), n) {
					break
				}
			}
		})
	}
}

func TestFromSeqStopsReading(t *testing.T) {
	read := 0
	seq := func(yield func(URL) bool) {
		for _, u := range catalogue(100) {
			read++
			if !yield(u) {
				return
			}
		}
	}
	src := FromSeq(seq, 10)
	if locs, _ := collectLocs(context.Background(), src, 2); len(locs) != 10 || read > 21 {
		t.Errorf("page 2: %d URLs, %d read from the seq; want 10 URLs and at most 21 read", len(locs), read)
	}
	read = 0
	for range src.URLs(context.Background(), 3) {
		break
	}
	if read != 21 {
		t.Errorf("stopping after the first URL of page 3 read %d from the seq, want 21", read)
	}
}

func TestFromSeqCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := FromSeq(func(yield func(URL) bool) {
		for _, u := range catalogue(100) {
			if !yield(u) {
				return
			}
		}
	}, 10)
	if _, err := collectLocs(ctx, src, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("URLs with a cancelled context: %v, want context.Canceled", err)
	}
	var err error
	for _, err = range src.Pages(ctx) {
		if err != nil {
			break
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Pages with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestFromRangeCalls(t *testing.T) {
	errCount, errRead := errors.New("count failed"), errors.New("read failed")
	var reads [][2]int64
	total, countErr := int64(25), error(nil)
	src := FromRange(
		func(context.Context) (int64, error) { return total, countErr },
		func(_ context.Context, lo, hi int64) iter.Seq2[URL, error] {
			reads = append(reads, [2]int64{lo, hi})
			return func(yield func(URL, error) bool) {
				for i := lo; i < hi+5; i++ { // a careless read yields too many
					if i == 13 {
						yield(URL{}, errRead)
						return
					}
					if !yield(URL{Loc: testBase + strconv.FormatInt(i, 10)}, nil) {
						return
					}
				}
			}
		}, 10)

	locs, err := collectLocs(context.Background(), src, 3)
	if err != nil || len(locs) != 5 || locs[4] != testBase+"24" {
		t.Errorf("page 3: %v, %v; want URLs 20 to 24", locs, err)
	}
	if len(reads) != 1 || reads[0] != [2]int64{20, 25} {
		t.Errorf("read called with %v, want [20 25]", reads)
	}
	if locs, err := collectLocs(context.Background(), src, 4); len(locs) > 0 || err != nil || len(reads) != 1 {
		t.Errorf("page 4 of 3: %v, %v, and %d reads; want nothing read", locs, err, len(reads))
	}
	if _, err := collectLocs(context.Background(), src, 2); !errors.Is(err, errRead) {
		t.Errorf("page 2: %v, want the read error", err)
	}
	countErr = errCount
	if _, err := collectLocs(context.Background(), src, 1); !errors.Is(err, errCount) {
		t.Errorf("page 1 when count fails: %v, want the count error", err)
	}
	if _, err := collectPages(t, src); !errors.Is(err, errCount) {
		t.Errorf("Pages when count fails: %v, want the count error", err)
	}
}

// TestSourcesThroughEncoder builds every page of a source whose page size
// matches the section's: nothing is rejected and every URL is written once.
func TestSourcesThroughEncoder(t *testing.T) {
	for _, kind := range sourceKinds {
		urls := catalogue(23)
		src := kind.make(urls, 5)
		written := 0
		for p, err := range src.Pages(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			var rejected int
			spec := pageSpec{base: testBase, maxURLs: 5, report: func(string, error) { rejected++ }}
			st, err := encodePage(context.Background(), src, p.Number, io.Discard, &spec)
			if err != nil || rejected > 0 {
				t.Fatalf("%s page %d: %v, %d rejected", kind.name, p.Number, err, rejected)
			}
			if kind.name != "FromRange" && !st.newest.Equal(p.LastMod) {
				t.Errorf("%s page %d: newest lastmod written %v, Pages said %v", kind.name, p.Number, st.newest, p.LastMod)
			}
			written += st.urls
		}
		if written != len(urls) {
			t.Errorf("%s: %d URLs written, want %d", kind.name, written, len(urls))
		}
		spec := pageSpec{base: testBase}
		if _, err := encodePage(context.Background(), src, 6, io.Discard, &spec); !errors.Is(err, errEmptyPage) {
			t.Errorf("%s page 6 of 5: %v, want errEmptyPage", kind.name, err)
		}
	}
}

// TestFromSliceRecent: a list Source lists its recent URLs, so a section
// of it has an Atom feed with FeedEntries (it had none, and no word said
// so): the newest first, in slice order among equal ones, those without
// LastMod left out.
func TestFromSliceRecent(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	urls := []URL{
		{Loc: "https://example.com/old", LastMod: at.Add(-time.Hour)},
		{Loc: "https://example.com/none"},
		{Loc: "https://example.com/new", LastMod: at},
		{Loc: "https://example.com/tie", LastMod: at},
		{Loc: "https://example.com/older", LastMod: at.Add(-2 * time.Hour)},
	}
	src := FromSlice(urls, 2)
	rl, ok := src.(RecentLister)
	if !ok {
		t.Fatal("FromSlice's Source does not implement RecentLister")
	}
	var got []string
	for u, err := range rl.Recent(t.Context(), 3) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, u.Loc)
	}
	if want := "https://example.com/new https://example.com/tie https://example.com/old"; strings.Join(got, " ") != want {
		t.Errorf("Recent(3) = %q, want %q", got, want)
	}
	sm := newTestSitemap(t, Config{FeedEntries: 10}, Section{Name: "products", Source: src})
	w := get(sm, "/sitemap-products.atom")
	if w.Code != 200 {
		t.Fatalf("the feed of a FromSlice section: %d", w.Code)
	}
	f := checkAtom(t, w.Body.Bytes(), "https://example.com/sitemap-products.atom")
	if len(f.Entries) != 4 || f.Entries[0].ID != "https://example.com/new" || f.Entries[3].ID != "https://example.com/older" {
		t.Errorf("entries %+v", f.Entries)
	}
}

// TestFeedNoneLogged: FeedEntries with sections whose Source cannot list
// recent URLs is no error (the others have feeds), but New says which
// have none.
func TestFeedNoneLogged(t *testing.T) {
	var logs testkit.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	newTestSitemap(t, Config{FeedEntries: 10, Logger: log},
		Section{Name: "list", Source: FromSlice(numbered(3), 0)},
		Section{Name: "plain", Source: newFake(10, 10)})
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, `sections="\"plain\""`) {
		t.Errorf("log:\n%s\nwant a warning naming section \"plain\" alone", l)
	}
	var off testkit.SyncBuffer
	newTestSitemap(t, Config{Logger: slog.New(slog.NewTextHandler(&off, nil))}, Section{Name: "plain", Source: newFake(10, 10)})
	if l := off.String(); strings.Contains(l, "feed") {
		t.Errorf("feeds off, yet:\n%s", l)
	}
}

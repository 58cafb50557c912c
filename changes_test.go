package sitemap

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// changeLog records the Changes a Sitemap reports.
type changeLog struct {
	mu  sync.Mutex
	all []Change
}

func (l *changeLog) add(c Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, c)
}

func (l *changeLog) take() []Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	all := l.all
	l.all = nil
	return all
}

// TestChangesFromPreviousCopy: a rebuilt page is compared with its
// previous copy: added, changed (lastmod or any other byte) and removed
// URLs, with locations as written (canonical, unescaped).
func TestChangesFromPreviousCopy(t *testing.T) {
	clk := testkit.NewClock(t0)
	src := &mutableSource{}
	a := URL{Loc: "https://example.com/a?x=1&y=2", LastMod: t0.Add(-time.Hour)}
	b := URL{Loc: "https://example.com/b", LastMod: t0.Add(-time.Hour)}
	c := URL{Loc: "https://example.com/c", LastMod: t0.Add(-time.Hour)}
	d := URL{Loc: "https://example.com/d", LastMod: t0.Add(-time.Hour)}
	src.set(a, b, c, d)
	var log changeLog
	sm := newTestSitemap(t, Config{Now: clk.Now, OnChange: log.add}, Section{Name: "p", Source: src})
	get(sm, "/sitemap-p-1.xml")
	if got := log.take(); got != nil {
		t.Fatalf("a first build reported %+v", got)
	}

	// Unchanged: a rebuild reports nothing.
	clk.Add(time.Second)
	if err := sm.Invalidate("p", 1); err != nil {
		t.Fatal(err)
	}
	sm.docs.wg.Wait()
	if got := log.take(); got != nil {
		t.Fatalf("an unchanged rebuild reported %+v", got)
	}

	a2 := a
	a2.LastMod = t0 // lastmod moved
	c2 := c
	c2.ChangeFreq = Daily // another byte of the entry
	e := URL{Loc: "https://example.com/e"}
	src.set(a2, c2, d, e) // b removed, e added
	clk.Add(time.Second)
	if err := sm.Invalidate("p", 1); err != nil {
		t.Fatal(err)
	}
	sm.docs.wg.Wait()
	got := log.take()
	want := Change{Section: "p", Page: 1, Added: []string{"https://example.com/e"},
		Changed: []string{"https://example.com/a?x=1&y=2", "https://example.com/c"}, Removed: []string{"https://example.com/b"}}
	if len(got) != 1 || !sameChange(got[0], want) {
		t.Errorf("changes %+v, want %+v", got, want)
	}
	if e, _ := cachedEntry(sm, pageKey(0, 1)); e == nil || len(e.sums) != 4 || e.cost() != int64(len(e.gz))+4*16 {
		t.Error("the page's URL hashes are not kept, or not counted")
	}
}

func sameChange(a, b Change) bool {
	return a.Section == b.Section && a.Page == b.Page && slices.Equal(a.Added, b.Added) &&
		slices.Equal(a.Changed, b.Changed) && slices.Equal(a.Removed, b.Removed)
}

// TestChangesWithoutPreviousCopy: with no copy to compare with (the cache
// disabled here, as after an eviction), only URLs whose lastmod is newer
// than the page's last known clock count as changed: never the whole page.
// A new process knows no clock and reports nothing.
func TestChangesWithoutPreviousCopy(t *testing.T) {
	clk := testkit.NewClock(t0)
	src := &mutableSource{}
	src.set(URL{Loc: "https://example.com/a", LastMod: t0.Add(-2 * time.Hour)},
		URL{Loc: "https://example.com/b", LastMod: t0.Add(-time.Hour)})
	var log changeLog
	sm := newTestSitemap(t, Config{Now: clk.Now, OnChange: log.add, CacheBytes: -1}, Section{Source: src})
	get(sm, "/sitemap-1.xml")
	if got := log.take(); got != nil {
		t.Fatalf("a first build reported %+v", got)
	}
	src.set(URL{Loc: "https://example.com/a", LastMod: t0}, // newer than the clock
		URL{Loc: "https://example.com/b", LastMod: t0.Add(-time.Hour)},
		URL{Loc: "https://example.com/c"}) // new, but without a lastmod: not guessed
	clk.Add(time.Minute)
	get(sm, "/sitemap-1.xml")
	want := Change{Page: 1, Changed: []string{"https://example.com/a"}}
	if got := log.take(); len(got) != 1 || !sameChange(got[0], want) {
		t.Errorf("changes %+v, want %+v", got, want)
	}

	restarted := newTestSitemap(t, Config{Now: clk.Now, OnChange: log.add}, Section{Source: src})
	get(restarted, "/sitemap-1.xml")
	if got := log.take(); got != nil {
		t.Errorf("a new process reported %+v", got)
	}
}

// TestTrackerOrder: the in-step match, an insertion, a removal, a move and
// trailing removals, compared with what a plain set comparison gives.
func TestTrackerOrder(t *testing.T) {
	entry := func(loc, extra string) []byte { return []byte("<url><loc>" + loc + "</loc>" + extra + "</url>\n") }
	for _, tc := range []struct {
		name                    string
		old, new                []string // "loc" or "loc+" (another byte)
		added, changed, removed []string
	}{
		{"same", []string{"a", "b", "c"}, []string{"a", "b", "c"}, nil, nil, nil},
		{"edited", []string{"a", "b", "c"}, []string{"a", "b+", "c"}, nil, []string{"b"}, nil},
		{"inserted", []string{"a", "c"}, []string{"a", "b", "c+"}, []string{"b"}, []string{"c"}, nil},
		{"removed in the middle", []string{"a", "b", "c"}, []string{"a", "c"}, nil, nil, []string{"b"}},
		{"removed at the end", []string{"a", "b", "c"}, []string{"a"}, nil, nil, []string{"b", "c"}},
		{"moved", []string{"a", "b", "c"}, []string{"c", "a", "b"}, nil, nil, nil},
		{"all new", []string{"a"}, []string{"x", "y"}, []string{"x", "y"}, nil, []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			build := func(list []string) ([]urlSum, []byte) {
				tr := newTracker(nil, time.Time{}, 0)
				var doc []byte
				for _, l := range list {
					loc, extra, _ := strings.Cut(l, "+")
					if strings.HasSuffix(l, "+") {
						extra = "<changefreq>daily</changefreq>"
					}
					e := entry("https://example.com/"+loc, extra)
					tr.visit(e, time.Time{})
					doc = append(doc, e...)
				}
				gz, _, err := compress(1, func(w io.Writer) error { _, err := w.Write(doc); return err })
				if err != nil {
					t.Fatal(err)
				}
				return tr.sums, gz
			}
			prev, prevGz := build(tc.old)
			tr := newTracker(prev, time.Time{}, 0)
			for _, l := range tc.new {
				loc, _, _ := strings.Cut(l, "+")
				extra := ""
				if strings.HasSuffix(l, "+") {
					extra = "<changefreq>daily</changefreq>"
				}
				tr.visit(entry("https://example.com/"+loc, extra), time.Time{})
			}
			removed, err := tr.removed(prevGz)
			if err != nil {
				t.Fatal(err)
			}
			full := func(s []string) []string {
				var out []string
				for _, l := range s {
					out = append(out, "https://example.com/"+l)
				}
				return out
			}
			if !slices.Equal(tr.added, full(tc.added)) || !slices.Equal(tr.changed, full(tc.changed)) || !slices.Equal(removed, full(tc.removed)) {
				t.Errorf("added %v changed %v removed %v; want %v %v %v", tr.added, tr.changed, removed, tc.added, tc.changed, tc.removed)
			}
		})
	}
}

// TestChangesToIndexNow: what a rebuilt page changed, and what the
// application names with Notify, reach the IndexNow endpoint and OnChange;
// a first build sends nothing.
func TestChangesToIndexNow(t *testing.T) {
	var ev events
	ep := newEndpoint(t, &ev, nil)
	clk := testkit.NewClock(t0)
	src := &mutableSource{}
	src.set(URL{Loc: inBase + "a", LastMod: t0.Add(-time.Hour)}, URL{Loc: inBase + "b", LastMod: t0.Add(-time.Hour)})
	var log changeLog
	sm := newTestSitemap(t, Config{BaseURL: inBase, Now: clk.Now, OnChange: log.add,
		IndexNow: &IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: -1}}, Section{Source: src})
	get(sm, "/shop/sitemap-1.xml")
	src.set(URL{Loc: inBase + "a", LastMod: t0}, URL{Loc: inBase + "c"}) // a changed, b removed, c added
	if err := sm.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	sm.docs.wg.Wait()
	sm.Notify(inBase + "elsewhere-on-the-site")
	want := []string{inBase + "a", inBase + "b", inBase + "c", inBase + "elsewhere-on-the-site"}
	waitFor(t, func() bool {
		var got []string
		for _, post := range ep.got() {
			got = append(got, post...)
		}
		slices.Sort(got)
		return slices.Equal(got, want)
	})
	if got := log.take(); len(got) != 2 || got[1].Page != 0 || got[1].Changed[0] != inBase+"elsewhere-on-the-site" {
		t.Errorf("OnChange got %+v", got)
	}
}

// TestSumsOfLikeTracker: the hashes read back from a built page's gzip
// bytes (sumsOf) are those the tracker took as it was built, for entries
// with every extension, text with newlines and markup, and an entry of
// over 64 KiB (1,000 images): so a page whose previous copy came from the
// Store without hashes is compared URL by URL.
func TestSumsOfLikeTracker(t *testing.T) {
	var images []Image
	for i := range 1000 {
		images = append(images, Image{Loc: "https://cdn.example.com/img/" + strings.Repeat("x", 60) + strconv.Itoa(i) + ".jpg"})
	}
	urls := []URL{
		{Loc: "https://example.com/a?x=1&y=2", LastMod: t0, ChangeFreq: Daily},
		{Loc: "https://example.com/b", Images: images},
		{Loc: "https://example.com/c", Alternates: []Alternate{{Hreflang: "de", Href: "https://example.com/de/c"}, {Hreflang: "x-default", Href: "https://example.com/c"}}},
		{Loc: "https://example.com/d", Videos: []Video{{ThumbnailLoc: "https://example.com/t.jpg", Title: "A <title>\nover two lines", Description: "line one\nline two & more", ContentLoc: "https://example.com/v.mp4"}}},
		{Loc: "https://example.com/e", News: &News{PublicationName: "Paper", Language: "en", PublicationDate: t0, Title: "News\nflash"}},
	}
	var log changeLog
	clk := testkit.NewClock(t0.Add(time.Hour))
	sm := newTestSitemap(t, Config{Now: clk.Now, OnChange: log.add}, Section{Source: FromSlice(urls, 1000), Extensions: ExtImage | ExtVideo | ExtNews | ExtAlternates})
	get(sm, "/sitemap-1.xml.gz")
	e, _ := cachedEntry(sm, pageKey(0, 1))
	if e == nil || len(e.sums) != len(urls) {
		t.Fatalf("the page was not built with %d hashes", len(urls))
	}
	got, err := sumsOf(e.gz)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, e.sums) {
		t.Errorf("sumsOf = %x\nthe tracker's %x", got, e.sums)
	}
}

// TestChangesFromStoredCopy: a replica that took a page's copy from the
// Store, which keeps no URL hashes, and then rebuilds the page compares it
// URL by URL all the same (the hashes read back from the copy's bytes):
// the URL edited without a newer lastmod, and the one removed, are
// reported, as the replica that built the copy would report them.
func TestChangesFromStoredCopy(t *testing.T) {
	clk := testkit.NewClock(t0)
	src := &mutableSource{}
	a := URL{Loc: "https://example.com/a", LastMod: t0.Add(-time.Hour)}
	b := URL{Loc: "https://example.com/b", LastMod: t0.Add(-time.Hour)}
	c := URL{Loc: "https://example.com/c", LastMod: t0.Add(-time.Hour)}
	src.set(a, b, c)
	st := newMemStore()
	var logA, logB changeLog
	smA := newTestSitemap(t, Config{Now: clk.Now, Store: st, OnChange: logA.add}, Section{Source: src})
	smB := newTestSitemap(t, Config{Now: clk.Now, Store: st, OnChange: logB.add}, Section{Source: src})
	get(smA, "/sitemap-1.xml.gz")
	get(smB, "/sitemap-1.xml.gz")
	if e, _ := cachedEntry(smB, pageKey(0, 1)); e == nil || e.sums != nil || smB.Stats().Builds != 0 {
		t.Fatal("B did not take A's copy from the Store, without hashes")
	}
	b2 := b
	b2.ChangeFreq = Daily // another byte, the same lastmod
	src.set(a, b2)        // c removed
	clk.Add(time.Second)
	if err := smB.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	get(smB, "/sitemap-1.xml.gz")
	smB.docs.wg.Wait()
	want := Change{Page: 1, Changed: []string{"https://example.com/b"}, Removed: []string{"https://example.com/c"}}
	if got := logB.take(); len(got) != 1 || !sameChange(got[0], want) {
		t.Errorf("B's changes %+v, want %+v", got, want)
	}
}

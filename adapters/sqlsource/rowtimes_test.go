package sqlsource_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// indexNowEndpoint is a local IndexNow endpoint that records each URL
// posted to it, with the time it came.
type indexNowEndpoint struct {
	*httptest.Server
	mu   sync.Mutex
	urls []string
	at   map[string][]time.Time
}

func newIndexNowEndpoint(t testing.TB) *indexNowEndpoint {
	e := &indexNowEndpoint{at: map[string][]time.Time{}}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Host    string   `json:"host"`
			Key     string   `json:"key"`
			URLList []string `json:"urlList"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.Method != http.MethodPost || body.Key == "" {
			t.Errorf("IndexNow endpoint: %s with %v", r.Method, err)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		now := time.Now()
		e.mu.Lock()
		e.urls = append(e.urls, body.URLList...)
		for _, u := range body.URLList {
			e.at[u] = append(e.at[u], now)
		}
		e.mu.Unlock()
	}))
	t.Cleanup(e.Close)
	return e
}

// received returns the URLs posted so far, in order.
func (e *indexNowEndpoint) received() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.urls)
}

// firstAt returns when url was first posted, and whether it was.
func (e *indexNowEndpoint) firstAt(url string) (time.Time, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ts := e.at[url]; len(ts) > 0 {
		return ts[0], true
	}
	return time.Time{}, false
}

// indexNowTo sets a Sitemap's IndexNow to post to e at once.
func indexNowTo(e *indexNowEndpoint) func(*sitemap.Config) {
	return func(c *sitemap.Config) {
		c.IndexNow = &sitemap.IndexNow{Key: "sqlsource-watch", Endpoints: []string{e.URL}, Delay: -1}
	}
}

// pageLastMods parses a page: loc → its <lastmod>.
func pageLastMods(t *testing.T, doc []byte) map[string]time.Time {
	t.Helper()
	var set struct {
		URLs []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(doc, &set); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	m := map[string]time.Time{}
	for _, u := range set.URLs {
		lm, err := time.Parse(time.RFC3339, u.LastMod)
		if err != nil {
			t.Fatalf("%s: <lastmod> %q: %v", u.Loc, u.LastMod, err)
		}
		m[u.Loc] = lm
	}
	return m
}

// significantSite is a freshSite whose summary counts changes to the slug
// and the filter's columns only, watched (by notification on PostgreSQL,
// by polling every 100 ms elsewhere), and which posts its changes to a
// local IndexNow endpoint.
func significantSite(t *testing.T, d *testDB) (*freshSite, *recorder, *indexNowEndpoint) {
	t.Helper()
	ep := newIndexNowEndpoint(t)
	f := newFreshSiteWith(t, d, nil, func(cfg *sqlsource.Config) {
		cfg.Summary, cfg.Significant = true, []string{"slug", "published", "noindex"}
		cfg.WatchInterval = watchEvery(d)
	}, indexNowTo(ep))
	return f, &recorder{inv: f.sm, tick: f.realTime()}, ep
}

// TestRowTimes commits, with no call of the application's, an update of
// updated_at alone (a column the summary does not count) to every row of
// pages 2 and 3, then a new slug for product 12 on page 2. Page 2 is
// rebuilt and changes in product 12's entry alone: the other rows keep
// their lastmod, the row time the triggers kept, though their updated_at
// moved, and product 12's lastmod moves to the commit's time. Page 3 keeps
// its bytes, ETag, Last-Modified and lastmod in the index, and is never
// told; IndexNow receives product 12's new URL and its old one, once each, and
// nothing else.
func TestRowTimes(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f, rec, ep := significantSite(t, d)
		before := f.crawlAll(t)
		watch(t, f.src, rec)

		start := time.Now().UTC().Truncate(time.Second)
		f.exec(t, "UPDATE products SET updated_at = ? WHERE id >= 10 AND id <= 29", f.c.timeArg(t0.AddDate(0, 1, 0)))
		f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
		after := f.pollChange(t, 2, before)
		f.checkOnlyChanged(t, 2, before, after)

		old, now := pageLastMods(t, before.pages[2].body), pageLastMods(t, after.pages[2].body)
		if len(now) != len(old) {
			t.Fatalf("page 2 lists %d URLs, before %d", len(now), len(old))
		}
		for id := int64(10); id <= 19; id++ {
			loc, was := productLoc(id), t0.Add(time.Duration(id)*time.Minute)
			if id == 12 {
				if lm := now[base+"renamed-12"]; lm.Before(start) || lm.After(time.Now().Add(time.Second)) {
					t.Errorf("product 12's lastmod is %v; want the time of its commit, %v or later", lm, start)
				}
				continue
			}
			if !now[loc].Equal(was) {
				t.Errorf("%s: lastmod %v; want %v, since only updated_at changed", loc, now[loc], was)
			}
		}
		for _, p := range []int64{1, 3, 4} {
			if rec.told(p) {
				t.Errorf("page %d was told, but no significant column of it changed", p)
			}
		}
		// The new URL was added and the old one removed: both are posted.
		want := []string{base + "renamed-12", productLoc(12)}
		poll(t, "IndexNow to receive product 12's URLs", func() bool { return len(ep.received()) >= len(want) })
		time.Sleep(100 * time.Millisecond) // time for a wrong second post to come
		if got := ep.received(); !slices.Equal(got, want) {
			t.Errorf("IndexNow received %q; want %q, once each", got, want)
		}
	})
}

// TestRowTimesApplied checks each write Watch applies to the row times,
// on each database, through the URLs of a Source: an update of
// updated_at alone keeps a lastmod, even to NULL, and keeps a row without
// one without; an insert, a new slug and a new key take the commit's
// time; a delete and a new key leave no row time behind.
func TestRowTimesApplied(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(ids(1, 9)...)
		ps[6].Updated = time.Time{} // product 7 has no lastmod
		c := d.createCatalogue(t, ps)
		cfg := c.config(100)
		cfg.Summary, cfg.Significant = true, []string{"slug"}
		src := newSource(t, d.db, cfg)
		installSummary(t, src)

		start := time.Now().UTC().Truncate(time.Second)
		later := c.timeArg(t0.AddDate(0, 1, 0))
		d.exec(t, "UPDATE "+c.products+" SET updated_at = NULL WHERE id = 5")
		d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id = 5", later) // recorded once: stays
		d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id = 7", later)
		d.exec(t, "UPDATE "+c.products+" SET updated_at = updated_at, noindex = noindex WHERE id = 6")
		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-3' WHERE id = 3")
		d.exec(t, "UPDATE "+c.products+" SET id = 40 WHERE id = 8")
		d.exec(t, "DELETE FROM "+c.products+" WHERE id = 9")
		c.insert(t, product{ID: 50, Slug: "item-50", Updated: t0, Published: true})
		end := time.Now().Add(time.Second)
		if n := d.changeRows(t, c.products); n != 5 {
			t.Errorf("%d changes recorded; want 5: the new slug, the new key (two), the delete, the insert", n)
		}
		cfg.WatchInterval = 50 * time.Millisecond
		watch(t, newSource(t, d.db, cfg), &recorder{})
		poll(t, "the changes applied", func() bool { return d.changeRows(t, c.products) == 0 })

		urls, err := readPage(context.Background(), src, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]time.Time{}
		for _, u := range urls {
			got[u.Loc] = u.LastMod
		}
		now := func(loc string) {
			if lm := got[loc]; lm.Before(start) || lm.After(end) {
				t.Errorf("%s: lastmod %v; want the time of its write, from %v", loc, lm, start)
			}
		}
		for _, id := range []int64{1, 2, 4, 5, 6} {
			if want := t0.Add(time.Duration(id) * time.Minute); !got[productLoc(id)].Equal(want) {
				t.Errorf("product %d: lastmod %v; want %v", id, got[productLoc(id)], want)
			}
		}
		if lm, ok := got[productLoc(7)]; !ok || !lm.IsZero() {
			t.Errorf("product 7: lastmod %v (listed %v); want none, as before updated_at was set", lm, ok)
		}
		now(base + "renamed-3")
		now(productLoc(8)) // now key 40
		now(productLoc(50))
		if _, ok := got[productLoc(9)]; ok || len(got) != 9 {
			t.Errorf("page 1 lists %d URLs: %v; want 9, without product 9", len(got), got)
		}
		var n int
		if err := d.db.QueryRow("SELECT COUNT(*) FROM " + c.products + "_sitemap_rows WHERE sitemap_key IN (8, 9)").Scan(&n); err != nil || n != 0 {
			t.Errorf("%d row times for the keys 8 and 9 (%v); want none: they are gone", n, err)
		}
	})
}

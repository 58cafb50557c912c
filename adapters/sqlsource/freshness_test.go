package sqlsource_test

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testkit"
)

// The tests of freshness serve a catalogue through sitemap.New and a real
// HTTP server, change rows behind it, and check what a crawler that
// remembers validators is told: the content clock (Last-Modified and the
// index's <lastmod>) never moves back, moves forward when a file's bytes
// change, and a conditional request is 304 only for the bytes it has.

const (
	freshTTL   = 10 * time.Minute
	freshPages = 4 // keys 1-9, 10-19, 20-29 and 30-35
	pollFor    = 5 * time.Second
)

// fakeClock is the Sitemap's Config.Now.
type fakeClock struct{ *testkit.Clock }

func (c fakeClock) advance(d time.Duration) { c.Add(d) }

// expire moves the clock past the TTL of everything built so far.
func (c fakeClock) expire() { c.advance(freshTTL + time.Minute) }

// freshSite is a catalogue of 35 published products (ids 1 to 35, updated
// at t0 plus id minutes) in pages of 10 keys, served by a Sitemap with a
// fake clock, a year after the newest lastmod, and a TTL.
type freshSite struct {
	d     *testDB
	c     *catalogue
	src   *sqlsource.Source
	sm    *sitemap.Sitemap
	srv   *httptest.Server
	clock fakeClock
}

// newFreshSite makes a freshSite on d, its Source wrapped by wrap if set.
// With summary set, the Source reads a page summary, installed here.
func newFreshSite(t *testing.T, d *testDB, wrap func(*sqlsource.Source) sitemap.Source, summary ...bool) *freshSite {
	t.Helper()
	return newFreshSiteWith(t, d, wrap, func(cfg *sqlsource.Config) { cfg.Summary = len(summary) > 0 && summary[0] }, nil)
}

// newFreshSiteWith makes a freshSite on d whose Source's configuration
// is changed by conf and the Sitemap's by smConf, if set.
func newFreshSiteWith(t *testing.T, d *testDB, wrap func(*sqlsource.Source) sitemap.Source,
	conf func(*sqlsource.Config), smConf func(*sitemap.Config)) *freshSite {
	t.Helper()
	f := &freshSite{d: d, clock: fakeClock{testkit.NewClock(t0.AddDate(1, 0, 0))}}
	f.c = d.createCatalogue(t, products(ids(1, 35)...))
	cfg := f.c.config(10)
	if conf != nil {
		conf(&cfg)
	}
	f.src = newSource(t, d.db, cfg)
	if cfg.Summary {
		installSummary(t, f.src)
	}
	var src sitemap.Source = f.src
	if wrap != nil {
		src = wrap(f.src)
	}
	smCfg := sitemap.Config{
		BaseURL:   "https://shop.example.com",
		TTL:       freshTTL,
		Now:       f.clock.Now,
		ClockFile: keptClockFile(t, t0.Add(-time.Hour)),
		OnReject: func(section string, page int64, loc string, err error) {
			t.Errorf("rejected %s page %d %s: %v", section, page, loc, err)
		},
	}
	if smConf != nil {
		smConf(&smCfg)
	}
	sm, err := sitemap.New(smCfg, sitemap.Section{Name: "products", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	f.sm = sm
	f.srv = httptest.NewServer(sm)
	t.Cleanup(func() {
		f.srv.Close()
		sm.Close() // before the table is dropped: it waits for background builds
	})
	return f
}

// exec runs a statement on the catalogue's product table, written with
// "products" for its name and ? for its arguments.
func (f *freshSite) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	f.d.exec(t, strings.ReplaceAll(query, "products", f.c.products), args...)
}

const indexPath = "/sitemap_index.xml"

func pagePath(n int64) string { return fmt.Sprintf("/sitemap-products-%d.xml.gz", n) }

// reply is one response, as a crawler keeps it.
type reply struct {
	status  int
	etag    string
	lastMod time.Time // zero if none
	body    []byte    // the XML, gunzipped for a .xml.gz file
}

// get fetches path with the request headers given as name, value pairs.
func (f *freshSite) get(t *testing.T, path string, header ...string) reply {
	t.Helper()
	r := f.getOnce(t, path, header...)
	if r.status == http.StatusOK && r.lastMod.IsZero() {
		// A clock ahead of the Date (a second change within one second)
		// is not sent until the Date reaches it: let the clock get there.
		// On real time (a site whose Config.Now is nil), wait for it: a
		// fresh process's first clocks, its floor, are up to two seconds
		// ahead.
		f.clock.advance(time.Second)
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if r = f.getOnce(t, path, header...); r.status != http.StatusOK || !r.lastMod.IsZero() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: no Last-Modified", path)
			}
		}
	}
	return r
}

// getOnce is get without its second look for a Last-Modified.
func (f *freshSite) getOnce(t *testing.T, path string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := reply{status: resp.StatusCode, etag: resp.Header.Get("ETag")}
	if lm := resp.Header.Get("Last-Modified"); lm != "" {
		if r.lastMod, err = http.ParseTime(lm); err != nil {
			t.Fatalf("GET %s: Last-Modified %q: %v", path, lm, err)
		}
	}
	switch {
	case r.status != http.StatusOK && r.status != http.StatusNotModified:
		t.Fatalf("GET %s: %s: %s", path, resp.Status, body)
	case r.status == http.StatusOK && r.etag == "":
		t.Fatalf("GET %s: no ETag", path)
	case r.status == http.StatusOK && strings.HasSuffix(path, ".gz"):
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if body, err = io.ReadAll(z); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	r.body = body
	return r
}

// ifModifiedSince and ifNoneMatch are conditional GETs of what r was.
func (f *freshSite) ifModifiedSince(t *testing.T, path string, r reply) reply {
	t.Helper()
	return f.get(t, path, "If-Modified-Since", r.lastMod.Format(http.TimeFormat))
}

func (f *freshSite) ifNoneMatch(t *testing.T, path string, r reply) reply {
	t.Helper()
	return f.get(t, path, "If-None-Match", r.etag)
}

// indexLastMods parses an index: page number → its <lastmod>.
func indexLastMods(t *testing.T, doc []byte) map[int64]time.Time {
	t.Helper()
	var idx struct {
		Sitemaps []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"sitemap"`
	}
	if err := xml.Unmarshal(doc, &idx); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	m := map[int64]time.Time{}
	for _, s := range idx.Sitemaps {
		var n int64
		if _, err := fmt.Sscanf(s.Loc, "https://shop.example.com/sitemap-products-%d.xml.gz", &n); err != nil {
			t.Fatalf("index lists %s: %v", s.Loc, err)
		}
		if s.LastMod == "" {
			t.Fatalf("index lists %s with no <lastmod>", s.Loc)
		}
		lm, err := time.Parse(time.RFC3339, s.LastMod)
		if err != nil {
			t.Fatalf("index lists %s with <lastmod> %q: %v", s.Loc, s.LastMod, err)
		}
		m[n] = lm
	}
	return m
}

// crawl is what a crawler holds after fetching the index and every file.
type crawl struct {
	index    reply
	lastMods map[int64]time.Time // the index's, by page
	pages    map[int64]reply
}

// crawlAll fetches the index and every page it lists, until the index's
// lastmods and the pages' Last-Modified agree (at most 10 s): a page whose
// clock moved when it was built (clock.go) outdates the index, whose next
// build lists the page's clock; a crawl made in between sees them differ
// for that moment (TestWatchReconnect/mysql did once, under -race in CI).
func (f *freshSite) crawlAll(t *testing.T) crawl {
	t.Helper()
	var c crawl
	var differ []string
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		c = crawl{index: f.get(t, indexPath), pages: map[int64]reply{}}
		c.lastMods = indexLastMods(t, c.index.body)
		differ = differ[:0]
		for n := range c.lastMods {
			p := f.get(t, pagePath(n))
			if !p.lastMod.Equal(c.lastMods[n]) {
				differ = append(differ, fmt.Sprintf("page %d: Last-Modified %v, but the index says %v", n, p.lastMod, c.lastMods[n]))
			}
			c.pages[n] = p
		}
		if len(differ) == 0 || time.Since(start) > 10*time.Second {
			break
		}
	}
	for _, d := range differ {
		t.Error(d)
	}
	return c
}

// poll calls cond until it reports true, failing t after pollFor. It is
// how a test waits for background work, which has no other signal.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(pollFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v for %s", pollFor, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pollPage requests page n until its ETag is not old's (each request may
// start the background rebuild of a stale copy), and returns the reply.
func (f *freshSite) pollPage(t *testing.T, n int64, old reply) reply {
	t.Helper()
	var r reply
	poll(t, fmt.Sprintf("page %d to change", n), func() bool {
		r = f.get(t, pagePath(n))
		return r.etag != old.etag
	})
	return r
}

// pollIndex requests the index until it lists page n with a <lastmod>
// after old's, and returns the reply and its lastmods.
func (f *freshSite) pollIndex(t *testing.T, n int64, old crawl) (reply, map[int64]time.Time) {
	t.Helper()
	var r reply
	var lms map[int64]time.Time
	poll(t, fmt.Sprintf("the index to move page %d's lastmod past %v", n, old.lastMods[n]), func() bool {
		r = f.get(t, indexPath)
		lms = indexLastMods(t, r.body)
		return lms[n].After(old.lastMods[n])
	})
	return r, lms
}

// checkOnlyChanged checks that after, a crawl made once page n changed,
// differs from before in page n and the index, and in nothing else: the
// other pages keep their bytes, ETag and Last-Modified, their lastmod in
// the index, and answer 304 to both validators of before.
func (f *freshSite) checkOnlyChanged(t *testing.T, n int64, before, after crawl) {
	t.Helper()
	if len(after.lastMods) != len(before.lastMods) {
		t.Errorf("the index lists %d pages, before %d", len(after.lastMods), len(before.lastMods))
	}
	for p, old := range before.pages {
		now, lm := after.pages[p], after.lastMods[p]
		if p == n {
			if r := f.ifNoneMatch(t, pagePath(p), old); r.status != http.StatusOK {
				t.Errorf("page %d, If-None-Match its old ETag: %d, want 200", p, r.status)
			}
			if r := f.ifModifiedSince(t, pagePath(p), old); r.status != http.StatusOK {
				t.Errorf("page %d, If-Modified-Since its old Last-Modified: %d, want 200", p, r.status)
			}
			if now.etag == old.etag || bytes.Equal(now.body, old.body) {
				t.Errorf("page %d: same ETag %s or bytes as before it changed", p, now.etag)
			}
			if !now.lastMod.After(old.lastMod) || !lm.After(before.lastMods[p]) {
				t.Errorf("page %d changed but its clock did not move forward: Last-Modified %v → %v, index lastmod %v → %v",
					p, old.lastMod, now.lastMod, before.lastMods[p], lm)
			}
			if !now.lastMod.Equal(lm) {
				t.Errorf("page %d: Last-Modified %v, but the index says %v", p, now.lastMod, lm)
			}
			continue
		}
		if now.etag != old.etag || !now.lastMod.Equal(old.lastMod) || !bytes.Equal(now.body, old.body) {
			t.Errorf("page %d changed (ETag %s → %s, Last-Modified %v → %v), but only page %d should have",
				p, old.etag, now.etag, old.lastMod, now.lastMod, n)
		}
		if !lm.Equal(before.lastMods[p]) {
			t.Errorf("the index's lastmod of page %d moved from %v to %v, but only page %d changed", p, before.lastMods[p], lm, n)
		}
		if r := f.ifNoneMatch(t, pagePath(p), old); r.status != http.StatusNotModified {
			t.Errorf("page %d, If-None-Match its old ETag: %d, want 304", p, r.status)
		}
		if r := f.ifModifiedSince(t, pagePath(p), old); r.status != http.StatusNotModified {
			t.Errorf("page %d, If-Modified-Since its old Last-Modified: %d, want 304", p, r.status)
		}
	}
	if after.index.etag == before.index.etag {
		t.Errorf("the index kept its ETag %s after page %d changed", after.index.etag, n)
	}
	if !after.index.lastMod.After(before.index.lastMod) {
		t.Errorf("the index changed, but its Last-Modified went from %v to %v; want later", before.index.lastMod, after.index.lastMod)
	}
	if r := f.ifNoneMatch(t, indexPath, before.index); r.status != http.StatusOK {
		t.Errorf("the index, If-None-Match its old ETag: %d, want 200", r.status)
	}
	if r := f.ifModifiedSince(t, indexPath, before.index); r.status != http.StatusOK {
		t.Errorf("the index, If-Modified-Since its old Last-Modified: %d, want 200", r.status)
	}
}

// checkNotModified checks that every file of c, the index and each page,
// answers 304 to each of its validators, and gives the same ETag.
func (f *freshSite) checkNotModified(t *testing.T, c crawl) {
	t.Helper()
	files := map[string]reply{indexPath: c.index}
	for n, p := range c.pages {
		files[pagePath(n)] = p
	}
	for path, old := range files {
		for name, r := range map[string]reply{
			"If-None-Match":     f.ifNoneMatch(t, path, old),
			"If-Modified-Since": f.ifModifiedSince(t, path, old),
		} {
			if r.status != http.StatusNotModified || r.etag != old.etag {
				t.Errorf("%s, %s: %d with ETag %s; want 304 with %s", path, name, r.status, r.etag, old.etag)
			}
		}
	}
}

// pollChange re-crawls, as a crawler would, until page n has new bytes
// and the index lists it with a later lastmod, then returns a full crawl.
func (f *freshSite) pollChange(t *testing.T, n int64, before crawl) crawl {
	t.Helper()
	poll(t, fmt.Sprintf("page %d and its lastmod in the index to change", n), func() bool {
		lms := indexLastMods(t, f.get(t, indexPath).body)
		p := f.get(t, pagePath(n))
		return p.etag != before.pages[n].etag && lms[n].After(before.lastMods[n]) && p.lastMod.Equal(lms[n])
	})
	return f.crawlAll(t)
}

// hasLoc reports whether an XML document lists loc.
func hasLoc(doc []byte, loc string) bool {
	return bytes.Contains(doc, []byte("<loc>"+loc+"</loc>"))
}

func productLoc(id int64) string { return fmt.Sprintf("%sitem-%d", base, id) }

// keptClockFile returns the path of a clock file kept since since, as a
// site that has had one since then has: a clock given after since is in
// it, so a file with none takes its newest lastmod (sitemap's clock.go,
// rule 3).
func keptClockFile(t *testing.T, since time.Time) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clocks")
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", ClockFile: path, Now: func() time.Time { return since }},
		sitemap.Section{Name: "products", Source: sitemap.FromSlice(nil, 0)})
	if err != nil {
		t.Fatal(err)
	}
	sm.Close()
	return path
}

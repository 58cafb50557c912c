package sitemap

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// testSite is one of the three sites of newTestSites.
type testSite struct {
	host  string // as a request names it
	base  string
	index string // the index's path
	page  string // page 1's path
	urls  []string
	sm    *Sitemap
}

// siteApp is the application behind the Sites: it counts what it gets and
// has a robots.txt of its own.
type siteApp struct {
	n atomic.Int64
}

func (a *siteApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.n.Add(1)
	if r.URL.Path == "/robots.txt" {
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		return
	}
	io.WriteString(w, "app")
}

// newTestSites makes a.example, b.example:8443 and c.example/shop, each
// with URLs of its own, a lastmod and a clock of its own.
func newTestSites(t *testing.T) ([]*testSite, *Sites) {
	t.Helper()
	sites := []*testSite{
		{host: "a.example", base: "https://a.example/", index: "/sitemap_index.xml", page: "/sitemap-1.xml",
			urls: []string{"https://a.example/a1", "https://a.example/a2"}},
		{host: "b.example:8443", base: "https://b.example:8443/", index: "/sitemap_index.xml", page: "/sitemap-1.xml",
			urls: []string{"https://b.example:8443/b1"}},
		{host: "c.example", base: "https://c.example/shop/", index: "/shop/sitemap_index.xml", page: "/shop/sitemap-1.xml",
			urls: []string{"https://c.example/shop/c1", "https://c.example/shop/c2"}},
	}
	var sms []*Sitemap
	for i, s := range sites {
		var urls []URL
		for _, loc := range s.urls {
			urls = append(urls, URL{Loc: loc, LastMod: day(2024, 1, 1+i)})
		}
		clk := testkit.NewClock(testNow.Add(time.Duration(i) * time.Hour))
		s.sm = newTestSitemap(t, Config{BaseURL: s.base, Now: clk.Now}, Section{Source: FromSlice(urls, 0)})
		clk.Add(floorAhead) // at the floor of its start: served as Last-Modified
		sms = append(sms, s.sm)
	}
	ss, err := NewSites(sms...)
	if err != nil {
		t.Fatal(err)
	}
	return sites, ss
}

// hostGet sends GET path with r.Host set to host (the Host header).
func hostGet(h http.Handler, host, path string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// owner returns the site whose URLs or Sitemap: line body names, "app"
// for a body naming none, or "mixed".
func owner(sites []*testSite, body string) string {
	found := ""
	for _, s := range sites {
		if strings.Contains(body, s.base) {
			if found != "" {
				return "mixed"
			}
			found = s.host
		}
	}
	if found == "" {
		return "app"
	}
	return found
}

func TestSitesRouting(t *testing.T) {
	sites, ss := newTestSites(t)
	app := &siteApp{}
	h := ss.Handler(app)
	for _, s := range sites {
		robots := hostGet(h, s.host, "/robots.txt").Body.String()
		if want := "Disallow: /private\nSitemap: " + s.base + "sitemap_index.xml\n"; !strings.HasSuffix(robots, want) {
			t.Errorf("%s: robots.txt = %q, want it to end %q", s.host, robots, want)
		}
		for _, path := range []string{s.index, s.page} {
			w := hostGet(h, s.host, path)
			if w.Code != http.StatusOK || owner(sites, w.Body.String()) != s.host {
				t.Errorf("%s%s: %d, owner %s:\n%s", s.host, path, w.Code, owner(sites, w.Body.String()), w.Body)
			}
		}
		page := hostGet(h, s.host, s.page).Body.String()
		for _, u := range s.urls {
			if !strings.Contains(page, "<loc>"+u+"</loc>") {
				t.Errorf("%s: page 1 lacks %s", s.host, u)
			}
		}
		if w := hostGet(h, s.host, "/about"); w.Body.String() != "app" {
			t.Errorf("%s/about: %q, want the app's", s.host, w.Body)
		}
	}
	// c's files live under /shop/: at the root they are the app's.
	if w := hostGet(h, "c.example", "/sitemap_index.xml"); w.Body.String() != "app" {
		t.Errorf("c.example/sitemap_index.xml: %q, want the app's", w.Body)
	}
}

func TestSitesHostVariants(t *testing.T) {
	sites, ss := newTestSites(t)
	h := ss.Handler(&siteApp{})
	for host, want := range map[string]string{ // request host → the site whose robots.txt it gets
		"a.example":                "a.example",
		"A.EXAMPLE":                "a.example",
		"a.Example":                "a.example",
		"a.example:443":            "a.example", // https's default port
		"a.example.":               "a.example",
		"A.EXAMPLE.:443":           "a.example",
		"a.example:":               "a.example", // an empty port is the default
		"a.example:80":             "app",       // not the port of https://a.example
		"a.example:0443":           "app",       // not canonical
		"a.example:99999":          "app",
		"a.example..":              "app",
		".a.example":               "app",
		"a.example:443:1":          "app",
		"b.example":                "app", // its base has port 8443
		"b.example:443":            "app",
		"b.example:8443":           "b.example:8443",
		"B.Example.:8443":          "b.example:8443",
		"c.example":                "c.example",
		"c.example:443":            "c.example",
		"c.example/shop":           "app",
		"ａ.example":                "app", // fullwidth a: Unicode is never converted
		"evil.example":             "app",
		"a.example.evil":           "app",
		"":                         "app",
		"[::1]":                    "app",
		"a.example@b.example:8443": "app",
	} {
		if got := owner(sites, hostGet(h, host, "/robots.txt").Body.String()); got != want {
			t.Errorf("Host %q: robots.txt of %s, want %s", host, got, want)
		}
	}
}

func TestNewSitesErrors(t *testing.T) {
	sm := func(base string) *Sitemap {
		return newTestSitemap(t, Config{BaseURL: base}, Section{Source: newFake(1, 1)})
	}
	a := sm("https://a.example")
	if _, err := NewSites(a, sm("https://a.example:8443"), sm("http://a.example:8080")); err != nil {
		t.Errorf("other ports: %v", err)
	}
	for name, list := range map[string][]*Sitemap{
		"none":                  nil,
		"nil":                   {a, nil},
		"twice":                 {a, a},
		"same host":             {a, sm("https://A.example/other/")},
		"http and https":        {a, sm("http://a.example")},
		"explicit default port": {a, sm("https://a.example:443/x/")},
		"443 over http":         {a, sm("http://a.example:443")},
		"bücher":                {sm("https://bücher.example"), sm("https://xn--bcher-kva.example")},
	} {
		if _, err := NewSites(list...); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

// TestSitesPoisoning sends requests that try to reach a Sitemap through a
// host not in the set: none may reach one, so no Sitemap's counters move,
// and the application gets every one of them.
func TestSitesPoisoning(t *testing.T) {
	sites, ss := newTestSites(t)
	app := &siteApp{}
	h := ss.Handler(app)
	before := make([]Stats, len(sites))
	for i, s := range sites {
		before[i] = s.sm.Stats()
	}
	paths := []string{"/robots.txt", "/sitemap_index.xml", "/sitemap-1.xml", "/sitemap-1.xml.gz", "/shop/sitemap_index.xml", "/shop/sitemap-1.xml.gz", "/sitemap-1.txt"}
	var reqs []*http.Request
	add := func(r *http.Request) { reqs = append(reqs, r) }
	for _, p := range paths {
		r := httptest.NewRequest(http.MethodGet, p, nil)
		r.Host = "evil.example"
		r.Header.Set("X-Forwarded-Host", "a.example")
		r.Header.Set("Forwarded", "host=b.example:8443")
		add(r)
		add(httptest.NewRequest(http.MethodGet, "http://evil.example"+p, nil)) // absolute request line
		add(httptest.NewRequest(http.MethodGet, "https://b.example"+p, nil))   // b without its port
		add(httptest.NewRequest(http.MethodGet, "https://a.example:8443"+p, nil))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		label := make([]byte, 1+rng.IntN(20))
		for i := range label {
			label[i] = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-"[rng.IntN(43)]
		}
		host := string(label) + [...]string{".test", ".a.example", ".example", ".invalid."}[rng.IntN(4)]
		if rng.IntN(2) == 0 {
			host += fmt.Sprintf(":%d", rng.IntN(70000))
		}
		r := httptest.NewRequest(http.MethodGet, paths[rng.IntN(len(paths))], nil)
		r.Host = host
		r.Header.Set("X-Forwarded-Host", sites[rng.IntN(len(sites))].host)
		add(r)
	}
	for _, r := range reqs {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if body := w.Body.String(); owner(sites, body) != "app" || strings.Contains(body, "Sitemap:") {
			t.Fatalf("Host %q %s: got a sitemap's answer:\n%s", r.Host, r.URL.Path, body)
		}
	}
	if got := app.n.Load(); got != int64(len(reqs)) {
		t.Errorf("app got %d of %d requests", got, len(reqs))
	}
	// X-Forwarded-Host never moves a listed host's request elsewhere.
	if w := hostGet(h, "a.example", "/sitemap-1.xml", "X-Forwarded-Host", "b.example:8443"); owner(sites, w.Body.String()) != "a.example" {
		t.Errorf("a.example with X-Forwarded-Host b.example: served %s", owner(sites, w.Body.String()))
	}
	before[0] = sites[0].sm.Stats() // a's own request above counts for a only
	for i, s := range sites {
		if got := s.sm.Stats(); got != before[i] {
			t.Errorf("%s: Stats moved:\n%+v\nwas\n%+v", s.host, got, before[i])
		}
	}
}

// TestSitesCacheIsolation: a page cached for one host is never served for
// another, and each has its own validators.
func TestSitesCacheIsolation(t *testing.T) {
	sites, ss := newTestSites(t)
	h := ss.Handler(&siteApp{})
	a, b := sites[0], sites[1]
	wa := hostGet(h, a.host, "/sitemap-1.xml")
	wb := hostGet(h, b.host, "/sitemap-1.xml") // the same path, after a's page is cached
	if owner(sites, wa.Body.String()) != a.host || owner(sites, wb.Body.String()) != b.host {
		t.Fatalf("owners %s, %s", owner(sites, wa.Body.String()), owner(sites, wb.Body.String()))
	}
	ea, eb := wa.Header().Get("ETag"), wb.Header().Get("ETag")
	la, lb := wa.Header().Get("Last-Modified"), wb.Header().Get("Last-Modified")
	if ea == "" || ea == eb || la == "" || la == lb {
		t.Errorf("validators not their own: ETag %s, %s; Last-Modified %s, %s", ea, eb, la, lb)
	}
	if want := testNow.Add(time.Hour + 2*time.Second).Format(http.TimeFormat); lb != want {
		t.Errorf("b's Last-Modified = %s, want two seconds after its own start %s", lb, want)
	}
	// a's validators mean nothing to b, and b's to a.
	if w := hostGet(h, b.host, "/sitemap-1.xml", "If-None-Match", ea); w.Code != http.StatusOK {
		t.Errorf("b with a's ETag: %d, want 200", w.Code)
	}
	if w := hostGet(h, a.host, "/sitemap-1.xml", "If-None-Match", eb); w.Code != http.StatusOK {
		t.Errorf("a with b's ETag: %d, want 200", w.Code)
	}
	if w := hostGet(h, a.host, "/sitemap-1.xml", "If-None-Match", ea); w.Code != http.StatusNotModified {
		t.Errorf("a with its own ETag: %d, want 304", w.Code)
	}
	for _, s := range sites[:2] {
		if st := s.sm.Stats(); st.Builds != 2 || st.CacheMisses != 1 { // the index, then page 1, once
			t.Errorf("%s: %d builds, %d misses; want 2 and 1", s.host, st.Builds, st.CacheMisses)
		}
	}
	if st := sites[2].sm.Stats(); st != (Stats{}) {
		t.Errorf("c.example, never asked: %+v", st)
	}
}

func TestSitesServeHTTP(t *testing.T) {
	sites, ss := newTestSites(t)
	for _, s := range sites {
		if w := hostGet(ss, s.host, s.index); w.Code != http.StatusOK || owner(sites, w.Body.String()) != s.host {
			t.Errorf("%s%s: %d, owner %s", s.host, s.index, w.Code, owner(sites, w.Body.String()))
		}
		if w := hostGet(ss, s.host, "/about"); w.Code != http.StatusNotFound {
			t.Errorf("%s/about: %d, want 404", s.host, w.Code)
		}
	}
	before := sites[0].sm.Stats()
	for _, host := range []string{"evil.example", "b.example", "a.example:80", ""} {
		for _, p := range []string{"/sitemap_index.xml", "/robots.txt"} {
			if w := hostGet(ss, host, p); w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), "example") {
				t.Errorf("Host %q %s: %d %q, want a plain 404", host, p, w.Code, w.Body)
			}
		}
	}
	if got := sites[0].sm.Stats(); got != before {
		t.Errorf("an unknown host moved a's Stats")
	}
}

// TestSitesConcurrent sends requests for every host at once over the wire
// (the Host header as a client sends it); run with -race.
func TestSitesConcurrent(t *testing.T) {
	sites, ss := newTestSites(t)
	app := &siteApp{}
	srv := httptest.NewServer(ss.Handler(app))
	defer srv.Close()
	var wg sync.WaitGroup
	hosts := append([]*testSite{{host: "evil.example", index: "/sitemap_index.xml", page: "/sitemap-1.xml"}}, sites...)
	for g := range 16 {
		wg.Go(func() {
			for i := range 20 {
				s := hosts[(g+i)%len(hosts)]
				path := [...]string{s.index, s.page, "/robots.txt"}[i%3]
				req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				req.Host = s.host
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := s.host
				if s.sm == nil {
					want = "app"
				}
				if got := owner(sites, string(body)); got != want {
					t.Errorf("Host %s %s: %s's answer", s.host, path, got)
				}
			}
		})
	}
	wg.Wait()
	for _, s := range sites {
		if st := s.sm.Stats(); st.Builds != 2 { // the index and page 1, each built once however many asked
			t.Errorf("%s: %d builds, want 2", s.host, st.Builds)
		}
	}
}

// TestSitesPassThroughAllocs: an unknown host costs the application's
// requests no allocation.
func TestSitesPassThroughAllocs(t *testing.T) {
	_, ss := newTestSites(t)
	h := ss.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	r := httptest.NewRequest(http.MethodGet, "/products/1", nil)
	w := &recorder{header: http.Header{}}
	for _, host := range []string{"evil.example", "A.Example.:443", "a.example"} {
		r.Host = host
		if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); n != 0 {
			t.Errorf("Host %q, a path of the app's: %v allocations, want 0", host, n)
		}
	}
}

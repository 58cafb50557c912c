package sitemap

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/audit"
	"github.com/freshmap/sitemap/internal/pagecheck"
	"github.com/freshmap/sitemap/internal/testkit"
)

// faultyApp is an application with planted faults: each path answers as
// its comment says. It counts the requests it sees, and those that lack
// the audit's marking header.
type faultyApp struct {
	mu       sync.Mutex
	paths    []string // every request but robots.txt, in order
	robots   int
	unmarked int
}

func (f *faultyApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if r.Header.Get(AuditHeader) != "1" {
		f.unmarked++
	}
	if r.URL.Path == "/robots.txt" {
		f.robots++
	} else {
		f.paths = append(f.paths, r.URL.RequestURI())
	}
	f.mu.Unlock()
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	head := `<link rel="canonical" href="https://example.com` + r.URL.RequestURI() + `">`
	switch p := r.URL.Path; {
	case p == "/robots.txt":
		h.Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		return
	case p == "/moved": // a 301
		http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
		return
	case p == "/gone": // a 404
		http.NotFound(w, r)
		return
	case p == "/header-noindex": // a noindex header
		h.Set("X-Robots-Tag", "noindex")
	case p == "/meta-noindex": // a meta noindex
		head += `<meta name="robots" content="noindex, follow">`
	case p == "/wrong-canonical": // a wrong canonical
		head = `<link rel="canonical" href="/ok">`
	case p == "/panic":
		panic("planted")
	}
	fmt.Fprintf(w, "<!doctype html><html><head><title>t</title>%s</head><body>%s</body></html>", head, strings.Repeat("x", 1<<20))
}

func (f *faultyApp) seen() (paths []string, robots, unmarked int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.paths), f.robots, f.unmarked
}

// noNetwork fails t if anything is sent through http.DefaultTransport
// while the test runs: the audit must stay in process.
type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("a request left the process: %s", r.URL)
	return nil, errors.New("no network in this test")
}

func urlsAt(paths ...string) []URL {
	urls := make([]URL, len(paths))
	for i, p := range paths {
		urls[i] = URL{Loc: "https://example.com" + p}
	}
	return urls
}

// TestAuditFindsPlantedFaults: each planted fault is found, named by
// kind and file; the application sees every request marked; nothing
// leaves the process.
func TestAuditFindsPlantedFaults(t *testing.T) {
	old := http.DefaultTransport
	http.DefaultTransport = noNetwork{t}
	defer func() { http.DefaultTransport = old }()
	var logs testkit.SyncBuffer
	app := &faultyApp{}
	listed := []string{"/ok", "/moved", "/gone", "/header-noindex", "/meta-noindex", "/wrong-canonical", "/private/x", "/panic"}
	sm := newTestSitemap(t, Config{Audit: &Audit{Share: 1}, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Section{Name: "pages", Source: listSource(urlsAt(listed...)...)})
	h := sm.Handler(app)
	if w := get(h, "/sitemap-pages-1.xml.gz"); w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })

	r := sm.Audit()
	f := r.Files[0]
	if f.File != "sitemap-pages-1.xml.gz" || f.Checked != len(listed) || r.Checked != int64(len(listed)) {
		t.Errorf("file %q checked %d (total %d), want sitemap-pages-1.xml.gz and %d", f.File, f.Checked, r.Checked, len(listed))
	}
	want := map[string]int{pagecheck.Redirect: 1, pagecheck.Status: 1, pagecheck.Noindex: 2, pagecheck.Canonical: 1,
		pagecheck.Robots: 1, pagecheck.Error: 1}
	for k, n := range want {
		if f.Findings[k] != n || r.Findings[k] != int64(n) {
			t.Errorf("%s: %d in the file, %d in all; want %d", k, f.Findings[k], r.Findings[k], n)
		}
	}
	if len(f.Findings) != len(want) {
		t.Errorf("findings %v, want %v", f.Findings, want)
	}
	if len(f.Examples) != 5 || f.Examples[0] != (AuditFinding{pagecheck.Redirect, "https://example.com/moved", "301 /ok"}) {
		t.Errorf("examples %+v", f.Examples)
	}
	if one, ok := sm.rep.audit.FileAudit("sitemap-pages-1.xml.gz"); !ok || one.Checked != f.Checked || len(one.Examples) != len(f.Examples) {
		t.Errorf("FileAudit: %+v, %v; want the file's audit", one, ok)
	}
	if _, ok := (*audit.Auditor[docKey])(nil).FileAudit("sitemap-pages-1.xml.gz"); ok {
		t.Error("a nil auditor has an audit")
	}
	if st := sm.Stats(); st.AuditChecked != int64(len(listed)) || st.AuditFindings != 7 {
		t.Errorf("Stats: checked %d, findings %d; want %d, 7", st.AuditChecked, st.AuditFindings, len(listed))
	}
	paths, robots, unmarked := app.seen()
	if len(paths) != len(listed) || robots != 1 || unmarked != 0 {
		t.Errorf("the app saw %v and robots.txt %d times, %d unmarked; want %v, once, none", paths, robots, unmarked, listed)
	}
	line := logs.String()
	for _, s := range []string{"audit found problems", "file=sitemap-pages-1.xml.gz", "noindex=2", "redirect https://example.com/moved"} {
		if !strings.Contains(line, s) {
			t.Errorf("log lacks %q:\n%s", s, line)
		}
	}
	if n := strings.Count(line, "audit found"); n != 1 {
		t.Errorf("%d audit lines, want 1", n)
	}
}

// TestAuditRate: the URLs requested a minute stay within PerMinute however
// many files are built, counted on a fake clock; a new minute gives a new
// budget; Share bounds each file's sample.
func TestAuditRate(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	app := &faultyApp{}
	sm := newTestSitemap(t, Config{Now: clk.Now, Audit: &Audit{Share: 1, PerMinute: 5}},
		Section{Source: newFake(40, 10)}) // four files of ten URLs
	h := sm.Handler(app)
	for p := 1; p <= 4; p++ {
		get(h, fmt.Sprintf("/sitemap-%d.xml.gz", p))
	}
	waitFor(t, func() bool { r := sm.Audit(); return r.Checked+r.Skipped+10*r.FilesSkipped == 40 })
	if r := sm.Audit(); r.Checked != 5 {
		t.Errorf("checked %d in a minute, want 5 (skipped %d)", r.Checked, r.Skipped)
	}
	clk.Add(time.Minute)
	sm.InvalidateAll()
	waitFor(t, func() bool { r := sm.Audit(); return r.Checked+r.Skipped+10*r.FilesSkipped == 80 })
	if r := sm.Audit(); r.Checked != 10 {
		t.Errorf("checked %d in two minutes, want 10", r.Checked)
	}
	if paths, _, _ := app.seen(); len(paths) != 10 {
		t.Errorf("the app saw %d page requests, want 10", len(paths))
	}

	share := newTestSitemap(t, Config{Audit: &Audit{Share: 0.1, PerMinute: 1000}}, Section{Source: newFake(95, 95)})
	get(share.Handler(&faultyApp{}), "/sitemap-1.xml.gz")
	waitFor(t, func() bool { return len(share.Audit().Files) == 1 })
	if r := share.Audit(); r.Checked != 10 || r.Skipped != 0 {
		t.Errorf("a tenth of 95 URLs: checked %d, skipped %d; want 10, 0", r.Checked, r.Skipped)
	}
}

// TestAuditOff: without Config.Audit nothing is requested; without a
// wrapped application a built file is skipped; bad settings fail New;
// Close stops the worker.
func TestAuditOff(t *testing.T) {
	app := &faultyApp{}
	off := newTestSitemap(t, Config{}, Section{Source: newFake(3, 3)})
	get(off.Handler(app), "/sitemap-1.xml.gz")
	if paths, robots, _ := app.seen(); len(paths)+robots != 0 || len(off.Audit().Files) != 0 {
		t.Errorf("audit off, yet the app saw %v", paths)
	}
	alone := newTestSitemap(t, Config{Audit: &Audit{}}, Section{Source: newFake(3, 3)})
	get(alone, "/sitemap-1.xml.gz")
	if r := alone.Audit(); r.FilesSkipped != 1 || r.Checked != 0 {
		t.Errorf("no application: %+v, want one file skipped", r)
	}
	for _, a := range []Audit{{PerMinute: -1}, {Share: 1.5}, {Share: -0.1}, {Timeout: -1}} {
		if _, err := New(Config{BaseURL: "https://example.com", Audit: &a}, Section{Source: newFake(1, 1)}); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", a, err)
		}
	}
	before := runtime.NumGoroutine()
	sm, err := New(Config{BaseURL: "https://example.com", Audit: &Audit{}}, Section{Source: newFake(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	sm.Close()
	waitGoroutines(t, before)
}

// TestAuditStorm: 100,000 built files handed to the audit at once cost
// one worker, a queue of 8 and the minute's budget: the rest are skipped.
func TestAuditStorm(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	app := &faultyApp{}
	sm := newTestSitemap(t, Config{Now: clk.Now, Audit: &Audit{Share: 1, PerMinute: 7}}, Section{Source: newFake(3, 3)})
	sm.Handler(app)
	w := get(sm, "/sitemap-1.xml.gz")
	e, ok := cachedEntry(sm, pageKey(0, 1))
	if w.Code != http.StatusOK || !ok {
		t.Fatal("page 1 not built")
	}
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
	before := runtime.NumGoroutine()
	for range 100_000 {
		sm.rep.audit.Enqueue(pageKey(0, 1), "sitemap-1.xml.gz", e.gz)
	}
	if n := runtime.NumGoroutine(); n > before+1 { // the one request under way runs its handler on a goroutine
		t.Errorf("%d goroutines after the storm, %d before", n, before)
	}
	waitFor(t, func() bool { r := sm.Audit(); return r.Checked+r.Skipped+3*r.FilesSkipped == 3*100_001 })
	// How many files the worker takes in while the storm lasts depends on
	// the machine (the race detector's run took 30 more than the queue);
	// what is bounded is the requests, and that the queue overflows
	// rather than grows.
	if r := sm.Audit(); r.Checked != 7 || r.FilesSkipped < 100_000/2 {
		t.Errorf("checked %d (want 7), files skipped %d (want most of 100,000)", r.Checked, r.FilesSkipped)
	}
}

// driftApp serves pages whose dates agree with, or drift from, the
// lastmods driftURLs lists for them.
func driftApp(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	head := `<link rel="canonical" href="https://example.com` + r.URL.Path + `">`
	switch r.URL.Path {
	case "/agree":
		h.Set("Last-Modified", "Sat, 01 Mar 2025 12:00:00 GMT")
		head += `<meta property="article:modified_time" content="2025-03-01T12:00:00Z">`
	case "/agree-day": // a date-only lastmod covers its day
		head += `<script type="application/ld+json">{"@type":"Article","dateModified":"2025-03-01T18:30:00+01:00"}</script>`
	case "/within": // half an hour: within the tolerance
		h.Set("Last-Modified", "Sat, 01 Mar 2025 12:30:00 GMT")
	case "/newer": // planted: the page changed three days after its lastmod
		head += `<meta property="article:modified_time" content="2025-03-04T00:00:00Z">`
	case "/future": // planted: the lastmod is three months after the page
		h.Set("Last-Modified", "Sat, 01 Mar 2025 00:00:00 GMT")
		head += `<script type="application/ld+json">{"@graph":[{"dateModified":"2025-03-01"}]}</script>`
	}
	fmt.Fprintf(w, "<!doctype html><html><head>%s</head><body>page</body></html>", head)
}

func driftURLs() []URL {
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	return []URL{
		{Loc: "https://example.com/agree", LastMod: at("2025-03-01T12:00:00Z")},
		{Loc: "https://example.com/agree-day", LastMod: at("2025-03-01T00:00:00Z"), LastModDateOnly: true},
		{Loc: "https://example.com/within", LastMod: at("2025-03-01T12:00:00Z")},
		{Loc: "https://example.com/nodate", LastMod: at("2025-03-01T12:00:00Z")},
		{Loc: "https://example.com/newer", LastMod: at("2025-03-01T00:00:00Z")},
		{Loc: "https://example.com/future", LastMod: at("2025-06-01T00:00:00Z")},
	}
}

// TestAuditLastmodDrift: on a site with a page newer than its lastmod and
// a lastmod in its page's future, the audit finds each, apart, and no
// other; in Sitemap.Audit, Stats, the log and the HTML view. Tolerances
// move or turn off each check.
func TestAuditLastmodDrift(t *testing.T) {
	var logs testkit.SyncBuffer
	sm := newTestSitemap(t, Config{HTML: true, Audit: &Audit{Share: 1}, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Section{Source: listSource(driftURLs()...)})
	h := sm.Handler(http.HandlerFunc(driftApp))
	get(h, "/sitemap-1.xml.gz")
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
	r := sm.Audit()
	f := r.Files[0]
	if f.Checked != 6 || len(f.Findings) != 2 || f.Findings[pagecheck.LastmodBehind] != 1 || f.Findings[pagecheck.LastmodAhead] != 1 {
		t.Errorf("checked %d, findings %v; want 6 checked, one lastmod_behind and one lastmod_ahead", f.Checked, f.Findings)
	}
	if r.Findings[pagecheck.LastmodBehind] != 1 || r.Findings[pagecheck.LastmodAhead] != 1 {
		t.Errorf("totals %v", r.Findings)
	}
	want := []AuditFinding{
		{pagecheck.LastmodBehind, "https://example.com/newer",
			"lastmod 2025-03-01T00:00:00Z, page's article:modified_time 2025-03-04T00:00:00Z: the page is 3 d newer"},
		{pagecheck.LastmodAhead, "https://example.com/future",
			"lastmod 2025-06-01T00:00:00Z, page's JSON-LD dateModified 2025-03-01: the page is 90 d older"},
	}
	if !slices.Equal(f.Examples, want) {
		t.Errorf("examples\n%+v\nwant\n%+v", f.Examples, want)
	}
	if st := sm.Stats(); st.AuditLastmodBehind != 1 || st.AuditLastmodAhead != 1 || st.AuditFindings != 2 {
		t.Errorf("Stats: behind %d, ahead %d, findings %d; want 1, 1, 2", st.AuditLastmodBehind, st.AuditLastmodAhead, st.AuditFindings)
	}
	for _, s := range []string{"lastmod_ahead=1 lastmod_behind=1", "lastmod_behind https://example.com/newer"} {
		if !strings.Contains(logs.String(), s) {
			t.Errorf("log lacks %q:\n%s", s, logs.String())
		}
	}
	body := testkit.Fetch(h, "/sitemap-1.html").Body.String()
	for _, s := range []string{"Self-audit: 6 URLs checked: 1 lastmod ahead of the page, 1 lastmod behind the page",
		"lastmod behind the page: https://example.com/newer (lastmod 2025-03-01T00:00:00Z, page&apos;s article:modified_time"} {
		if !strings.Contains(body, s) {
			t.Errorf("the HTML view does not say %q:\n%s", s, body)
		}
	}

	for _, c := range []struct {
		name          string
		audit         Audit
		behind, ahead int
	}{
		{"behind off", Audit{LastmodBehind: -1}, 0, 1},
		{"ahead off", Audit{LastmodAhead: -1}, 1, 0},
		{"wide tolerances", Audit{LastmodBehind: 96 * time.Hour, LastmodAhead: 100 * 24 * time.Hour}, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.audit.Share = 1
			sm := newTestSitemap(t, Config{Audit: &c.audit}, Section{Source: listSource(driftURLs()...)})
			get(sm.Handler(http.HandlerFunc(driftApp)), "/sitemap-1.xml.gz")
			waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
			if st := sm.Stats(); st.AuditLastmodBehind != int64(c.behind) || st.AuditLastmodAhead != int64(c.ahead) {
				t.Errorf("behind %d, ahead %d; want %d, %d", st.AuditLastmodBehind, st.AuditLastmodAhead, c.behind, c.ahead)
			}
		})
	}
}

// TestAuditURLOf: the audit (internal/audit's Heads and ParseHead)
// reads back each URL of a file built here as written (XML-escaped, which is what a build's omit lookup sees), its
// location and its lastmod, a date alone as its UTC day.
func TestAuditURLOf(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	sm := newTestSitemap(t, Config{}, Section{Source: listSource(
		URL{Loc: "https://example.com/a?x=1&y='2'", LastMod: day, LastModDateOnly: true},
		URL{Loc: "https://example.com/b", LastMod: day.Add(90 * time.Minute)},
		URL{Loc: "https://example.com/c", ChangeFreq: Daily})})
	get(sm, "/sitemap-1.xml.gz")
	e, ok := cachedEntry(sm, pageKey(0, 1))
	if !ok {
		t.Fatal("not built")
	}
	heads, err := audit.Heads(e.gz)
	if err != nil || len(heads) != 3 {
		t.Fatalf("Heads: %q, %v", heads, err)
	}
	want := []audit.URL{
		{Raw: "https://example.com/a?x=1&amp;y=&apos;2&apos;", Loc: "https://example.com/a?x=1&y='2'", Lastmod: pagecheck.Day(day)},
		{Raw: "https://example.com/b", Loc: "https://example.com/b", Lastmod: pagecheck.Instant(day.Add(90 * time.Minute))},
		{Raw: "https://example.com/c", Loc: "https://example.com/c"},
	}
	for i, h := range heads {
		if got := audit.ParseHead(h); got != want[i] {
			t.Errorf("ParseHead(%q) = %+v, want %+v", h, got, want[i])
		}
	}
	// A location alone, as the audit asks for a URL it left out.
	if got := audit.ParseHead("<url><loc>" + want[0].Raw + "</loc>"); got != (audit.URL{Raw: want[0].Raw, Loc: want[0].Loc}) {
		t.Errorf("a location alone: %+v", got)
	}
}

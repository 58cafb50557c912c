package sitemap

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
	"github.com/freshmap/sitemap/internal/testkit"
)

// leaveOutApp serves /hidden with a noindex while hidden is set, /dup
// with a canonical link to /ok, /gone as a 404, and the rest as fine
// pages. If gate is set, /ok waits for it to be closed.
type leaveOutApp struct {
	hidden atomic.Bool
	gate   chan struct{}
}

func (a *leaveOutApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ok" && a.gate != nil {
		<-a.gate
	}
	head := `<link rel="canonical" href="https://example.com` + r.URL.Path + `">`
	switch r.URL.Path {
	case "/gone":
		http.NotFound(w, r)
		return
	case "/dup":
		head = `<link rel="canonical" href="https://example.com/ok">`
	case "/hidden":
		if a.hidden.Load() {
			head += `<meta name="robots" content="noindex">`
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><html><head>%s</head><body>x</body></html>", head)
}

// TestAuditLeaveOut: with LeaveOut, a URL found noindex and one
// canonicalised elsewhere are left out of their file, which is rebuilt:
// new bytes, a new ETag, a later Last-Modified (so no 304 for the old
// bytes, by either validator), the index's lastmod moved; a 404 is only
// reported. Once the page is indexable again, the audit of its file lets
// it back in, under a new clock again.
func TestAuditLeaveOut(t *testing.T) {
	// The clock moves a minute between builds, so that each new bytes get
	// a Last-Modified of their own (two changes within a second would give
	// the second none: clock.go, rule 1).
	clk := testkit.NewClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	app := &leaveOutApp{gate: make(chan struct{})}
	app.hidden.Store(true)
	sm := newTestSitemap(t, Config{HTML: true, Now: clk.Now, Audit: &Audit{Share: 1, LeaveOut: true}},
		Section{Source: listSource(urlsAt("/ok", "/hidden", "/dup", "/gone")...)})
	h := sm.Handler(app)
	listed := func() string { return get(h, "/sitemap-1.xml").Body.String() }

	get(h, "/sitemap-1.xml.gz")
	clk.Add(floorAhead) // the first clock, the start's floor, is served once the Date reaches it
	first := get(h, "/sitemap-1.xml.gz")
	etag1, lm1 := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
	if first.Code != http.StatusOK || etag1 == "" || lm1 == "" {
		t.Fatalf("first GET: %d, ETag %q, Last-Modified %q", first.Code, etag1, lm1)
	}
	clk.Add(time.Minute)
	close(app.gate) // the audit goes on
	waitFor(t, func() bool { b := listed(); return !strings.Contains(b, "/hidden<") && !strings.Contains(b, "/dup<") })
	if b := listed(); !strings.Contains(b, "https://example.com/ok<") || !strings.Contains(b, "https://example.com/gone<") {
		t.Errorf("the rebuilt file lost more than the two URLs:\n%s", b)
	}

	second := get(h, "/sitemap-1.xml.gz")
	etag2, lm2 := second.Header().Get("ETag"), second.Header().Get("Last-Modified")
	if etag2 == etag1 || !laterDate(t, lm2, lm1) {
		t.Errorf("left-out URLs changed the bytes, yet ETag %s → %s, Last-Modified %s → %s", etag1, etag2, lm1, lm2)
	}
	for _, hdr := range [][]string{{"If-None-Match", etag1}, {"If-Modified-Since", lm1}} {
		if w := get(h, "/sitemap-1.xml.gz", hdr...); w.Code != http.StatusOK || w.Header().Get("ETag") != etag2 {
			t.Errorf("%s of the old bytes: %d, ETag %s; want the new bytes", hdr[0], w.Code, w.Header().Get("ETag"))
		}
	}
	if w := get(h, "/sitemap-1.xml.gz", "If-None-Match", etag2); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match of the new bytes: %d, want 304", w.Code)
	}
	// The index moved out of date with the file's clock: a request may
	// still get its stale copy while it is rebuilt in the background.
	lm2t, _ := http.ParseTime(lm2)
	waitFor(t, func() bool {
		return strings.Contains(get(h, "/sitemap_index.xml").Body.String(), "<lastmod>"+lm2t.UTC().Format(time.RFC3339)+"</lastmod>")
	})

	waitFor(t, func() bool {
		return sm.Audit().LeftOut == 2 && len(sm.Audit().Files) == 1 && sm.Audit().Files[0].Checked == 2
	})
	r := sm.Audit()
	if st := sm.Stats(); st.AuditLeftOut != 2 || r.Files[0].LeftOut != 2 || r.Findings[pagecheck.Status] < 1 {
		t.Errorf("left out: Stats %d, file %d; want 2, 2, and the 404 reported (%v)", st.AuditLeftOut, r.Files[0].LeftOut, r.Findings)
	}
	if body := testkit.Fetch(h, "/sitemap-1.html").Body.String(); !strings.Contains(body, "Self-audit: 2 URLs left out of this file") {
		t.Errorf("the HTML view does not say the URLs left out:\n%s", body)
	}

	// The page is indexable again: the next audit of its file (a rebuild
	// for any reason) asks it again and lets it back in.
	clk.Add(time.Minute)
	app.hidden.Store(false)
	if err := sm.Invalidate(""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(listed(), "https://example.com/hidden<") })
	if strings.Contains(listed(), "/dup<") || sm.Stats().AuditLeftOut != 1 {
		t.Errorf("/dup let back in, or %d left out; want it out, 1", sm.Stats().AuditLeftOut)
	}
	third := get(h, "/sitemap-1.xml.gz")
	if third.Header().Get("ETag") == etag2 || !laterDate(t, third.Header().Get("Last-Modified"), lm2) {
		t.Errorf("a URL let back in: ETag %s, Last-Modified %s after %s", third.Header().Get("ETag"), third.Header().Get("Last-Modified"), lm2)
	}
	if w := get(h, "/sitemap-1.xml.gz", "If-Modified-Since", lm2); w.Code != http.StatusOK {
		t.Errorf("If-Modified-Since of the bytes without /hidden: %d, want 200", w.Code)
	}
}

// TestAuditLeaveOutFlapping: a page that says noindex to every other
// request is left out once, and its file rebuilt once: the rebuilt file's
// audit does not ask it again within leftOutHold, so the audit never
// rebuilds a file again and again by itself. The page's builds are
// counted from New, as the audit's rebuild may come before the first
// GET returns; once the rebuilt file's audit is in, the copy it audited
// is the one cached, and a GET finds it fresh unless that audit had the
// file rebuilt once more.
func TestAuditLeaveOutFlapping(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	var flips atomic.Int64
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/flip" && flips.Add(1)%2 == 1 {
			w.Header().Set("X-Robots-Tag", "noindex")
		}
		fmt.Fprint(w, "<!doctype html><title>x</title>")
	})
	sm := newTestSitemap(t, Config{Now: clk.Now, Audit: &Audit{Share: 1, LeaveOut: true}}, Section{Source: listSource(urlsAt("/ok", "/flip")...)})
	h := sm.Handler(app)
	get(h, "/sitemap-1.xml.gz")
	waitFor(t, func() bool { return !strings.Contains(get(h, "/sitemap-1.xml").Body.String(), "/flip<") })
	waitFor(t, func() bool { a := sm.Audit(); return len(a.Files) == 1 && a.Files[0].Checked == 1 }) // the rebuilt file's audit
	hits := sm.SectionStats()[0].CacheHits
	get(h, "/sitemap-1.xml.gz")
	if st := sm.SectionStats()[0]; st.CacheHits != hits+1 {
		t.Errorf("the rebuilt file is not fresh after its audit (%d hits, %d stale): the audit had it rebuilt again", st.CacheHits-hits, st.CacheStale)
	}
	if n, b := flips.Load(), sm.SectionStats()[0].Builds; n != 1 || b != 2 {
		t.Errorf("/flip asked %d times, the page built %d times; want 1, 2 (the first build, and the one without /flip)", n, b)
	}
}

// TestAuditLeaveOutChange: a URL left out is a URL the file removed, for
// OnChange (and so for IndexNow, which then asks the engines to recrawl
// it and see its noindex). The build is held at its last line of log,
// before its copy is kept, until the audit has found the URL (or for
// half a second, if the audit never comes first): the order a loaded
// machine gave now and then when a build handed its file to the audit
// before keeping it, whose rebuild then found no copy to rebuild, and
// the OnChange never came.
func TestAuditLeaveOutChange(t *testing.T) {
	app := &leaveOutApp{}
	app.hidden.Store(true)
	var mu sync.Mutex
	var removed []string
	hold := &holdBuild{found: make(chan struct{})}
	sm := newTestSitemap(t, Config{Logger: slog.New(hold), Audit: &Audit{Share: 1, LeaveOut: true}, OnChange: func(c Change) {
		mu.Lock()
		defer mu.Unlock()
		removed = append(removed, c.Removed...)
	}}, Section{Source: listSource(urlsAt("/ok", "/hidden")...)})
	h := sm.Handler(app)
	get(h, "/sitemap-1.xml.gz")
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(removed) > 0 })
	mu.Lock()
	defer mu.Unlock()
	if len(removed) != 1 || removed[0] != "https://example.com/hidden" {
		t.Errorf("removed %q, want the left-out URL", removed)
	}
}

// holdBuild is a log that holds the first build's line "built page",
// its last step before its copy is kept, until the audit logs its
// findings, or for half a second at most: the audit then acts before
// the copy is kept, if it was handed the file before.
type holdBuild struct {
	built, seen sync.Once
	found       chan struct{}
}

func (h *holdBuild) Enabled(context.Context, slog.Level) bool { return true }
func (h *holdBuild) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *holdBuild) WithGroup(string) slog.Handler            { return h }

func (h *holdBuild) Handle(_ context.Context, r slog.Record) error {
	switch r.Message {
	case "sitemap: audit found problems":
		h.seen.Do(func() { close(h.found) })
	case "sitemap: built page":
		h.built.Do(func() {
			t := time.NewTimer(500 * time.Millisecond)
			defer t.Stop()
			select {
			case <-h.found:
			case <-t.C:
			}
		})
	}
	return nil
}

// laterDate tells whether the HTTP date a is after b.
func laterDate(t *testing.T, a, b string) bool {
	t.Helper()
	ta, err1 := http.ParseTime(a)
	tb, err2 := http.ParseTime(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("dates %q, %q: %v, %v", a, b, err1, err2)
	}
	return ta.After(tb)
}

// TestAuditLeaveOutOff: without LeaveOut, the same findings leave every
// URL listed, and the file is built once.
func TestAuditLeaveOutOff(t *testing.T) {
	app := &leaveOutApp{}
	app.hidden.Store(true)
	sm := newTestSitemap(t, Config{Audit: &Audit{Share: 1}}, Section{Source: listSource(urlsAt("/ok", "/hidden", "/dup")...)})
	h := sm.Handler(app)
	get(h, "/sitemap-1.xml.gz")
	builds := sm.Stats().Builds
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
	r := sm.Audit()
	if r.Findings[pagecheck.Noindex] != 1 || r.Findings[pagecheck.Canonical] != 1 || r.LeftOut != 0 || sm.Stats().Builds != builds {
		t.Errorf("findings %v, left out %d, builds %d; want one noindex and one canonical, none left out, no rebuild", r.Findings, r.LeftOut, sm.Stats().Builds-builds)
	}
	if b := get(h, "/sitemap-1.xml").Body.String(); !strings.Contains(b, "/hidden<") || !strings.Contains(b, "/dup<") {
		t.Errorf("a URL was left out:\n%s", b)
	}
}

// BenchmarkEncodeLeftOut is BenchmarkEncode with Audit.LeaveOut's lookup
// on every URL, no URL left out: the cost of the option on a build,
// beside BenchmarkEncode (internal/audit's BenchmarkOmits has the lookup
// with 100 left out).
func BenchmarkEncodeLeftOut(b *testing.B) {
	for _, left := range []int{0} {
		for _, n := range benchSizes {
			b.Run("left="+strconv.Itoa(left)+"/urls="+strconv.Itoa(n), func(b *testing.B) {
				src, spec, doc := benchDoc(b, n)
				a, err := newAuditor("https://example.com/", &Audit{LeaveOut: true}, slog.New(slog.DiscardHandler), time.Now, func(docKey) {})
				if err != nil {
					b.Fatal(err)
				}
				defer a.Close(time.Now().Add(time.Second))
				spec.omit = a.Omits
				var buf bytes.Buffer
				buf.Grow(len(doc))
				b.ReportAllocs()
				b.SetBytes(int64(len(doc)))
				cpu := testkit.StartCPU(b)
				for b.Loop() {
					buf.Reset()
					if _, err := encodePage(context.Background(), src, 1, &buf, &spec); err != nil {
						b.Fatal(err)
					}
				}
				cpu.Report()
			})
		}
	}
}

package promsitemap_test

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/promsitemap"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// failing is a Source of one page whose URLs fail.
var failing = sitemap.SourceFunc{
	PagesFunc: func(context.Context) iter.Seq2[sitemap.PageInfo, error] {
		return func(yield func(sitemap.PageInfo, error) bool) { yield(sitemap.PageInfo{Number: 1}, nil) }
	},
	URLsFunc: func(context.Context, int64) iter.Seq2[sitemap.URL, error] {
		return func(yield func(sitemap.URL, error) bool) { yield(sitemap.URL{}, errors.New("db down")) }
	},
}

// served returns a Sitemap of sections "products" (two good URLs, one
// outside the base URL, one with a bad image) and "broken" (a failing
// Source), after: the
// products page twice (a miss, a hit), its 304, page 7 of products (404),
// and the broken page (503).
func served(t *testing.T) *sitemap.Sitemap {
	t.Helper()
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Name: "products", Source: sitemap.FromSlice([]sitemap.URL{
			{Loc: "https://example.com/a"}, {Loc: "https://elsewhere.example/b"}, {Loc: "https://example.com/c"},
			{Loc: "https://example.com/d", Images: []sitemap.Image{{Loc: "/relative.jpg"}}},
		}, 0)},
		sitemap.Section{Name: "broken", Source: failing})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	get := func(path string, wantCode int, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if len(hdr) == 2 {
			r.Header.Set(hdr[0], hdr[1])
		}
		w := httptest.NewRecorder()
		sm.ServeHTTP(w, r)
		if w.Code != wantCode {
			t.Fatalf("%s: status %d, want %d", path, w.Code, wantCode)
		}
		return w
	}
	first := get("/sitemap-products-1.xml.gz", http.StatusOK)
	get("/sitemap-products-1.xml.gz", http.StatusOK)
	get("/sitemap-products-1.xml.gz", http.StatusNotModified, "If-None-Match", first.Header().Get("Etag"))
	get("/sitemap-products-7.xml.gz", http.StatusNotFound)
	get("/sitemap-broken-1.xml.gz", http.StatusServiceUnavailable)
	return sm
}

func TestCollect(t *testing.T) {
	sm := served(t)
	reg := prometheus.NewRegistry()
	reg.MustRegister(promsitemap.New(sm))

	want := `
# HELP sitemap_builds_total Documents built successfully.
# TYPE sitemap_builds_total counter
sitemap_builds_total{section="_index"} 1
sitemap_builds_total{section="_other"} 0
sitemap_builds_total{section="broken"} 0
sitemap_builds_total{section="products"} 1
# HELP sitemap_build_errors_total Builds that failed: a source error, a panic or a timeout.
# TYPE sitemap_build_errors_total counter
sitemap_build_errors_total{section="_index"} 0
sitemap_build_errors_total{section="_other"} 0
sitemap_build_errors_total{section="broken"} 1
sitemap_build_errors_total{section="products"} 0
# HELP sitemap_requests_total Requests for a document, by cache result: hit, miss or stale.
# TYPE sitemap_requests_total counter
sitemap_requests_total{result="hit",section="_index"} 0
sitemap_requests_total{result="hit",section="_other"} 0
sitemap_requests_total{result="hit",section="broken"} 0
sitemap_requests_total{result="hit",section="products"} 2
sitemap_requests_total{result="miss",section="_index"} 0
sitemap_requests_total{result="miss",section="_other"} 0
sitemap_requests_total{result="miss",section="broken"} 1
sitemap_requests_total{result="miss",section="products"} 2
sitemap_requests_total{result="stale",section="_index"} 0
sitemap_requests_total{result="stale",section="_other"} 0
sitemap_requests_total{result="stale",section="broken"} 0
sitemap_requests_total{result="stale",section="products"} 0
# HELP sitemap_responses_total Responses by status code: 304, 404 and 503.
# TYPE sitemap_responses_total counter
sitemap_responses_total{code="304",section="_index"} 0
sitemap_responses_total{code="304",section="_other"} 0
sitemap_responses_total{code="304",section="broken"} 0
sitemap_responses_total{code="304",section="products"} 1
sitemap_responses_total{code="404",section="_index"} 0
sitemap_responses_total{code="404",section="_other"} 0
sitemap_responses_total{code="404",section="broken"} 0
sitemap_responses_total{code="404",section="products"} 1
sitemap_responses_total{code="503",section="_index"} 0
sitemap_responses_total{code="503",section="_other"} 0
sitemap_responses_total{code="503",section="broken"} 1
sitemap_responses_total{code="503",section="products"} 0
# HELP sitemap_rejected_urls_total URLs skipped, by the field that broke a rule, or page_full.
# TYPE sitemap_rejected_urls_total counter
sitemap_rejected_urls_total{reason="loc",section="products"} 1
# HELP sitemap_dropped_elements_total Elements left out of URLs written, by the field that broke a rule.
# TYPE sitemap_dropped_elements_total counter
sitemap_dropped_elements_total{reason="image.loc",section="products"} 1
# HELP sitemap_cache_entries Documents in the cache.
# TYPE sitemap_cache_entries gauge
sitemap_cache_entries{section="_index"} 1
sitemap_cache_entries{section="_other"} 0
sitemap_cache_entries{section="broken"} 0
sitemap_cache_entries{section="products"} 1
`
	names := []string{"sitemap_builds_total", "sitemap_build_errors_total", "sitemap_requests_total",
		"sitemap_responses_total", "sitemap_rejected_urls_total", "sitemap_dropped_elements_total", "sitemap_cache_entries"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}

	// Values that depend on the bytes and the clock: present, and consistent.
	st := sm.Stats()
	for name, want := range map[string]float64{
		`sitemap_served_bytes_total{section="products"}`:           float64(st.BytesServed),
		`sitemap_cache_bytes{section="products"}`:                  float64(st.CachedBytes - cachedBytes(sm, "_index")),
		`sitemap_build_duration_seconds_count{section="products"}`: 1,
		`sitemap_build_duration_seconds_count{section="broken"}`:   1,
	} {
		if got := value(t, reg, name); got != want || got == 0 {
			t.Errorf("%s = %v, want %v (not zero)", name, got, want)
		}
	}
	if n := testutil.CollectAndCount(promsitemap.New(sm), "sitemap_build_duration_seconds"); n != 4 {
		t.Errorf("%d build histograms, want one per section and pseudo-section (4)", n)
	}
}

func TestLint(t *testing.T) {
	problems, err := testutil.CollectAndLint(promsitemap.New(served(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// TestRegisterTwo registers two Sitemaps' collectors into one registry,
// told apart by a constant label.
func TestRegisterTwo(t *testing.T) {
	reg := prometheus.NewRegistry()
	for _, site := range []string{"a", "b"} {
		prometheus.WrapRegistererWith(prometheus.Labels{"site": site}, reg).MustRegister(promsitemap.New(served(t)))
	}
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
}

func cachedBytes(sm *sitemap.Sitemap, section string) int64 {
	for _, st := range sm.SectionStats() {
		if st.Section == section {
			return st.CachedBytes
		}
	}
	return 0
}

// value returns the value of one sample of reg, named as in the text
// exposition: name{labels}.
func value(t *testing.T, reg *prometheus.Registry, sample string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			base := mf.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch {
			case base == sample && m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case base == sample && m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil && mf.GetName()+"_count{"+strings.Join(labels, ",")+"}" == sample:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	t.Fatalf("no sample %s", sample)
	return 0
}

// downStore is a Store that never answers.
type downStore struct{}

var errDown = errors.New("store down")

func (downStore) Get(context.Context, ...string) ([][]byte, error) { return nil, errDown }
func (downStore) Set(context.Context, string, []byte) error        { return errDown }
func (downStore) Lock(context.Context, string) (func(), error)     { return nil, errDown }
func (downStore) Incr(context.Context, string) (int64, error)      { return 0, errDown }
func (downStore) Publish(context.Context, string, []byte) error    { return errDown }
func (downStore) Subscribe(context.Context, string, func([]byte)) (<-chan struct{}, error) {
	return nil, errDown
}

func TestStoreMetrics(t *testing.T) {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Store: downStore{}},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/a"}}, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	w := httptest.NewRecorder()
	sm.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/sitemap-1.xml.gz", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("with the store down: %d, want 200 (built here)", w.Code)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(promsitemap.New(sm))
	want := `
# HELP sitemap_store_down 1 while the shared store is not called and the replica serves alone.
# TYPE sitemap_store_down gauge
sitemap_store_down 1
# HELP sitemap_store_documents_total Documents taken from the shared store (hit), and builds that waited for another replica's (wait).
# TYPE sitemap_store_documents_total counter
sitemap_store_documents_total{result="hit"} 0
sitemap_store_documents_total{result="wait"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "sitemap_store_down", "sitemap_store_documents_total"); err != nil {
		t.Error(err)
	}
	if got := value(t, reg, "sitemap_store_errors_total{}"); got < 1 {
		t.Errorf("sitemap_store_errors_total = %v, want at least 1", got)
	}
}

// TestAuditMetrics: the self-audit's URLs and findings, in all and by
// file, after an audit that finds a 404 and a page newer than its
// lastmod; and the metrics lint clean.
func TestAuditMetrics(t *testing.T) {
	home := sitemap.URL{Loc: "https://example.com/", LastMod: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Audit: &sitemap.Audit{Share: 1}},
		sitemap.Section{Name: "pages", Source: sitemap.FromSlice([]sitemap.URL{home, {Loc: "https://example.com/gone"}}, 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`<!doctype html><title>home</title><meta property="article:modified_time" content="2025-06-01T00:00:00Z">`))
	})
	sm.Handler(app).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/sitemap-pages-1.xml.gz", nil))
	for deadline := time.Now().Add(5 * time.Second); len(sm.Audit().Files) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no audit after 5 s")
		}
	}
	c := promsitemap.New(sm)
	want := `
# HELP sitemap_audit_file_findings Findings of each sitemap file's last self-audit, by kind.
# TYPE sitemap_audit_file_findings gauge
sitemap_audit_file_findings{file="sitemap-pages-1.xml.gz",kind="lastmod_behind"} 1
sitemap_audit_file_findings{file="sitemap-pages-1.xml.gz",kind="status"} 1
# HELP sitemap_audit_left_out_urls URLs the self-audit leaves out of the sitemap files now: noindex, or canonicalised to another URL.
# TYPE sitemap_audit_left_out_urls gauge
sitemap_audit_left_out_urls 0
# HELP sitemap_audit_urls_total Self-audit URLs by result: checked in process, or skipped (over the rate, or off the site).
# TYPE sitemap_audit_urls_total counter
sitemap_audit_urls_total{result="checked"} 2
sitemap_audit_urls_total{result="skipped"} 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "sitemap_audit_file_findings", "sitemap_audit_left_out_urls", "sitemap_audit_urls_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(c, "sitemap_audit_findings_total"); n != 8 {
		t.Errorf("%d audit_findings_total series, want one a kind: 8", n)
	}
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// TestCrawlerMetrics: the crawl log's series, a spoofed Googlebot apart
// from the verified one (and not per file), an AI crawler's claim that
// could not be checked by its purpose, and lint-clean.
func TestCrawlerMetrics(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	sm, err := sitemap.New(sitemap.Config{
		BaseURL: "https://example.com",
		Now:     func() time.Time { return at },
		Crawlers: sitemap.Crawlers{Ranges: func() (map[string][]netip.Prefix, error) {
			return map[string][]netip.Prefix{"Googlebot": {netip.MustParsePrefix("66.249.64.0/19")}}, nil
		}},
	}, sitemap.Section{Name: "products", Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/a"}}, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	const googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	const gptbot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	for _, c := range []struct{ path, addr, etag, ua string }{
		{"/sitemap-products-1.xml.gz", "66.249.66.1:1000", "", googlebot},
		{"/sitemap-products-1.xml.gz", "66.249.66.1:1000", "*", googlebot}, // a 304
		{"/sitemap-products-1.xml.gz", "198.51.100.7:1000", "", googlebot}, // spoofed
		{"/sitemap_index.xml", "66.249.66.1:1000", "", googlebot},
		{"/sitemap_index.xml", "192.0.2.1:1000", "", gptbot}, // no GPTBot ranges given: unverifiable
	} {
		r := httptest.NewRequest(http.MethodGet, c.path, nil)
		r.RemoteAddr = c.addr
		r.Header.Set("User-Agent", c.ua)
		if c.etag != "" {
			r.Header.Set("If-None-Match", c.etag)
		}
		sm.ServeHTTP(httptest.NewRecorder(), r)
	}
	want := `
# HELP sitemap_crawler_fetches_total Fetches of the section's files by crawler family and status code.
# TYPE sitemap_crawler_fetches_total counter
sitemap_crawler_fetches_total{code="200",crawler="GPTBot",section="_index",verified="false"} 1
sitemap_crawler_fetches_total{code="200",crawler="Googlebot",section="_index",verified="true"} 1
sitemap_crawler_fetches_total{code="200",crawler="Googlebot",section="products",verified="false"} 1
sitemap_crawler_fetches_total{code="200",crawler="Googlebot",section="products",verified="true"} 1
sitemap_crawler_fetches_total{code="304",crawler="Googlebot",section="products",verified="true"} 1
# HELP sitemap_crawler_last_fetch_timestamp_seconds When each crawler family last fetched each sitemap file, in Unix seconds.
# TYPE sitemap_crawler_last_fetch_timestamp_seconds gauge
sitemap_crawler_last_fetch_timestamp_seconds{crawler="Googlebot",file="sitemap-products-1.xml.gz",section="products",verified="true"} 1.7955216e+09
sitemap_crawler_last_fetch_timestamp_seconds{crawler="GPTBot",file="sitemap_index.xml",section="_index",verified="false"} 1.7955216e+09
sitemap_crawler_last_fetch_timestamp_seconds{crawler="Googlebot",file="sitemap_index.xml",section="_index",verified="true"} 1.7955216e+09
# HELP sitemap_crawler_claims_total Fetches by crawlers of each purpose, by check: verified, spoofed or unverifiable.
# TYPE sitemap_crawler_claims_total counter
sitemap_crawler_claims_total{check="spoofed",purpose="search"} 1
sitemap_crawler_claims_total{check="unverifiable",purpose="training"} 1
sitemap_crawler_claims_total{check="verified",purpose="search"} 3
# HELP sitemap_crawler_forbidden_total 403s to clients that are not verified crawlers.
# TYPE sitemap_crawler_forbidden_total counter
sitemap_crawler_forbidden_total 0
`
	c := promsitemap.New(sm)
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "sitemap_crawler_fetches_total",
		"sitemap_crawler_last_fetch_timestamp_seconds", "sitemap_crawler_forbidden_total", "sitemap_crawler_claims_total"); err != nil {
		t.Error(err)
	}
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

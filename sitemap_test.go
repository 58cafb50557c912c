package sitemap

import (
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xsdcheck"
)

func TestNewErrors(t *testing.T) {
	src := newFake(1, 10)
	ok := Section{Source: src}
	for _, tc := range []struct {
		name string
		cfg  Config
		secs []Section
		want string
	}{
		{"no base", Config{}, []Section{ok}, "BaseURL is required"},
		{"relative base", Config{BaseURL: "/shop"}, []Section{ok}, "not an absolute"},
		{"host only", Config{BaseURL: "example.com"}, []Section{ok}, "not an absolute"},
		{"ftp base", Config{BaseURL: "ftp://example.com"}, []Section{ok}, "not an absolute"},
		{"base with query", Config{BaseURL: "https://example.com/?a=1"}, []Section{ok}, "query"},
		{"base with fragment", Config{BaseURL: "https://example.com/#x"}, []Section{ok}, "fragment"},
		{"base with user", Config{BaseURL: "https://u:p@example.com/"}, []Section{ok}, "user"},
		{"base with bad host", Config{BaseURL: "https://exa mple.com/"}, []Section{ok}, "BaseURL"},
		{"base with a host IDNA refuses", Config{BaseURL: "https://bü_cher.example/"}, []Section{ok}, "BaseURL"},
		{"no sections", Config{BaseURL: "https://example.com"}, nil, "no sections"},
		{"nil source", Config{BaseURL: "https://example.com"}, []Section{{Name: "a"}}, "no Source"},
		{"two unnamed", Config{BaseURL: "https://example.com"}, []Section{ok, ok}, "unnamed"},
		{"unnamed among named", Config{BaseURL: "https://example.com"}, []Section{{Name: "a", Source: src}, ok}, "unnamed"},
		{"duplicate name", Config{BaseURL: "https://example.com"}, []Section{{Name: "a", Source: src}, {Name: "a", Source: src}}, "used twice"},
		{"upper-case name", Config{BaseURL: "https://example.com"}, []Section{{Name: "Products", Source: src}}, "section name"},
		{"name with slash", Config{BaseURL: "https://example.com"}, []Section{{Name: "a/b", Source: src}}, "section name"},
		{"name with dot", Config{BaseURL: "https://example.com"}, []Section{{Name: "a.b", Source: src}}, "section name"},
		{"name starting with dash", Config{BaseURL: "https://example.com"}, []Section{{Name: "-a", Source: src}}, "section name"},
		{"long name", Config{BaseURL: "https://example.com"}, []Section{{Name: strings.Repeat("a", 65), Source: src}}, "section name"},
		{"negative page size", Config{BaseURL: "https://example.com"}, []Section{{Source: src, PageSize: -1}}, "PageSize"},
		{"page size over the limit", Config{BaseURL: "https://example.com"}, []Section{{Source: src, PageSize: 50_001}}, "PageSize"},
		{"big news pages", Config{BaseURL: "https://example.com"}, []Section{{Source: src, PageSize: 5000, Extensions: ExtNews}}, "news"},
		{"page size below the source's", Config{BaseURL: "https://example.com"}, []Section{{Source: FromSlice(numbered(100), 100), PageSize: 50}}, "differs from its Source's page size 100"},
		{"page size above the source's", Config{BaseURL: "https://example.com"}, []Section{{Source: FromRange(nil, nil, 10), PageSize: 20}}, "differs"},
		{"source page size out of range", Config{BaseURL: "https://example.com"}, []Section{{Source: sizer{src, 50_001}}}, "Source's PageSize 50001"},
		{"source page size zero", Config{BaseURL: "https://example.com"}, []Section{{Source: sizer{src, 0}}}, "Source's PageSize 0"},
		{"news source with big pages", Config{BaseURL: "https://example.com"}, []Section{{Source: FromSlice(nil, 0), Extensions: ExtNews}}, "news"},
		{"bad extensions", Config{BaseURL: "https://example.com"}, []Section{{Source: src, Extensions: 0x40}}, "Extensions"},
		{"none plus image", Config{BaseURL: "https://example.com"}, []Section{{Source: src, Extensions: ExtNone | ExtImage}}, "Extensions"},
		{"gzip level", Config{BaseURL: "https://example.com", GzipLevel: 10}, []Section{ok}, "GzipLevel"},
		{"negative gzip level", Config{BaseURL: "https://example.com", GzipLevel: -1}, []Section{ok}, "GzipLevel"},
		{"negative TTL", Config{BaseURL: "https://example.com", TTL: -time.Second}, []Section{ok}, "TTL"},
		{"negative timeout", Config{BaseURL: "https://example.com", BuildTimeout: -time.Second}, []Section{ok}, "BuildTimeout"},
		{"negative builds", Config{BaseURL: "https://example.com", MaxBuilds: -1}, []Section{ok}, "MaxBuilds"},
		{"negative entries", Config{BaseURL: "https://example.com", CacheEntries: -1}, []Section{ok}, "CacheEntries"},
		{"header injection", Config{BaseURL: "https://example.com", CacheControl: "public\r\nSet-Cookie: a=b"}, []Section{ok}, "line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := New(tc.cfg, tc.secs...)
			if err == nil {
				sm.Close()
				t.Fatal("New succeeded")
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sitemap: ") {
				t.Errorf("error %q: want ErrConfig mentioning %q", err, tc.want)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	sm := newTestSitemap(t, Config{BaseURL: "HTTPS://Example.COM"},
		Section{Name: "news", Source: newFake(1, 1), Extensions: ExtNews},
		Section{Name: "p", Source: newFake(1, 1)})
	if sm.site.base.url != "https://example.com/" || sm.IndexURL() != "https://example.com/sitemap_index.xml" {
		t.Errorf("base %q, index %q", sm.site.base.url, sm.IndexURL())
	}
	if sm.site.byName["news"].pageSize != 1000 || sm.site.byName["p"].pageSize != MaxURLs {
		t.Errorf("page sizes %d, %d", sm.site.byName["news"].pageSize, sm.site.byName["p"].pageSize)
	}
	if sm.site.ttl != 15*time.Minute || sm.site.timeout != 2*time.Minute || sm.docs.slots.max != 2 || sm.site.gzipLevel != 6 || sm.site.retryAfter != time.Minute {
		t.Errorf("defaults: ttl %v timeout %v builds %d level %d", sm.site.ttl, sm.site.timeout, sm.docs.slots.max, sm.site.gzipLevel)
	}
	if _, budget, _, _ := sm.docs.cache.Budget(); budget != 256<<20 {
		t.Errorf("cache budget %d", budget)
	}
}

// sizer gives a Source a page size.
type sizer struct {
	Source
	size int
}

func (s sizer) PageSize() int { return s.size }

// TestPageSizeFromSource: a Source that knows its page size sets the
// section's, so no URL is dropped and nothing is said twice.
func TestPageSizeFromSource(t *testing.T) {
	urls := numbered(100)
	for _, tc := range []struct {
		name string
		sec  Section
		want int
	}{
		{"FromSlice", Section{Source: FromSlice(urls, 100)}, 100},
		{"FromSlice, same PageSize", Section{Source: FromSlice(urls, 100), PageSize: 100}, 100},
		{"FromSeq", Section{Source: FromSeq(slices.Values(urls), 30)}, 30},
		{"FromRange default", Section{Source: FromRange(nil, nil, 0)}, MaxURLs},
		{"news", Section{Source: FromSlice(urls, 500), Extensions: ExtNews}, 500},
		{"no PageSizer", Section{Source: listSource(urls...), PageSize: 7}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm := newTestSitemap(t, Config{}, tc.sec)
			if got := sm.site.unnamed.pageSize; got != tc.want {
				t.Errorf("page size %d, want %d", got, tc.want)
			}
		})
	}
	// The case that used to lose URLs silently: all 100 are served now.
	sm := newTestSitemap(t, Config{}, Section{Source: FromSlice(urls, 100)})
	rec := httptest.NewRecorder()
	sm.ServeHTTP(rec, httptest.NewRequest("GET", "/sitemap-1.xml", nil))
	if n := strings.Count(rec.Body.String(), "<url>"); rec.Code != 200 || n != 100 {
		t.Errorf("status %d, %d URLs served, want 100", rec.Code, n)
	}
}

// TestIDNBase: a base URL with an internationalized host is served under
// its punycode form, and locs written either way are under it.
func TestIDNBase(t *testing.T) {
	sm := newTestSitemap(t, Config{BaseURL: "https://Bücher.example/shop"}, Section{Source: FromSlice([]URL{
		{Loc: "https://bücher.example/shop/a"},
		{Loc: "https://xn--bcher-kva.example/shop/b"},
		{Loc: "https://bücher.example/c"}, // outside the path
	}, 0)})
	if want := "https://xn--bcher-kva.example/shop/"; sm.site.base.url != want || sm.IndexURL() != want+"sitemap_index.xml" {
		t.Fatalf("base %q, index %q; want %q", sm.site.base.url, sm.IndexURL(), want)
	}
	w := get(sm, "/shop/sitemap-1.xml")
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	body := w.Body.String()
	for _, want := range []string{"<loc>https://xn--bcher-kva.example/shop/a</loc>", "<loc>https://xn--bcher-kva.example/shop/b</loc>"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s:\n%s", want, body)
		}
	}
	if n := strings.Count(body, "<url>"); n != 2 || sm.Stats().RejectedURLs != 1 {
		t.Errorf("%d URLs written, %d rejected; want 2 and 1", n, sm.Stats().RejectedURLs)
	}
	xsdcheck.URLSet(t, w.Body.Bytes())
}

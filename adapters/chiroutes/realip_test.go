package chiroutes_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// TestRealIPSpoof shows what docs/crawl-log.md says of a middleware that
// rewrites RemoteAddr, such as chi's middleware.RealIP, in front of the
// Sitemap: RemoteAddr is then whatever the client wrote in X-Real-IP,
// True-Client-IP or X-Forwarded-For, so a client anywhere passes for a
// verified Googlebot, and VerifiedOnly serves it. Without RealIP the same
// request is a spoof; behind a proxy, AddressHeader reads the one
// header the proxy writes, which a client cannot forge past it.
// (It lives here, not in the root package, so that the root module does
// not require chi: see docs/modules.md.)
func TestRealIPSpoof(t *testing.T) {
	urls := make([]sitemap.URL, 10)
	for i := range urls {
		urls[i] = sitemap.URL{Loc: base + "/p/" + strconv.Itoa(i)}
	}
	googleRanges := func() (map[string][]netip.Prefix, error) {
		return map[string][]netip.Prefix{"Googlebot": {netip.MustParsePrefix("66.249.64.0/19")}}, nil
	}
	sm, err := sitemap.New(sitemap.Config{
		BaseURL:  base,
		Logger:   slog.New(slog.DiscardHandler),
		Crawlers: sitemap.Crawlers{VerifiedOnly: true, Ranges: googleRanges},
	}, sitemap.Section{Name: "p", Source: sitemap.FromSlice(urls, 3)})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	withRealIP := chi.NewRouter()
	withRealIP.Use(middleware.RealIP, sm.Handler) //lint:ignore SA1019 chi deprecates RealIP for the spoof this test shows
	withRealIP.Get("/", http.NotFound)            // the application
	bare := chi.NewRouter()
	bare.Use(sm.Handler)
	bare.Get("/", http.NotFound)
	const googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	for _, hdr := range []string{"X-Real-IP", "True-Client-IP", "X-Forwarded-For"} {
		r := httptest.NewRequest(http.MethodGet, "/sitemap-p-1.xml.gz", nil)
		r.RemoteAddr = "203.0.113.9:40000" // the attacker's own address
		r.Header.Set("User-Agent", googlebotUA)
		r.Header.Set(hdr, "66.249.66.1")
		w := httptest.NewRecorder()
		withRealIP.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Errorf("behind RealIP, %s: %d, want 200: the spoof docs/crawl-log.md warns of passes", hdr, w.Code)
		}
		r.RemoteAddr = "203.0.113.9:40000"
		w = httptest.NewRecorder()
		bare.ServeHTTP(w, r)
		if w.Code != 403 {
			t.Errorf("without RealIP, %s: %d, want 403", hdr, w.Code)
		}
	}
	var verified int64 = -1
	for _, fc := range sm.CrawlLog() {
		if fc.File != "sitemap-p-1.xml.gz" {
			continue
		}
		verified = 0
		for _, f := range fc.Crawls {
			if f.Crawler == "Googlebot" && f.Verified {
				verified = f.Fetches
			}
		}
	}
	if verified != 3 {
		t.Errorf("verified Googlebot fetches %d (-1: no crawl log of the file), want the 3 spoofs through RealIP", verified)
	}
}

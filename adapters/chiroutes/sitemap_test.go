package chiroutes_test

import (
	"compress/gzip"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/chiroutes"
	"github.com/go-chi/chi/v5"
)

// fetch GETs u and returns its body, gunzipped if it is a .gz file.
func fetch(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, res.Status)
	}
	var r io.Reader = res.Body
	if strings.HasSuffix(u, ".gz") {
		if r, err = gzip.NewReader(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func xmlLocs(t *testing.T, doc string) []string {
	t.Helper()
	var v struct {
		URLs     []string `xml:"url>loc"`
		Sitemaps []string `xml:"sitemap>loc"`
	}
	if err := xml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	return append(v.URLs, v.Sitemaps...)
}

// TestServedBySitemap serves the Source through sitemap.New wrapped around
// the same router: the sitemap lists the router's pages, and the router's
// robots.txt gets the index's Sitemap: line.
func TestServedBySitemap(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/", page)
	r.Get("/about", page)
	r.Get("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "User-agent: *\nDisallow: /admin/\n")
	})
	r.Route("/docs", func(r chi.Router) { r.Get("/{slug}", page) })

	const base = "https://example.com" // locs name the site, whatever host serves them
	src, err := chiroutes.New(r, chiroutes.Config{
		BaseURL: base,
		Values:  map[string][]string{"/docs/{slug}": {"intro"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Name: "pages", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	srv := httptest.NewServer(sm.Handler(r))
	defer srv.Close()

	var got []string
	for _, loc := range xmlLocs(t, fetch(t, srv.URL+"/sitemap_index.xml")) {
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, xmlLocs(t, fetch(t, srv.URL+u.Path))...)
	}
	if want := []string{base + "/", base + "/about", base + "/docs/intro"}; !slices.Equal(got, want) {
		t.Errorf("sitemap lists %q, want %q", got, want)
	}

	if got, want := fetch(t, srv.URL+"/robots.txt"), "User-agent: *\nDisallow: /admin/\n"+sm.RobotsLine()+"\n"; got != want {
		t.Errorf("robots.txt = %q, want %q", got, want)
	}
}

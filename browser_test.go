package sitemap_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/testenv"
)

// TestBrowser opens the index and a sitemap file in a real headless
// browser (Debian's chromium, which .ci/run installs), as the stylesheet
// shows them (Config.Stylesheet) and as the HTML view (Config.HTML) with
// scripts off, and checks that the rendered pages hold the expected table
// rows and links. It keeps a screenshot of each, named in the log.
func TestBrowser(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		testenv.Unavailable(t, "chromium", "chromium not found on PATH (apt-get install chromium)")
	}
	srv := httptest.NewUnstartedServer(nil)          // listening on 127.0.0.1, so the base URL is known
	base := "http://" + srv.Listener.Addr().String() // the stylesheet must come from the same origin
	at := func(d int) time.Time { return time.Date(2025, 6, d, 12, 0, 0, 0, time.UTC) }
	products := sitemap.FromSlice([]sitemap.URL{
		{Loc: base + "/p/1", LastMod: at(1),
			Images: []sitemap.Image{{Loc: base + "/img/1a.jpg"}, {Loc: base + "/img/1b.jpg"}},
			Alternates: []sitemap.Alternate{{Hreflang: "en", Href: base + "/p/1"}, {Hreflang: "de", Href: base + "/de/p/1"},
				{Hreflang: "x-default", Href: base + "/p/1"}}},
		{Loc: base + "/p/2", LastMod: at(2), Images: []sitemap.Image{{Loc: base + "/img/2.jpg"}}},
		{Loc: base + "/p/3", LastMod: at(3)},
	}, 2)
	pages := sitemap.FromSlice([]sitemap.URL{{Loc: base + "/", LastMod: at(4)}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: base, Stylesheet: true, HTML: true, Now: func() time.Time { return at(5) }},
		sitemap.Section{Name: "products", Source: products}, sitemap.Section{Name: "pages", Source: pages})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	srv.Config.Handler = sm.Handler(http.NotFoundHandler()) // through the middleware, as an application would
	srv.Start()
	t.Cleanup(srv.Close)

	t.Run("index", func(t *testing.T) {
		dom := chromium(t, bin, base+"/sitemap_index.xml", "--dump-dom")
		checkTransformed(t, bin, dom)
		rows := tableRows(t, dom, "sitemap")
		want := indexEntries(t, base+"/sitemap_index.xml")
		if len(rows) != len(want) || len(want) != 3 {
			t.Fatalf("%d rows, want %d (the index lists %d files):\n%s", len(rows), 3, len(want), dom)
		}
		for i, w := range want {
			r := rows[i]
			if r["n"] != strconv.Itoa(i+1) || r["loc"] != w.Loc || r["lastmod"] != w.LastMod || r["href"] != strings.TrimSuffix(w.Loc, ".gz") {
				t.Errorf("row %d = %v, want %s %s linking its .xml", i+1, r, w.Loc, w.LastMod)
			}
		}
		if !strings.Contains(dom, `<strong class="count">3</strong>`) {
			t.Error("the index's file count is missing")
		}
		screenshot(t, bin, base+"/sitemap_index.xml", "xsl-index")
	})

	t.Run("page", func(t *testing.T) {
		page := base + "/sitemap-products-1.xml"
		dom := chromium(t, bin, page, "--dump-dom")
		checkTransformed(t, bin, dom)
		rows := tableRows(t, dom, "url")
		want := []map[string]string{
			{"n": "1", "loc": base + "/p/1", "href": base + "/p/1", "lastmod": "2025-06-01T12:00:00Z", "images": "2", "alternates": "3"},
			{"n": "2", "loc": base + "/p/2", "href": base + "/p/2", "lastmod": "2025-06-02T12:00:00Z", "images": "1", "alternates": "0"},
		}
		if len(rows) != len(want) {
			t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), dom)
		}
		for i, w := range want {
			for k, v := range w {
				if rows[i][k] != v {
					t.Errorf("row %d: %s = %q, want %q", i+1, k, rows[i][k], v)
				}
			}
		}
		if !strings.Contains(dom, `<strong class="count">2</strong>`) {
			t.Error("the page's URL count is missing")
		}
		screenshot(t, bin, page, "xsl-page")
	})

	t.Run("html index", func(t *testing.T) {
		dom := chromium(t, bin, base+"/sitemap_index.html", "--dump-dom", noScripts)
		rows := htmlViewRows(dom)
		want := indexEntries(t, base+"/sitemap_index.xml")
		if len(rows) != len(want) || len(want) != 3 {
			t.Fatalf("%d rows, want %d (the index lists %d files):\n%s", len(rows), 3, len(want), dom)
		}
		for i, w := range want {
			name := strings.TrimPrefix(w.Loc, base+"/")
			r := rows[i]
			if r[0] != strconv.Itoa(i+1) || r[1] != `<a href="`+strings.TrimSuffix(name, ".xml.gz")+`.html">`+name+`</a>` ||
				!strings.Contains(r[4], `datetime="`+w.LastMod+`"`) || r[5] != `<a href="`+strings.TrimSuffix(w.Loc, ".gz")+`">XML</a>` { // the XML opens, not the .gz downloads
				t.Errorf("row %d = %q, want %s %s", i+1, r, w.Loc, w.LastMod)
			}
		}
		if !strings.Contains(dom, "<title>Sitemap index</title>") || !strings.Contains(dom, `<th scope="col">Last modified</th>`) {
			t.Errorf("no title or column headers:\n%s", dom)
		}
		screenshot(t, bin, base+"/sitemap_index.html", "html-index", noScripts)
	})

	t.Run("html page", func(t *testing.T) {
		page := base + "/sitemap-products-1.html"
		dom := chromium(t, bin, page, "--dump-dom", noScripts)
		rows := htmlViewRows(dom)
		if len(rows) != 2 {
			t.Fatalf("%d rows, want 2:\n%s", len(rows), dom)
		}
		for i, want := range [][]string{
			{"1", `<a href="` + base + `/p/1">` + base + `/p/1</a>`, "2025-06-01T12:00:00Z", base + "/img/1b.jpg", `hreflang="de">de</a>`},
			{"2", `<a href="` + base + `/p/2">` + base + `/p/2</a>`, "2025-06-02T12:00:00Z", base + "/img/2.jpg", ""},
		} {
			r := rows[i]
			if r[0] != want[0] || r[1] != want[1] || !strings.Contains(r[2], want[2]) || !strings.Contains(r[3], want[3]) || !strings.Contains(r[4], want[4]) {
				t.Errorf("row %d = %q, want %q", i+1, r, want)
			}
		}
		if !strings.Contains(dom, `<a href="sitemap_index.html">`) || !strings.Contains(dom, `<html lang="en">`) {
			t.Errorf("no link to the index, or no lang:\n%s", dom)
		}
		screenshot(t, bin, page, "html-page", noScripts)
	})
}

// noScripts, among chromium's args, runs it with JavaScript blocked (a
// profile's content setting): the HTML view needs none.
const noScripts = "(no scripts)"

var (
	viewRowRE  = regexp.MustCompile(`(?s)<tr><td>\d+</td>.*?</tr>`)
	viewCellRE = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// htmlViewRows returns the rows of the HTML view's table in dom, each as
// its cells' inner HTML.
func htmlViewRows(dom string) [][]string {
	var rows [][]string
	for _, r := range viewRowRE.FindAllString(dom, -1) {
		var cells []string
		for _, c := range viewCellRE.FindAllStringSubmatch(r, -1) {
			cells = append(cells, c[1])
		}
		rows = append(rows, cells)
	}
	return rows
}

// chromium runs the headless browser on url with args, for at most a
// minute, and returns its standard output.
func chromium(t *testing.T, bin, url string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	profile := t.TempDir()
	if i := slices.Index(args, noScripts); i >= 0 {
		// JavaScript blocked for every site, as a user can set it; the
		// DevTools protocol that --dump-dom uses still works.
		args = slices.Delete(slices.Clone(args), i, i+1)
		prefs := `{"profile":{"default_content_setting_values":{"javascript":2}}}`
		if err := os.MkdirAll(filepath.Join(profile, "Default"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(profile, "Default", "Preferences"), []byte(prefs), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile}, args...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.WaitDelay = 5 * time.Second // a helper process holding the pipes must not hang the test
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, stderr.Bytes())
	}
	t.Logf("chromium %s: %v", url, time.Since(start).Round(time.Millisecond))
	dom := stdout.String()
	if strings.Contains(dom, "<xslt-warning-banner") {
		t.Logf("%s shows its XSLT deprecation banner", chromiumVersion(bin))
	}
	return dom
}

// chromiumVersion returns what chromium --version says.
func chromiumVersion(bin string) string {
	out, _ := exec.Command(bin, "--version").Output()
	return strings.TrimSpace(string(out))
}

// checkTransformed fails t if dom is not the stylesheet's output: browsers
// are removing XSLT, and a browser without it shows the XML as it is.
func checkTransformed(t *testing.T, bin, dom string) {
	t.Helper()
	if !strings.Contains(dom, "<table id=") {
		t.Fatalf("%s did not apply the stylesheet (XSLT turned off or removed?); the DOM:\n%s", chromiumVersion(bin), dom)
	}
}

// screenshot saves a 1200×800 screenshot of url, with chromium's extra
// args, keeps a copy as sitemap-NAME.png in the temporary directory, and
// logs its path.
func screenshot(t *testing.T, bin, url, name string, args ...string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".png")
	chromium(t, bin, url, append(args, "--screenshot="+file, "--window-size=1200,800", "--hide-scrollbars")...)
	png, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("no screenshot: %v", err)
	}
	keep := filepath.Join(os.TempDir(), "sitemap-"+name+".png")
	if err := os.WriteFile(keep, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %s: %s", url, keep)
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr class="([a-z]+)">(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<td class="([a-z]+)">(.*?)</td>`)
	hrefRE = regexp.MustCompile(`<a href="([^"]*)"`)
	tagRE  = regexp.MustCompile(`<[^>]*>`)
)

// tableRows returns the rows of class class in dom, each as its cells'
// text by class, and "href" the cell's link, if any.
func tableRows(t *testing.T, dom, class string) []map[string]string {
	t.Helper()
	var rows []map[string]string
	for _, m := range rowRE.FindAllStringSubmatch(dom, -1) {
		if m[1] != class {
			continue
		}
		row := map[string]string{}
		for _, c := range cellRE.FindAllStringSubmatch(m[2], -1) {
			row[c[1]] = strings.TrimSpace(tagRE.ReplaceAllString(c[2], ""))
			if a := hrefRE.FindStringSubmatch(c[2]); a != nil {
				row["href"] = a[1]
			}
		}
		rows = append(rows, row)
	}
	return rows
}

type indexEntry struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod"`
}

// indexEntries fetches the index at url and returns its entries.
func indexEntries(t *testing.T, url string) []indexEntry {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Sitemaps []indexEntry `xml:"sitemap"`
	}
	if err := xml.Unmarshal(body, &idx); err != nil {
		t.Fatal(err)
	}
	return idx.Sitemaps
}

package export_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/export"
	"github.com/freshmap/sitemap/parse"
)

const public = "https://cdn.example.com/sitemaps/"

// tree is a sitemap.New tree of two sections, "a" of 5 pages and "b" of 3
// (two URLs a page); bump changes the lastmod of the first URL of a's
// page bump (none when 0).
func tree(t *testing.T, bump int) *sitemap.Sitemap {
	t.Helper()
	urls := func(sec string, n int) []sitemap.URL {
		var out []sitemap.URL
		for i := range n {
			mod := time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)
			if sec == "a" && i == 2*(bump-1) {
				mod = mod.AddDate(0, 1, 0) // newer than the page's other URL, so the index changes too
			}
			out = append(out, sitemap.URL{Loc: fmt.Sprintf("https://example.com/%s/%d", sec, i), LastMod: mod})
		}
		return out
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Name: "a", Source: sitemap.FromSlice(urls("a", 10), 2)},
		sitemap.Section{Name: "b", Source: sitemap.FromSlice(urls("b", 6), 2)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	return sm
}

// get is what h serves at path.
func get(t *testing.T, h http.Handler, path string) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://example.com"+path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, rec.Code)
	}
	return rec.Body.Bytes()
}

// names lists dir, the manifest excluded, and fails on a temporary file.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
		if e.Name() != export.ManifestName {
			out = append(out, e.Name())
		}
	}
	return out
}

func wantResult(t *testing.T, got, want export.Result) {
	t.Helper()
	got.Bytes = 0
	if got != want {
		t.Errorf("result = %+v, want %+v", got, want)
	}
}

// TestTree: every file written as served, the index pointing at
// PublicBase; then a second run that writes nothing, a change that writes
// only its file and the index, and a lost file fetched again.
func TestTree(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	sm := tree(t, 0)
	var progress []export.Progress
	res, err := export.Tree(ctx, sm, export.Options{Dir: dir, PublicBase: public, Progress: func(p export.Progress) {
		progress = append(progress, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, res, export.Result{Indexes: 1, Files: 8, Written: 9})
	if len(progress) != 8 || progress[7].Done != 8 || progress[7].Total != 8 {
		t.Errorf("progress = %+v", progress)
	}

	var files []string
	for e, err := range parse.Index(bytes.NewReader(get(t, sm, "/sitemap_index.xml")), parse.Limits{}) {
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, strings.TrimPrefix(e.Loc, "https://example.com/"))
	}
	if want := append(slices.Clone(files), "sitemap_index.xml"); !slices.Equal(names(t, dir), slices.Sorted(slices.Values(want))) {
		t.Errorf("files = %v, want %v", names(t, dir), want)
	}
	for _, name := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, get(t, sm, "/"+name)) {
			t.Errorf("%s differs from what is served (%v)", name, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "sitemap_index.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var locs []string
	for e, err := range parse.Index(bytes.NewReader(b), parse.Limits{}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.LastMod.IsZero() {
			t.Errorf("%s lost its lastmod", e.Loc)
		}
		locs = append(locs, strings.TrimPrefix(e.Loc, public))
	}
	if !slices.Equal(locs, files) {
		t.Errorf("index lists %v, want %v under %s", locs, files, public)
	}

	// Again: every file is answered 304 and nothing is written.
	before := mtimes(t, dir)
	res, err = export.Tree(ctx, sm, export.Options{Dir: dir, PublicBase: public})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, res, export.Result{Indexes: 1, Files: 8, Unchanged: 9})
	if after := mtimes(t, dir); !equalMaps(before, after) {
		t.Errorf("a second run rewrote files")
	}

	// A change to a's page 2, served by a new Sitemap (as after a deploy):
	// that file and the index are written, nothing else.
	sm2 := tree(t, 2)
	res, err = export.Tree(ctx, sm2, export.Options{Dir: dir, PublicBase: public, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, res, export.Result{Indexes: 1, Files: 8, Written: 2, Unchanged: 7})
	if got, _ := os.ReadFile(filepath.Join(dir, "sitemap-a-2.xml.gz")); !bytes.Equal(got, get(t, sm2, "/sitemap-a-2.xml.gz")) {
		t.Errorf("sitemap-a-2.xml.gz was not updated")
	}

	// A file lost from the directory is fetched again.
	os.Remove(filepath.Join(dir, "sitemap-b-1.xml.gz"))
	res, err = export.Tree(ctx, sm2, export.Options{Dir: dir, PublicBase: public})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, res, export.Result{Indexes: 1, Files: 8, Written: 1, Unchanged: 8})
	names(t, dir)
}

func mtimes(t *testing.T, dir string) map[string]time.Time {
	m := map[string]time.Time{}
	for _, n := range names(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		m[n] = fi.ModTime()
	}
	return m
}

func equalMaps(a, b map[string]time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !b[k].Equal(v) {
			return false
		}
	}
	return true
}

// TestFailure: a file the handler fails fails the export, naming it; the
// files written stay, no index is written, and the next run resumes.
func TestFailure(t *testing.T) {
	dir := t.TempDir()
	sm := tree(t, 0)
	failing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sitemap-b-3.xml.gz" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		sm.ServeHTTP(w, r)
	})
	res, err := export.Tree(context.Background(), failing, export.Options{Dir: dir, Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "sitemap-b-3.xml.gz") || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v, want one naming sitemap-b-3.xml.gz and its status", err)
	}
	wantResult(t, res, export.Result{Indexes: 1, Files: 8, Written: 7})
	if got := names(t, dir); len(got) != 7 || slices.Contains(got, "sitemap_index.xml") {
		t.Errorf("files = %v, want the 7 served and no index", got)
	}

	res, err = export.Tree(context.Background(), sm, export.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, res, export.Result{Indexes: 1, Files: 8, Written: 2, Unchanged: 7})
	if got := names(t, dir); len(got) != 9 {
		t.Errorf("files = %v", got)
	}
	// Without PublicBase the index keeps the locations it was served with.
	if b, _ := os.ReadFile(filepath.Join(dir, "sitemap_index.xml")); !strings.Contains(string(b), "<loc>https://example.com/sitemap-b-3.xml.gz</loc>") {
		t.Errorf("index:\n%s", b)
	}
}

// TestUnsafeName: an index listing a file that cannot be a plain file name
// fails before anything is fetched.
func TestUnsafeName(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/sitemap_index.xml" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://example.com/.sitemap-export.json</loc></sitemap></sitemapindex>`)
	})
	dir := t.TempDir()
	_, err := export.Tree(context.Background(), h, export.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "no usable file name") {
		t.Errorf("err = %v", err)
	}
}

func TestOptions(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []export.Options{
		{},
		{Dir: dir, Concurrency: -1},
		{Dir: dir, PublicBase: "https://cdn.example.com/sitemaps"}, // no final /
		{Dir: dir, PublicBase: "/sitemaps/"},
		{Dir: dir, PublicBase: "ftp://cdn.example.com/"},
		{Dir: dir, PublicBase: "https://cdn.example.com/?a=1/"},
	} {
		if _, err := export.Tree(context.Background(), http.NotFoundHandler(), o); !errors.Is(err, export.ErrOptions) {
			t.Errorf("%+v: err = %v, want ErrOptions", o, err)
		}
	}
	if _, err := export.Site(context.Background(), nil, "example.com", export.Options{Dir: dir}); !errors.Is(err, export.ErrOptions) {
		t.Errorf("relative site URL: err = %v", err)
	}
}

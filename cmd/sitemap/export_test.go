package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/parse"
)

// TestExport: `sitemap export` against a real server writes the tree with
// the index under -public, and a second run writes nothing.
func TestExport(t *testing.T) {
	srv := server(t, func(base string) http.Handler {
		var urls []sitemap.URL
		for i := range 5 {
			urls = append(urls, sitemap.URL{Loc: fmt.Sprintf("%s/p/%d", base, i), LastMod: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)})
		}
		sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Name: "p", Source: sitemap.FromSlice(urls, 2)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sm.Close() })
		return sm.Handler(http.NotFoundHandler())
	})
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"export", "-o", dir, "-public", "https://cdn.example.com/s/", "-concurrency", "2", srv.URL + "/"}
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut, srv.Client().Transport); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if got := out.String(); !strings.HasPrefix(got, "1 indexes, 3 files: 4 written (") || !strings.HasSuffix(got, " 0 unchanged\n") {
		t.Errorf("stdout: %s", got)
	}
	if n := strings.Count(errOut.String(), " written\n"); n != 3 {
		t.Errorf("progress:\n%s", errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "sitemap_index.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for e, err := range parse.Index(bytes.NewReader(b), parse.Limits{}) {
		if err != nil || !strings.HasPrefix(e.Loc, "https://cdn.example.com/s/sitemap-p-") {
			t.Errorf("%+v %v", e, err)
		}
		if _, err := os.Stat(filepath.Join(dir, strings.TrimPrefix(e.Loc, "https://cdn.example.com/s/"))); err != nil {
			t.Error(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d entries, want 3", n)
	}

	out.Reset()
	if code := run(args, &out, &errOut, srv.Client().Transport); code != 0 || out.String() != "1 indexes, 3 files: 0 written (0 bytes), 4 unchanged\n" {
		t.Errorf("second run: exit %d, %s", code, out.String())
	}
}

func TestExportUsage(t *testing.T) {
	for _, args := range [][]string{
		{"export", "https://example.com/"},                                    // no -o
		{"export", "-o", t.TempDir()},                                         // no URL
		{"export", "-o", t.TempDir(), "-public", "x", "https://example.com/"}, // bad -public
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut, http.DefaultTransport); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// TestExportFailure: a file the server fails is named, with exit status 1.
func TestExportFailure(t *testing.T) {
	srv := server(t, func(base string) http.Handler {
		sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Name: "p", Source: sitemap.FromSlice([]sitemap.URL{{Loc: base + "/"}}, 0)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sm.Close() })
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, ".xml.gz") {
				http.Error(w, "no", http.StatusInternalServerError)
				return
			}
			sm.ServeHTTP(w, r)
		})
	})
	var out, errOut bytes.Buffer
	code := run([]string{"export", "-o", t.TempDir(), srv.URL + "/sitemap_index.xml"}, &out, &errOut, srv.Client().Transport)
	if code != 1 || !strings.Contains(errOut.String(), "sitemap-p-1.xml.gz") {
		t.Errorf("exit %d, stderr %s", code, errOut.String())
	}
}

package sitemap

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestClockFileRestart: with a clock file, a new process keeps the
// Last-Modified of files whose bytes did not change (304), and gives
// changed ones a later one, although their newest lastmod went back.
func TestClockFileRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clocks")
	clk := testkit.NewClock(t0)
	src := &mutableSource{}
	src.set(URL{Loc: "https://example.com/a", LastMod: t0.Add(-48 * time.Hour)},
		URL{Loc: "https://example.com/b", LastMod: t0.Add(-24 * time.Hour)})
	cfg := Config{Now: clk.Now, ClockFile: path}
	sm := newTestSitemap(t, cfg, Section{Source: src})
	clk.Add(floorAhead)
	before := get(sm, "/sitemap-1.xml.gz")
	idx := get(sm, "/sitemap_index.xml")
	sm.Close()

	clk.Add(time.Hour)
	again := newTestSitemap(t, cfg, Section{Source: src}) // no change
	for p, w := range map[string]string{"/sitemap-1.xml.gz": before.Header().Get("Last-Modified"), "/sitemap_index.xml": idx.Header().Get("Last-Modified")} {
		if r := get(again, p, "If-Modified-Since", w); r.Code != http.StatusNotModified {
			t.Errorf("%s after a restart with no change: If-Modified-Since %s = %d, want 304", p, w, r.Code)
		}
	}
	again.Close()

	src.set(URL{Loc: "https://example.com/a", LastMod: t0.Add(-48 * time.Hour)}) // b deleted while no process ran
	clk.Add(time.Hour)
	third := newTestSitemap(t, cfg, Section{Source: src})
	r := get(third, "/sitemap-1.xml.gz", "If-Modified-Since", before.Header().Get("Last-Modified"))
	lm, _ := http.ParseTime(r.Header().Get("Last-Modified"))
	if was, _ := http.ParseTime(before.Header().Get("Last-Modified")); r.Code != http.StatusOK || !lm.After(was) {
		t.Errorf("after a deletion while stopped: %d, Last-Modified %v; want 200 after %v", r.Code, lm, was)
	}
}

// TestClockFileDamage: a torn last record is dropped and the rest kept;
// a file that is not a clock file is a configuration error from New.
func TestClockFileDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clocks")
	clk := testkit.NewClock(t0)
	cfg := Config{Now: clk.Now, ClockFile: path}
	src := FromSlice([]URL{{Loc: "https://example.com/a", LastMod: t0.Add(-time.Hour)}}, 0)
	sm := newTestSitemap(t, cfg, Section{Source: src})
	clk.Add(floorAhead)
	lm := get(sm, "/sitemap-1.xml.gz").Header().Get("Last-Modified")
	sm.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{200, 1, 2, 3}) // a record cut short by a crash
	f.Close()
	clk.Add(time.Hour)
	again := newTestSitemap(t, cfg, Section{Source: src})
	if r := get(again, "/sitemap-1.xml.gz", "If-Modified-Since", lm); r.Code != http.StatusNotModified {
		t.Errorf("after a torn record: If-Modified-Since %s = %d, want 304", lm, r.Code)
	}
	again.Close()

	bad := filepath.Join(t.TempDir(), "not-clocks")
	os.WriteFile(bad, []byte("hello, world: not a clock file at all"), 0o644)
	if _, err := New(Config{BaseURL: "https://example.com", ClockFile: bad}, Section{Source: src}); !errors.Is(err, ErrConfig) {
		t.Errorf("New with a file that is not a clock file: %v, want ErrConfig", err)
	}
	if _, err := New(Config{BaseURL: "https://example.com", ClockFile: filepath.Join(bad, "x")}, Section{Source: src}); !errors.Is(err, ErrConfig) {
		t.Errorf("New with a clock file that cannot be made: %v, want ErrConfig", err)
	}
}

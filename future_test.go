package sitemap

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestFutureLastMods: URL lastmods more than five minutes ahead of the
// build are written as the build time, and reported once per build with
// their count; they do not move the file's Last-Modified past now. One a
// minute ahead is written as it is, and the clock does not pass now.
func TestFutureLastMods(t *testing.T) {
	clk := testkit.NewClock(t0)
	var logs testkit.SyncBuffer
	urls := []URL{
		{Loc: "https://example.com/a", LastMod: t0.Add(72 * time.Hour)},
		{Loc: "https://example.com/b", LastMod: t0.Add(30 * 24 * time.Hour)},
		{Loc: "https://example.com/c", LastMod: t0.Add(time.Minute)},
	}
	sm := newTestSitemap(t, Config{Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Section{Source: FromSlice(urls, 0)})
	clk.Add(3 * time.Second)
	w := get(sm, "/sitemap-1.xml")
	body := w.Body.String()
	if n := strings.Count(body, "<lastmod>2025-05-01T12:00:03Z</lastmod>"); n != 2 {
		t.Errorf("%d lastmods written as the build time, want 2:\n%s", n, body)
	}
	if !strings.Contains(body, "<lastmod>2025-05-01T12:01:00Z</lastmod>") {
		t.Errorf("a lastmod a minute ahead was not kept:\n%s", body)
	}
	if lm, _ := time.Parse(time.RFC1123, w.Header().Get("Last-Modified")); lm.After(clk.Now()) {
		t.Errorf("Last-Modified %v, after now %v", lm, clk.Now())
	}
	if n := strings.Count(logs.String(), "URL lastmods in the future"); n != 1 || !strings.Contains(logs.String(), "count=2") {
		t.Errorf("want one notice with count=2, got:\n%s", logs.String())
	}
}

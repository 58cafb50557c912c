package sitemap

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestBuildFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		onURL func(ctx context.Context, page, i int64) error
	}{
		{"error at once", func(context.Context, int64, int64) error { return errors.New("db down") }},
		{"error halfway", func(_ context.Context, _, i int64) error {
			if i == 5 {
				return errors.New("connection reset")
			}
			return nil
		}},
		{"panic", func(_ context.Context, _, i int64) error {
			if i == 3 {
				panic("boom")
			}
			return nil
		}},
		{"stall past the timeout", func(ctx context.Context, _, i int64) error {
			if i == 2 {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newFake(10, 10)
			src.onURL = tc.onURL
			var logs bytes.Buffer
			clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			sm := newTestSitemap(t, Config{BuildTimeout: 50 * time.Millisecond, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
				Section{Source: src, PageSize: 10})
			for i := range 3 {
				if i == 2 {
					waitFor(t, func() bool { return sm.Stats().BuildErrors == 1 }) // the first build ended
					clk.Add(61 * time.Second)                                      // past RetryAfter: one more build is tried
				}
				w := get(sm, "/sitemap-1.xml.gz")
				if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "60" {
					t.Fatalf("status %d Retry-After %q", w.Code, w.Header().Get("Retry-After"))
				}
				for _, h := range []string{"Etag", "Last-Modified", "Cache-Control"} {
					if w.Header().Get(h) != "" {
						t.Errorf("503 carries %s", h)
					}
				}
				if strings.Contains(w.Body.String(), "urlset") || strings.Contains(w.Body.String(), "boom") {
					t.Errorf("503 body leaks: %q", w.Body)
				}
			}
			// A request may give up (BuildTimeout) just before its build
			// fails: wait for the builds to end.
			waitFor(t, func() bool { return sm.Stats().BuildErrors == 2 })
			// The second request came within RetryAfter of the failure: 503
			// at once, without a build. The third, after it, builds again.
			if got := src.urlsCalls.Load(); got != 2 {
				t.Errorf("source read %d times, want 2: a failure must not be cached, nor retried before RetryAfter", got)
			}
			if _, ok := cachedEntry(sm, pageKey(0, 1)); ok {
				t.Error("a failed page was cached")
			}
			if n := strings.Count(logs.String(), "build failed"); n != 2 {
				t.Errorf("%d failures logged, want 2 (one a build):\n%s", n, logs.String())
			}
			if tc.name == "panic" && !strings.Contains(logs.String(), "goroutine") {
				t.Errorf("a panic is logged without its stack:\n%s", logs.String())
			}
			if st := sm.Stats(); st.BuildErrors != 2 || st.Unavailable != 3 || st.Builds != 1 { // the index
				t.Errorf("stats = %+v", st)
			}
		})
	}
}
